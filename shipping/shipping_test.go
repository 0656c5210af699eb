package shipping_test

import (
	"context"
	"encoding/json"
	"slices"
	"strings"
	"testing"

	"github.com/commercekit/commerce"
	"github.com/commercekit/commerce/shipping"
	"github.com/commercekit/commerce/sqldb"
	"github.com/commercekit/commerce/testkit/testdb"
)

// The two methods of the sample's dataShipping.jsonl.
const (
	sampleSameDay = `{"title" : "UPS Same Day", "active" : true, "taxCode" : "default", "rates" : [{"locations" : [{ "country" : "ES" }, { "country" : "IT" }, { "country" : "GB" }], "rates": [{"currency" : "EUR", "amount" : 10.10}, {"currency" : "GBP", "amount" : 9.90}]}, {"locations" : [{ "country" : "US", "state" : "Hawaii" }, { "country" : "US", "state" : "Alaska" }], "rates" : [{"currency" : "USD", "amount" : 25.00}]}]}`
	sampleNextDay = `{"title" : "UPS Next Day", "active" : true, "taxCode" : "default", "rates" : [{ "rates" : [{"currency" : "EUR", "amount" : 8.9 }, {"currency" : "GBP", "amount" : 9.99}],"locations" : [{"country" : "GB"}]}, {"locations" : [{ "country" : "GB", "state" : "Dorset"}], "rates": [{"currency" : "EUR", "amount" : 5.90}, {"currency" : "GBP", "amount" : 4.90}]}]}`
)

// decodeInput reads a create body as the transport does (unknown fields
// rejected).
func decodeInput(t *testing.T, body string) shipping.CreateInput {
	t.Helper()
	var in shipping.CreateInput
	dec := json.NewDecoder(strings.NewReader(body))
	dec.DisallowUnknownFields()
	if err := dec.Decode(&in); err != nil {
		t.Fatalf("decode %s: %v", body, err)
	}
	return in
}

func build(t *testing.T, body string) shipping.Method {
	t.Helper()
	m, err := shipping.New(decodeInput(t, body))
	if err != nil {
		t.Fatalf("New(%s): %v", body, err)
	}
	return m
}

func problemsOf(t *testing.T, err error) []string {
	t.Helper()
	if got := commerce.ErrorCode(err); got != commerce.EValidation {
		t.Fatalf("got error %v (code %q), want validation_error", err, got)
	}
	list, ok := commerce.ErrorData(err).([]string)
	if !ok {
		t.Fatalf("validation_error data is %T, want []string", commerce.ErrorData(err))
	}
	return list
}

// fields returns the field paths the problems name.
func fields(problems []string) []string {
	out := make([]string, len(problems))
	for i, p := range problems {
		out[i], _, _ = strings.Cut(p, ":")
	}
	return out
}

func TestNewValidation(t *testing.T) {
	const group = `{"locations": [{"country": "US"}], "rates": [{"currency": "USD", "amount": 5}]}`
	tests := []struct {
		name string
		body string
		want []string // field paths, in order
	}{
		{"title missing", `{"rates": [` + group + `]}`, []string{"title"}},
		{"title blank", `{"title": "  ", "rates": [` + group + `]}`, []string{"title"}},
		{"taxCode blank", `{"title": "T", "taxCode": "", "rates": [` + group + `]}`, []string{"taxCode"}},
		{"rates missing", `{"title": "T"}`, []string{"rates"}},
		{"rates empty", `{"title": "T", "rates": []}`, []string{"rates"}},
		{"group without locations", `{"title": "T", "rates": [{"rates": [{"currency": "USD", "amount": 5}]}]}`, []string{"rates[0].locations"}},
		{"group with empty locations", `{"title": "T", "rates": [{"locations": [], "rates": [{"currency": "USD", "amount": 5}]}]}`, []string{"rates[0].locations"}},
		{"group without rates", `{"title": "T", "rates": [{"locations": [{"country": "US"}]}]}`, []string{"rates[0].rates"}},
		{"country missing", `{"title": "T", "rates": [` + group + `, {"locations": [{"state": "HI"}], "rates": [{"currency": "USD", "amount": 5}]}]}`, []string{"rates[1].locations[0].country"}},
		{"country unknown", `{"title": "T", "rates": [{"locations": [{"country": "US"}, {"country": "XX"}], "rates": [{"currency": "USD", "amount": 5}]}]}`, []string{"rates[0].locations[1].country"}},
		{"country lower case", `{"title": "T", "rates": [{"locations": [{"country": "gb"}], "rates": [{"currency": "GBP", "amount": 5}]}]}`, []string{"rates[0].locations[0].country"}},
		{"country UK is not ISO", `{"title": "T", "rates": [{"locations": [{"country": "UK"}], "rates": [{"currency": "GBP", "amount": 5}]}]}`, []string{"rates[0].locations[0].country"}},
		{"state of another country", `{"title": "T", "rates": [` + group + `, {"locations": [{"country": "GB", "state": "Hawaii"}], "rates": [{"currency": "GBP", "amount": 5}]}]}`, []string{"rates[1].locations[0].state"}},
		{"state unknown", `{"title": "T", "rates": [{"locations": [{"country": "US", "state": "Atlantis"}], "rates": [{"currency": "USD", "amount": 5}]}]}`, []string{"rates[0].locations[0].state"}},
		{"state blank", `{"title": "T", "rates": [{"locations": [{"country": "US", "state": ""}], "rates": [{"currency": "USD", "amount": 5}]}]}`, []string{"rates[0].locations[0].state"}},
		{"currency missing", `{"title": "T", "rates": [{"locations": [{"country": "US"}], "rates": [{"amount": 5}]}]}`, []string{"rates[0].rates[0].currency"}},
		{"currency unknown", `{"title": "T", "rates": [{"locations": [{"country": "US"}], "rates": [{"currency": "USD", "amount": 5}, {"currency": "XYZ", "amount": 5}]}]}`, []string{"rates[0].rates[1].currency"}},
		{"currency lower case", `{"title": "T", "rates": [{"locations": [{"country": "US"}], "rates": [{"currency": "usd", "amount": 5}]}]}`, []string{"rates[0].rates[0].currency"}},
		{"currency twice in a group", `{"title": "T", "rates": [{"locations": [{"country": "US"}], "rates": [{"currency": "USD", "amount": 5}, {"currency": "USD", "amount": 6}]}]}`, []string{"rates[0].rates[1].currency"}},
		{"amount missing", `{"title": "T", "rates": [{"locations": [{"country": "US"}], "rates": [{"currency": "USD"}]}]}`, []string{"rates[0].rates[0].amount"}},
		{"amount null", `{"title": "T", "rates": [{"locations": [{"country": "US"}], "rates": [{"currency": "USD", "amount": null}]}]}`, []string{"rates[0].rates[0].amount"}},
		{"amount negative", `{"title": "T", "rates": [{"locations": [{"country": "US"}], "rates": [{"currency": "USD", "amount": -0.01}]}]}`, []string{"rates[0].rates[0].amount"}},
		{"amount a string", `{"title": "T", "rates": [{"locations": [{"country": "US"}], "rates": [{"currency": "USD", "amount": "5"}]}]}`, []string{"rates[0].rates[0].amount"}},
		{"amount too precise for USD", `{"title": "T", "rates": [{"locations": [{"country": "US"}], "rates": [{"currency": "USD", "amount": 1.005}]}]}`, []string{"rates[0].rates[0].amount"}},
		{"amount with decimals in JPY", `{"title": "T", "rates": [{"locations": [{"country": "JP"}], "rates": [{"currency": "JPY", "amount": 500.5}]}]}`, []string{"rates[0].rates[0].amount"}},
		{"amount above the largest", `{"title": "T", "rates": [{"locations": [{"country": "US"}], "rates": [{"currency": "USD", "amount": 100000000000.01}]}]}`, []string{"rates[0].rates[0].amount"}},
		{"amount too large", `{"title": "T", "rates": [{"locations": [{"country": "US"}], "rates": [{"currency": "USD", "amount": 99999999999999999999}]}]}`, []string{"rates[0].rates[0].amount"}},
		{"every problem reported", `{"rates": [{"locations": [{"country": "US", "state": "XX"}], "rates": [{"currency": "EUR", "amount": 1.234}]}, {"locations": [{"country": "ZZ"}], "rates": []}]}`,
			[]string{"title", "rates[0].locations[0].state", "rates[0].rates[0].amount", "rates[1].locations[0].country", "rates[1].rates"}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			_, err := shipping.New(decodeInput(t, tc.body))
			if got := fields(problemsOf(t, err)); !slices.Equal(got, tc.want) {
				t.Errorf("got problems at %q, want %q (%v)", got, tc.want, err)
			}
		})
	}
}

func TestNew(t *testing.T) {
	t.Run("sample method", func(t *testing.T) {
		m := build(t, sampleSameDay)
		if m.ID == "" || m.Title != "UPS Same Day" || !m.Active || m.TaxCode != "default" {
			t.Fatalf("got %+v", m)
		}
		if len(m.Rates) != 2 || m.Rates[0].ID == "" || m.Rates[1].ID == "" || m.Rates[0].ID == m.Rates[1].ID {
			t.Fatalf("rate groups need distinct generated ids: %+v", m.Rates)
		}
		want := []shipping.Rate{{Currency: "EUR", Amount: 1010}, {Currency: "GBP", Amount: 990}}
		if !slices.Equal(m.Rates[0].Rates, want) {
			t.Errorf("got rates %+v, want %+v", m.Rates[0].Rates, want)
		}
		if got := m.Rates[1].Locations[0]; got != (shipping.Location{Country: "US", State: "Hawaii"}) {
			t.Errorf("got location %+v, want the state kept as given", got)
		}
	})
	tests := []struct {
		name    string
		body    string
		active  bool
		taxCode string
		rate    shipping.Rate
	}{
		{"defaults", `{"title": "T", "rates": [{"locations": [{"country": "US"}], "rates": [{"currency": "USD", "amount": 5}]}]}`, true, "default", shipping.Rate{Currency: "USD", Amount: 500}},
		{"null means absent", `{"title": "T", "active": null, "taxCode": null, "rates": [{"locations": [{"country": "US", "state": null}], "rates": [{"currency": "USD", "amount": 0}]}]}`, true, "default", shipping.Rate{Currency: "USD", Amount: 0}},
		{"inactive with a tax code", `{"title": "T", "active": false, "taxCode": "reduced", "rates": [{"locations": [{"country": "JP"}], "rates": [{"currency": "JPY", "amount": 500}]}]}`, false, "reduced", shipping.Rate{Currency: "JPY", Amount: 500}},
		{"three decimals in JOD", `{"title": "T", "rates": [{"locations": [{"country": "JO"}], "rates": [{"currency": "JOD", "amount": 1.234}]}]}`, true, "default", shipping.Rate{Currency: "JOD", Amount: 1234}},
		{"trailing zeros beyond the precision", `{"title": "T", "rates": [{"locations": [{"country": "US"}], "rates": [{"currency": "USD", "amount": 2.5000}]}]}`, true, "default", shipping.Rate{Currency: "USD", Amount: 250}},
		{"state by code", `{"title": "T", "rates": [{"locations": [{"country": "GB", "state": "DOR"}], "rates": [{"currency": "GBP", "amount": 1}]}]}`, true, "default", shipping.Rate{Currency: "GBP", Amount: 100}},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			m := build(t, tc.body)
			if m.Active != tc.active || m.TaxCode != tc.taxCode || m.Rates[0].Rates[0] != tc.rate {
				t.Errorf("got active %v, taxCode %q, rate %+v; want %v, %q, %+v", m.Active, m.TaxCode, m.Rates[0].Rates[0], tc.active, tc.taxCode, tc.rate)
			}
		})
	}
}

func TestRateJSON(t *testing.T) {
	tests := []struct {
		name string
		rate shipping.Rate
		want string
	}{
		{"two decimals", shipping.Rate{Currency: "EUR", Amount: 1010}, `{"currency":"EUR","amount":10.1}`},
		{"whole", shipping.Rate{Currency: "USD", Amount: 2500}, `{"currency":"USD","amount":25}`},
		{"zero decimals", shipping.Rate{Currency: "JPY", Amount: 500}, `{"currency":"JPY","amount":500}`},
		{"three decimals", shipping.Rate{Currency: "JOD", Amount: 1234}, `{"currency":"JOD","amount":1.234}`},
		{"free", shipping.Rate{Currency: "GBP", Amount: 0}, `{"currency":"GBP","amount":0}`},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			b, err := json.Marshal(tc.rate)
			if err != nil || string(b) != tc.want {
				t.Errorf("got %s (%v), want %s", b, err, tc.want)
			}
		})
	}
}

// offer is an available method as the tests compare it.
type offer struct {
	title  string
	rateID string
	amount int64
	rates  []shipping.Rate
}

func TestAvailability(t *testing.T) {
	sameDay, nextDay := build(t, sampleSameDay), build(t, sampleNextDay)
	inactive := build(t, `{"title": "Courier (off)", "active": false, "rates": [{"locations": [{"country": "GB"}, {"country": "US"}], "rates": [{"currency": "GBP", "amount": 1}, {"currency": "USD", "amount": 1}]}]}`)
	methods := []shipping.Method{sameDay, nextDay, inactive}
	sameDayEU, sameDayUS := sameDay.Rates[0], sameDay.Rates[1]
	nextDayGB, nextDayDorset := nextDay.Rates[0], nextDay.Rates[1]

	tests := []struct {
		name                     string
		country, state, currency string
		want                     []offer
	}{
		{"US Hawaii in USD", "US", "Hawaii", "USD", []offer{{"UPS Same Day", sameDayUS.ID, 2500, sameDayUS.Rates}}},
		{"US HI in USD", "US", "HI", "USD", []offer{{"UPS Same Day", sameDayUS.ID, 2500, sameDayUS.Rates}}},
		{"US hawaii in lower case", "US", "hawaii", "USD", []offer{{"UPS Same Day", sameDayUS.ID, 2500, sameDayUS.Rates}}},
		{"US Alaska in USD", "US", "AK", "USD", []offer{{"UPS Same Day", sameDayUS.ID, 2500, sameDayUS.Rates}}},
		{"US California", "US", "California", "USD", nil},
		{"US without a state", "US", "", "USD", nil},
		{"GB Dorset in GBP", "GB", "Dorset", "GBP", []offer{
			{"UPS Same Day", sameDayEU.ID, 990, sameDayEU.Rates},
			{"UPS Next Day", nextDayDorset.ID, 490, nextDayDorset.Rates},
		}},
		{"GB DOR in EUR", "GB", "DOR", "EUR", []offer{
			{"UPS Same Day", sameDayEU.ID, 1010, sameDayEU.Rates},
			{"UPS Next Day", nextDayDorset.ID, 590, nextDayDorset.Rates},
		}},
		{"GB Kent in GBP", "GB", "Kent", "GBP", []offer{
			{"UPS Same Day", sameDayEU.ID, 990, sameDayEU.Rates},
			{"UPS Next Day", nextDayGB.ID, 999, nextDayGB.Rates},
		}},
		{"GB without a state", "GB", "", "GBP", []offer{
			{"UPS Same Day", sameDayEU.ID, 990, sameDayEU.Rates},
			{"UPS Next Day", nextDayGB.ID, 999, nextDayGB.Rates},
		}},
		{"ES in EUR", "ES", "Madrid", "EUR", []offer{{"UPS Same Day", sameDayEU.ID, 1010, sameDayEU.Rates}}},
		{"ES in USD: no rate in the currency", "ES", "Madrid", "USD", nil},
		{"GB in USD: no rate in the currency", "GB", "Dorset", "USD", nil},
		{"a country nobody serves", "FR", "", "EUR", nil},
		{"an unknown currency", "GB", "Kent", "XYZ", nil},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			got := shipping.AvailableMethods(methods, tc.country, tc.state, tc.currency)
			if got == nil {
				t.Fatal("got nil, want a list")
			}
			if len(got) != len(tc.want) {
				t.Fatalf("got %d methods %+v, want %d", len(got), got, len(tc.want))
			}
			for i, w := range tc.want {
				a := got[i]
				if a.Title != w.title || !slices.Equal(a.Rates, w.rates) {
					t.Errorf("method %d: got %q with rates %+v, want %q with %+v", i, a.Title, a.Rates, w.title, w.rates)
				}
				s := a.Selected
				if s.ID != a.ID || s.Title != a.Title || s.TaxCode != "default" || s.RateID != w.rateID || s.Amount != w.amount || s.Currency != tc.currency {
					t.Errorf("method %d: got selection %+v, want rateId %s, amount %d %s", i, s, w.rateID, w.amount, tc.currency)
				}
				m := methods[slices.IndexFunc(methods, func(m shipping.Method) bool { return m.ID == a.ID })]
				sel, ok := shipping.Select(m, tc.country, tc.state, tc.currency)
				if !ok || sel != s {
					t.Errorf("method %d: Select gave %+v, %v; want %+v, true", i, sel, ok, s)
				}
			}
			for _, m := range methods {
				if slices.ContainsFunc(got, func(a shipping.Available) bool { return a.ID == m.ID }) {
					continue
				}
				if sel, ok := shipping.Select(m, tc.country, tc.state, tc.currency); ok {
					t.Errorf("Select(%q) = %+v, but the method is not available", m.Title, sel)
				}
			}
		})
	}
}

// TestAvailabilityGroupChoice pins the choices among several groups that
// qualify: the state wins only where it has a rate in the currency, and
// equally specific groups are taken in order.
func TestAvailabilityGroupChoice(t *testing.T) {
	m := build(t, `{"title": "M", "rates": [
		{"locations": [{"country": "GB"}], "rates": [{"currency": "GBP", "amount": 9}, {"currency": "EUR", "amount": 10}]},
		{"locations": [{"country": "GB", "state": "Dorset"}], "rates": [{"currency": "GBP", "amount": 4}]},
		{"locations": [{"country": "GB"}], "rates": [{"currency": "GBP", "amount": 7}]},
		{"locations": [{"country": "GB", "state": "DOR"}], "rates": [{"currency": "GBP", "amount": 3}]}
	]}`)
	tests := []struct {
		name            string
		state, currency string
		group           int
		amount          int64
	}{
		{"the first state group wins", "Dorset", "GBP", 1, 400},
		{"a state group without the currency does not hide a country-wide one", "Dorset", "EUR", 0, 1000},
		{"the first country-wide group wins", "Kent", "GBP", 0, 900},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			sel, ok := shipping.Select(m, "GB", tc.state, tc.currency)
			if !ok || sel.RateID != m.Rates[tc.group].ID || sel.Amount != tc.amount {
				t.Errorf("got %+v, %v; want group %d at %d", sel, ok, tc.group, tc.amount)
			}
		})
	}
}

func TestAvailableJSON(t *testing.T) {
	m := build(t, sampleNextDay)
	got := shipping.AvailableMethods([]shipping.Method{m}, "GB", "Dorset", "GBP")
	b, err := json.Marshal(got)
	if err != nil {
		t.Fatal(err)
	}
	want := `[{"id":"` + m.ID + `","title":"UPS Next Day","taxCode":"default","rates":[{"currency":"EUR","amount":5.9},{"currency":"GBP","amount":4.9}]}]`
	if string(b) != want {
		t.Errorf("got %s, want %s", b, want)
	}
}

// newService returns a service over a store of db holding the methods
// the bodies describe, created through the service.
func newService(t *testing.T, db *sqldb.DB, bodies ...string) (*shipping.Service, []shipping.Method) {
	t.Helper()
	svc := shipping.NewService(sqldb.NewShippingStore(db), nil)
	var ms []shipping.Method
	for _, b := range bodies {
		m, err := svc.Create(context.Background(), decodeInput(t, b))
		if err != nil {
			t.Fatalf("create %s: %v", b, err)
		}
		ms = append(ms, m)
	}
	return svc, ms
}

func TestServiceRate(t *testing.T) {
	testdb.Each(t, testServiceRate)
}

func testServiceRate(t *testing.T, db *sqldb.DB) {
	svc, ms := newService(t, db, sampleSameDay, `{"title": "Off", "active": false, "rates": [{"locations": [{"country": "US"}], "rates": [{"currency": "USD", "amount": 1}]}]}`)
	sameDay, off := ms[0], ms[1]
	tests := []struct {
		name                               string
		id, country, state, currency, code string
	}{
		{"available", sameDay.ID, "US", "HI", "USD", ""},
		{"unknown id", "nope", "US", "HI", "USD", commerce.EInvalidShippingMethod},
		{"empty id", "", "US", "HI", "USD", commerce.EInvalidShippingMethod},
		{"inactive", off.ID, "US", "", "USD", commerce.EInvalidShippingMethod},
		{"address not served", sameDay.ID, "US", "California", "USD", commerce.EInvalidShippingMethod},
		{"currency not served", sameDay.ID, "US", "HI", "EUR", commerce.EInvalidShippingMethod},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			sel, err := svc.Rate(context.Background(), tc.id, tc.country, tc.state, tc.currency)
			if got := commerce.ErrorCode(err); got != tc.code {
				t.Fatalf("got code %q (%v), want %q", got, err, tc.code)
			}
			if tc.code == "" {
				want := shipping.Selected{ID: sameDay.ID, Title: "UPS Same Day", TaxCode: "default", RateID: sameDay.Rates[1].ID, Amount: 2500, Currency: "USD"}
				if sel != want {
					t.Errorf("got %+v, want %+v", sel, want)
				}
				if m := sel.Money(); m.Amount != 2500 || m.Currency != "USD" || m.Precision != 2 {
					t.Errorf("got money %+v", m)
				}
			}
			if tc.code != "" && commerce.ErrorData(err) != nil {
				t.Errorf("got data %v, want none", commerce.ErrorData(err))
			}
		})
	}
}

func TestServiceAvailable(t *testing.T) {
	testdb.Each(t, func(t *testing.T, db *sqldb.DB) {
		svc, ms := newService(t, db, sampleSameDay, sampleNextDay)
		got, err := svc.Available(context.Background(), "GB", "Kent", "GBP")
		if err != nil || len(got) != 2 || got[0].ID != ms[0].ID || got[1].ID != ms[1].ID {
			t.Fatalf("got %+v, %v; want the 2 methods for GB in creation order", got, err)
		}
		got, err = svc.Available(context.Background(), "", "", "GBP")
		if err != nil || got == nil || len(got) != 0 {
			t.Errorf("no country: got %+v, %v; want an empty list", got, err)
		}
	})
}

func TestInfoInputResolve(t *testing.T) {
	tests := []struct {
		name   string
		in     shipping.InfoInput
		want   string
		failed bool
	}{
		{"id", shipping.InfoInput{ID: "a"}, "a", false},
		{"shippingId", shipping.InfoInput{ShippingID: "b"}, "b", false},
		{"both the same", shipping.InfoInput{ID: "a", ShippingID: "a"}, "a", false},
		{"both different", shipping.InfoInput{ID: "a", ShippingID: "b"}, "", true},
		{"neither", shipping.InfoInput{}, "", true},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			got, err := tc.in.Resolve()
			if got != tc.want || (err != nil) != tc.failed {
				t.Fatalf("got %q, %v; want %q, failed %v", got, err, tc.want, tc.failed)
			}
			if err != nil && commerce.ErrorCode(err) != commerce.EValidation {
				t.Errorf("got code %q, want validation_error", commerce.ErrorCode(err))
			}
		})
	}
}
