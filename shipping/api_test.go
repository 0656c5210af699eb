package shipping_test

import (
	"bufio"
	"bytes"
	"context"
	"encoding/json"
	"net/http"
	"net/url"
	"os"
	"reflect"
	"slices"
	"strings"
	"testing"

	"github.com/commercekit/commerce"
	"github.com/commercekit/commerce/event"
	"github.com/commercekit/commerce/sqldb"
	"github.com/commercekit/commerce/testkit/apitest"
	"github.com/commercekit/commerce/testkit/sample"
	"github.com/commercekit/commerce/testkit/testdb"
)

// apiMethod is a shipping method as a client reads it.
type apiMethod struct {
	ID      string     `json:"id"`
	Title   string     `json:"title"`
	Active  bool       `json:"active"`
	TaxCode string     `json:"taxCode"`
	Rates   []apiGroup `json:"rates"`
}

type apiGroup struct {
	ID        string        `json:"id"`
	Locations []apiLocation `json:"locations"`
	Rates     []apiRate     `json:"rates"`
}

type apiLocation struct {
	Country string  `json:"country"`
	State   *string `json:"state"`
}

type apiRate struct {
	Currency string      `json:"currency"`
	Amount   json.Number `json:"amount"`
}

const base = "/cart/v1/"

func createMethod(t *testing.T, srv *apitest.Server, body string) apiMethod {
	t.Helper()
	var m apiMethod
	srv.Post(t, base+"shipping.create", srv.Admin, body).Must(t).Decode(t, "shipping", &m)
	if m.ID == "" {
		t.Fatalf("created method has no id: %+v", m)
	}
	return m
}

func listMethods(t *testing.T, srv *apitest.Server, query string) []apiMethod {
	t.Helper()
	var data []apiMethod
	srv.Get(t, base+"shipping.list?"+query, srv.API).Must(t).Decode(t, "data", &data)
	return data
}

func titlesOf(ms []apiMethod) []string {
	out := make([]string, len(ms))
	for i, m := range ms {
		out[i] = m.Title
	}
	return out
}

func responseProblems(t *testing.T, r apitest.Response) []string {
	t.Helper()
	var list []string
	if err := json.Unmarshal(r.Data, &list); err != nil {
		t.Fatalf("validation_error data is not a list of strings: %s", r.Raw)
	}
	return list
}

func TestAPICreateAndInfo(t *testing.T) {
	testdb.Each(t, func(t *testing.T, db *sqldb.DB) {
		srv := apitest.New(t, db)
		m := createMethod(t, srv, sampleSameDay)
		if m.Title != "UPS Same Day" || !m.Active || m.TaxCode != "default" || len(m.Rates) != 2 {
			t.Fatalf("got %+v", m)
		}
		g0, g1 := m.Rates[0], m.Rates[1]
		if g0.ID == "" || g1.ID == "" || g0.ID == g1.ID {
			t.Errorf("rate groups need distinct ids: %q, %q", g0.ID, g1.ID)
		}
		if len(g0.Locations) != 3 || g0.Locations[2].Country != "GB" || g0.Locations[2].State != nil {
			t.Errorf("got locations %+v, want ES, IT, GB without state", g0.Locations)
		}
		if s := g1.Locations[0].State; s == nil || *s != "Hawaii" {
			t.Errorf("got state %v, want Hawaii as given", s)
		}
		wantRates := []apiRate{{"EUR", "10.1"}, {"GBP", "9.9"}}
		if !slices.Equal(g0.Rates, wantRates) {
			t.Errorf("got rates %+v, want %+v", g0.Rates, wantRates)
		}
		if !slices.Equal(g1.Rates, []apiRate{{"USD", "25"}}) {
			t.Errorf("got rates %+v, want USD 25", g1.Rates)
		}

		// Defaults: active true, taxCode "default".
		d := createMethod(t, srv, `{"title": "Post", "rates": [{"locations": [{"country": "JP"}], "rates": [{"currency": "JPY", "amount": 500}]}]}`)
		if !d.Active || d.TaxCode != "default" || d.Rates[0].Rates[0].Amount != "500" {
			t.Errorf("got %+v, want active, taxCode default, 500 JPY", d)
		}

		for _, path := range []string{"shipping.info?id=" + m.ID, "shipping.info?shippingId=" + m.ID, "/services/cart/v1/shipping.info?id=" + m.ID} {
			if !strings.HasPrefix(path, "/") {
				path = base + path
			}
			var got apiMethod
			srv.Get(t, path, srv.API).Must(t).Decode(t, "shipping", &got)
			if got.ID != m.ID || got.Title != m.Title || len(got.Rates) != 2 || got.Rates[1].ID != g1.ID || !slices.Equal(got.Rates[0].Rates, wantRates) {
				t.Errorf("%s: got %+v, want %+v", path, got, m)
			}
		}
		// POST works for a read too, with the id in the body.
		var got apiMethod
		srv.Post(t, base+"shipping.info", srv.API, `{"shippingId": "`+m.ID+`"}`).Must(t).Decode(t, "shipping", &got)
		if got.ID != m.ID {
			t.Errorf("got %q, want %q", got.ID, m.ID)
		}
	})
}

func TestAPIErrors(t *testing.T) {
	testdb.Each(t, func(t *testing.T, db *sqldb.DB) {
		srv := apitest.New(t, db)
		m := createMethod(t, srv, sampleNextDay)
		tests := []struct {
			name   string
			method string
			path   string
			token  string
			body   string
			status int
			code   string
			data   any // expected data when not nil
		}{
			{"info of an unknown id", "GET", "shipping.info?id=nope", srv.API, "", 404, commerce.EShippingNotFound, "nope"},
			{"info of an unknown shippingId", "GET", "shipping.info?shippingId=nope", srv.API, "", 404, commerce.EShippingNotFound, "nope"},
			{"info without id", "GET", "shipping.info", srv.API, "", 400, commerce.EValidation, nil},
			{"info with two different ids", "GET", "shipping.info?id=" + m.ID + "&shippingId=other", srv.API, "", 400, commerce.EValidation, nil},
			{"remove of an unknown id", "POST", "shipping.remove?id=nope", srv.Admin, "", 404, commerce.EShippingNotFound, "nope"},
			{"create with the api scope", "POST", "shipping.create", srv.API, sampleSameDay, 403, commerce.EForbidden, nil},
			{"remove with the api scope", "POST", "shipping.remove?id=" + m.ID, srv.API, "", 403, commerce.EForbidden, nil},
			{"create without a token", "POST", "shipping.create", "", sampleSameDay, 401, commerce.EInvalidToken, nil},
			{"create by GET", "GET", "shipping.create", srv.Admin, "", 405, commerce.EMethodNotAllowed, nil},
			{"remove by GET", "GET", "shipping.remove?id=" + m.ID, srv.Admin, "", 405, commerce.EMethodNotAllowed, nil},
			{"create with an id", "POST", "shipping.create", srv.Admin, `{"id": "x", "title": "T", "rates": [{"locations": [{"country": "US"}], "rates": [{"currency": "USD", "amount": 1}]}]}`, 400, commerce.EValidation, nil},
			{"create with a rate group id", "POST", "shipping.create", srv.Admin, `{"title": "T", "rates": [{"id": "g", "locations": [{"country": "US"}], "rates": [{"currency": "USD", "amount": 1}]}]}`, 400, commerce.EValidation, nil},
			{"list with a bad limit", "GET", "shipping.list?limit=0", srv.API, "", 400, commerce.EValidation, nil},
			{"list with a bad skip", "GET", "shipping.list?skip=-1", srv.API, "", 400, commerce.EValidation, nil},
			{"list with a bad pattern", "GET", "shipping.list?title=(", srv.API, "", 400, commerce.EValidation, nil},
			{"under another service", "GET", "/catalog/v1/shipping.info?id=" + m.ID, srv.API, "", 404, commerce.EOperationNotFound, nil},
		}
		for _, tc := range tests {
			t.Run(tc.name, func(t *testing.T) {
				path := tc.path
				if !strings.HasPrefix(path, "/") {
					path = base + path
				}
				var body any
				if tc.body != "" {
					body = tc.body
				}
				r := srv.Do(t, tc.method, path, tc.token, body).Expect(t, tc.status, tc.code)
				if tc.data != nil {
					var data any
					if err := json.Unmarshal(r.Data, &data); err != nil || data != tc.data {
						t.Errorf("got data %s, want %v", r.Data, tc.data)
					}
				}
			})
		}
		// Nothing above removed the method.
		srv.Get(t, base+"shipping.info?id="+m.ID, srv.API).Must(t)
	})
}

func TestAPICreateValidation(t *testing.T) {
	testdb.Each(t, func(t *testing.T, db *sqldb.DB) {
		srv := apitest.New(t, db)
		const ok = `{"locations": [{"country": "US"}], "rates": [{"currency": "USD", "amount": 5}]}`
		tests := []struct {
			name  string
			body  string
			field string // the field path the first problem names
		}{
			{"title missing", `{"rates": [` + ok + `]}`, "title"},
			{"title not a string", `{"title": 5, "rates": [` + ok + `]}`, "title"},
			{"active not a boolean", `{"title": "T", "active": "yes", "rates": [` + ok + `]}`, "active"},
			{"rates empty", `{"title": "T", "rates": []}`, "rates"},
			{"no locations", `{"title": "T", "rates": [` + ok + `, {"locations": [], "rates": [{"currency": "USD", "amount": 5}]}]}`, "rates[1].locations"},
			{"no rates in a group", `{"title": "T", "rates": [{"locations": [{"country": "US"}], "rates": []}]}`, "rates[0].rates"},
			{"invalid country", `{"title": "T", "rates": [` + ok + `, {"locations": [{"country": "US"}, {"country": "XX"}], "rates": [{"currency": "USD", "amount": 5}]}]}`, "rates[1].locations[1].country"},
			{"invalid state", `{"title": "T", "rates": [` + ok + `, {"locations": [{"country": "US", "state": "Dorset"}], "rates": [{"currency": "USD", "amount": 5}]}]}`, "rates[1].locations[0].state"},
			{"state not a string", `{"title": "T", "rates": [{"locations": [{"country": "US", "state": 5}], "rates": [{"currency": "USD", "amount": 5}]}]}`, "rates[0].locations[0].state"},
			{"invalid currency", `{"title": "T", "rates": [{"locations": [{"country": "US"}], "rates": [{"currency": "USD", "amount": 5}, {"currency": "DOLLAR", "amount": 5}]}]}`, "rates[0].rates[1].currency"},
			{"negative amount", `{"title": "T", "rates": [{"locations": [{"country": "US"}], "rates": [{"currency": "USD", "amount": -1}]}]}`, "rates[0].rates[0].amount"},
			{"too many decimals", `{"title": "T", "rates": [{"locations": [{"country": "US"}], "rates": [{"currency": "USD", "amount": 9.999}]}]}`, "rates[0].rates[0].amount"},
			{"decimals in JPY", `{"title": "T", "rates": [{"locations": [{"country": "JP"}], "rates": [{"currency": "JPY", "amount": 1.5}]}]}`, "rates[0].rates[0].amount"},
			{"amount as a string", `{"title": "T", "rates": [{"locations": [{"country": "US"}], "rates": [{"currency": "USD", "amount": "5"}]}]}`, "rates[0].rates[0].amount"},
			{"unknown field", `{"title": "T", "rates": [` + ok + `], "isActive": true}`, "isActive"},
		}
		for _, tc := range tests {
			t.Run(tc.name, func(t *testing.T) {
				r := srv.Post(t, base+"shipping.create", srv.Admin, tc.body).Expect(t, 400, commerce.EValidation)
				list := responseProblems(t, r)
				if len(list) == 0 || !strings.HasPrefix(list[0], tc.field+": ") {
					t.Errorf("got problems %q, want the first to name %q", list, tc.field)
				}
			})
		}
		if got := listMethods(t, srv, ""); len(got) != 0 {
			t.Errorf("rejected creates stored %d methods: %+v", len(got), got)
		}
	})
}

func TestAPIList(t *testing.T) {
	testdb.Each(t, func(t *testing.T, db *sqldb.DB) {
		srv := apitest.New(t, db)
		same := createMethod(t, srv, sampleSameDay)
		next := createMethod(t, srv, sampleNextDay)
		off := createMethod(t, srv, `{"title": "DHL Economy", "active": false, "taxCode": "reduced", "rates": [{"locations": [{"country": "FR"}, {"country": "ES"}], "rates": [{"currency": "EUR", "amount": 3}]}]}`)
		post := createMethod(t, srv, `{"title": "Post", "rates": [{"locations": [{"country": "JP"}], "rates": [{"currency": "JPY", "amount": 500}]}]}`)

		tests := []struct {
			name  string
			query string
			want  []string
		}{
			{"all in creation order", "", []string{"UPS Same Day", "UPS Next Day", "DHL Economy", "Post"}},
			{"by id", "id=" + post.ID + "," + same.ID, []string{"UPS Same Day", "Post"}},
			{"by title, case-insensitive, anywhere", "title=ups", []string{"UPS Same Day", "UPS Next Day"}},
			{"by title pattern", "title=" + "day$", []string{"UPS Same Day", "UPS Next Day"}},
			{"active", "active=true", []string{"UPS Same Day", "UPS Next Day", "Post"}},
			{"inactive", "active=false", []string{"DHL Economy"}},
			{"by country", "country=ES", []string{"UPS Same Day", "DHL Economy"}},
			{"by countries", "country=JP,US", []string{"UPS Same Day", "Post"}},
			{"by tax code", "taxCode=reduced", []string{"DHL Economy"}},
			{"filters together", "country=ES&active=true", []string{"UPS Same Day"}},
			{"limit", "limit=2", []string{"UPS Same Day", "UPS Next Day"}},
			{"skip", "skip=1&limit=2", []string{"UPS Next Day", "DHL Economy"}},
			{"skip past the end", "skip=10", []string{}},
			{"title with paging", "title=u&skip=1&limit=1", []string{"UPS Next Day"}},
			{"no match", "id=nope", []string{}},
		}
		for _, tc := range tests {
			t.Run(tc.name, func(t *testing.T) {
				if got := titlesOf(listMethods(t, srv, tc.query)); !slices.Equal(got, tc.want) {
					t.Errorf("got %q, want %q", got, tc.want)
				}
			})
		}

		t.Run("page and records", func(t *testing.T) {
			r := srv.Get(t, base+"shipping.list?limit=3&skip=1", srv.API).Must(t)
			var page commerce.Page
			r.Decode(t, "page", &page)
			if page != (commerce.Page{Limit: 3, Skip: 1}) {
				t.Errorf("got page %+v, want limit 3, skip 1", page)
			}
			var data []apiMethod
			r.Decode(t, "data", &data)
			if len(data) != 3 || data[0].ID != next.ID || data[1].ID != off.ID || data[1].Active || data[1].TaxCode != "reduced" ||
				len(data[0].Rates) != 2 || !slices.Equal(data[0].Rates[1].Rates, []apiRate{{"EUR", "5.9"}, {"GBP", "4.9"}}) {
				t.Errorf("got %+v", data)
			}
			var def commerce.Page
			srv.Get(t, base+"shipping.list", srv.API).Must(t).Decode(t, "page", &def)
			if def != (commerce.Page{Limit: 10, Skip: 0}) {
				t.Errorf("got default page %+v, want limit 10, skip 0", def)
			}
		})
		t.Run("fields", func(t *testing.T) {
			var data []map[string]any
			srv.Get(t, base+"shipping.list?fields=title,nope&id="+next.ID, srv.API).Must(t).Decode(t, "data", &data)
			if len(data) != 1 || len(data[0]) != 2 || data[0]["id"] != next.ID || data[0]["title"] != "UPS Next Day" {
				t.Errorf("got %v, want id and title only", data)
			}
		})
		t.Run("POST body with lists", func(t *testing.T) {
			var data []apiMethod
			srv.Post(t, base+"shipping.list", srv.API, `{"id": ["`+off.ID+`", "`+post.ID+`"], "country": "FR,JP"}`).Must(t).Decode(t, "data", &data)
			if got := titlesOf(data); !slices.Equal(got, []string{"DHL Economy", "Post"}) {
				t.Errorf("got %q", got)
			}
		})
	})
}

func TestAPIRemove(t *testing.T) {
	testdb.Each(t, func(t *testing.T, db *sqldb.DB) {
		srv := apitest.New(t, db)
		same := createMethod(t, srv, sampleSameDay)
		next := createMethod(t, srv, sampleNextDay)

		var removed apiMethod
		srv.Post(t, base+"shipping.remove?shippingId="+same.ID, srv.Admin, nil).Must(t).Decode(t, "shipping", &removed)
		if removed.ID != same.ID || removed.Title != "UPS Same Day" || len(removed.Rates) != 2 || removed.Rates[0].ID != same.Rates[0].ID {
			t.Errorf("got removed %+v, want the removed record", removed)
		}
		srv.Get(t, base+"shipping.info?id="+same.ID, srv.API).Expect(t, 404, commerce.EShippingNotFound)
		srv.Post(t, base+"shipping.remove", srv.Admin, `{"id": "`+same.ID+`"}`).Expect(t, 404, commerce.EShippingNotFound)
		if got := titlesOf(listMethods(t, srv, "")); !slices.Equal(got, []string{"UPS Next Day"}) {
			t.Errorf("got %q after remove, want only UPS Next Day", got)
		}
		if got := titlesOf(listMethods(t, srv, "country=GB")); !slices.Equal(got, []string{"UPS Next Day"}) {
			t.Errorf("got %q for GB after remove, want only UPS Next Day", got)
		}
		// The cart no longer sees it.
		ctx := context.Background()
		av, err := srv.App.Shipping.Available(ctx, "GB", "Kent", "GBP")
		if err != nil || len(av) != 1 || av[0].ID != next.ID {
			t.Errorf("got %+v, %v; want only UPS Next Day", av, err)
		}
		if _, err := srv.App.Shipping.Rate(ctx, same.ID, "GB", "Kent", "GBP"); commerce.ErrorCode(err) != commerce.EInvalidShippingMethod {
			t.Errorf("got %v, want invalid_shipping_method for a removed method", err)
		}
	})
}

// TestServiceOverStore runs the cart's view (Available, Rate) over the
// real stores: only active methods with a location in the country are
// candidates, and the rules pick the group.
func TestServiceOverStore(t *testing.T) {
	testdb.Each(t, func(t *testing.T, db *sqldb.DB) {
		srv := apitest.New(t, db)
		same := createMethod(t, srv, sampleSameDay)
		next := createMethod(t, srv, sampleNextDay)
		off := createMethod(t, srv, `{"title": "Off", "active": false, "rates": [{"locations": [{"country": "GB"}], "rates": [{"currency": "GBP", "amount": 1}]}]}`)
		svc := srv.App.Shipping
		ctx := context.Background()

		tests := []struct {
			name                     string
			country, state, currency string
			want                     []string // "id/rateId/amount"
		}{
			{"US Hawaii", "US", "Hawaii", "USD", []string{same.ID + "/" + same.Rates[1].ID + "/2500"}},
			{"US HI", "US", "HI", "USD", []string{same.ID + "/" + same.Rates[1].ID + "/2500"}},
			{"US California", "US", "California", "USD", nil},
			{"GB Dorset", "GB", "Dorset", "GBP", []string{same.ID + "/" + same.Rates[0].ID + "/990", next.ID + "/" + next.Rates[1].ID + "/490"}},
			{"GB Kent", "GB", "Kent", "GBP", []string{same.ID + "/" + same.Rates[0].ID + "/990", next.ID + "/" + next.Rates[0].ID + "/999"}},
			{"ES", "ES", "Madrid", "EUR", []string{same.ID + "/" + same.Rates[0].ID + "/1010"}},
			{"a currency with no rate", "GB", "Kent", "JPY", nil},
		}
		for _, tc := range tests {
			t.Run(tc.name, func(t *testing.T) {
				av, err := svc.Available(ctx, tc.country, tc.state, tc.currency)
				if err != nil {
					t.Fatal(err)
				}
				var got []string
				for _, a := range av {
					s := a.Selected
					got = append(got, s.ID+"/"+s.RateID+"/"+json.Number(itoa(s.Amount)).String())
					sel, err := svc.Rate(ctx, a.ID, tc.country, tc.state, tc.currency)
					if err != nil || sel != s {
						t.Errorf("Rate(%s) = %+v, %v; want %+v", a.Title, sel, err, s)
					}
				}
				if !slices.Equal(got, tc.want) {
					t.Errorf("got %q, want %q", got, tc.want)
				}
			})
		}
		if _, err := svc.Rate(ctx, off.ID, "GB", "Kent", "GBP"); commerce.ErrorCode(err) != commerce.EInvalidShippingMethod {
			t.Errorf("inactive: got %v, want invalid_shipping_method", err)
		}
		if _, err := svc.Rate(ctx, "nope", "GB", "Kent", "GBP"); commerce.ErrorCode(err) != commerce.EInvalidShippingMethod {
			t.Errorf("unknown: got %v, want invalid_shipping_method", err)
		}
		if _, err := svc.Rate(ctx, next.ID, "US", "HI", "USD"); commerce.ErrorCode(err) != commerce.EInvalidShippingMethod {
			t.Errorf("not served: got %v, want invalid_shipping_method", err)
		}
	})
}

func itoa(n int64) string {
	b, _ := json.Marshal(n)
	return string(b)
}

// TestShippingSampleData creates every record of the sample's
// dataShipping.jsonl through shipping.create, as `commerce load` does:
// both are accepted, and Dorset gets UPS Next Day's state rate.
func TestShippingSampleData(t *testing.T) {
	raw, err := os.ReadFile(sample.File(t, "dataShipping.jsonl"))
	if err != nil {
		t.Fatal(err)
	}
	testdb.Each(t, func(t *testing.T, db *sqldb.DB) {
		srv := apitest.New(t, db)
		var created []apiMethod
		sc := bufio.NewScanner(bytes.NewReader(raw))
		for sc.Scan() {
			line := bytes.TrimSpace(sc.Bytes())
			if len(line) == 0 {
				continue
			}
			r := srv.Post(t, base+"shipping.create", srv.Admin, line)
			if r.Status != http.StatusOK {
				t.Fatalf("rejected %s: %s", line, r.Raw)
			}
			var m apiMethod
			r.Decode(t, "shipping", &m)
			created = append(created, m)
		}
		if err := sc.Err(); err != nil {
			t.Fatal(err)
		}
		if got := titlesOf(created); !slices.Equal(got, []string{"UPS Same Day", "UPS Next Day"}) {
			t.Fatalf("created %q, want UPS Same Day and UPS Next Day", got)
		}
		av, err := srv.App.Shipping.Available(context.Background(), "GB", "Dorset", "GBP")
		if err != nil || len(av) != 2 || av[1].Selected.Amount != 490 || av[0].Selected.Amount != 990 {
			t.Errorf("got %+v, %v; want Same Day 9.90 and Next Day 4.90", av, err)
		}
	})
}

// TestAPIEvents: shipping.create and shipping.remove each emit their event
// on SHIPPING in their transaction (issue 9 defect 14), with the payloads
// of CONVENTIONS.md; a rejected change emits nothing.
func TestAPIEvents(t *testing.T) {
	testdb.Each(t, func(t *testing.T, db *sqldb.DB) {
		srv := apitest.New(t, db)
		m := createMethod(t, srv, sampleSameDay)
		srv.Post(t, base+"shipping.create", srv.Admin, `{"title": "T", "rates": []}`).Expect(t, 400, commerce.EValidation)
		srv.Post(t, base+"shipping.remove?id=nope", srv.Admin, nil).Expect(t, 404, commerce.EShippingNotFound)
		var removed apiMethod
		srv.Post(t, base+"shipping.remove?shippingId="+m.ID, srv.Admin, nil).Must(t).Decode(t, "shipping", &removed)

		var evs []event.Event
		srv.Get(t, "/event/v1/event.list?channel=SHIPPING", srv.Admin).Must(t).Decode(t, "data", &evs)
		if len(evs) != 2 || evs[0].Type != event.Create || evs[1].Type != event.Remove {
			t.Fatalf("got %d events %+v, want CREATE and REMOVE", len(evs), evs)
		}
		var create struct {
			New  apiMethod      `json:"new"`
			Data map[string]any `json:"data"`
		}
		var remove struct {
			ID  string    `json:"id"`
			Old apiMethod `json:"old"`
		}
		if err := json.Unmarshal(evs[0].Payload, &create); err != nil {
			t.Fatal(err)
		}
		if err := json.Unmarshal(evs[1].Payload, &remove); err != nil {
			t.Fatal(err)
		}
		var given map[string]any
		json.Unmarshal([]byte(sampleSameDay), &given)
		if create.New.ID != m.ID || create.New.Rates[1].ID != m.Rates[1].ID || !reflect.DeepEqual(create.Data, given) {
			t.Errorf("CREATE payload: got %s, want {new: the method, data: the request}", evs[0].Payload)
		}
		if !strings.Contains(string(evs[0].Payload), `"amount":10.10`) {
			t.Errorf("CREATE data: got %s, want the amounts as given (10.10)", evs[0].Payload)
		}
		if remove.ID != m.ID || remove.Old.ID != m.ID || len(remove.Old.Rates) != 2 || !slices.Equal(remove.Old.Rates[0].Rates, removed.Rates[0].Rates) {
			t.Errorf("REMOVE payload: got %s, want {id, old: the method}", evs[1].Payload)
		}
	})
}

// TestAPITaxCodeNFC: a method's taxCode is stored in NFC and the taxCode
// filter matches it typed either way (issue 9 defect 7).
func TestAPITaxCodeNFC(t *testing.T) {
	const nfc, nfd = "r\u00e9duit", "re\u0301duit"
	testdb.Each(t, func(t *testing.T, db *sqldb.DB) {
		srv := apitest.New(t, db)
		m := createMethod(t, srv, `{"title": "Post", "taxCode": "`+nfd+`", "rates": [{"locations": [{"country": "FR"}], "rates": [{"currency": "EUR", "amount": 3}]}]}`)
		if m.TaxCode != nfc {
			t.Errorf("stored taxCode %q, want the NFC %q", m.TaxCode, nfc)
		}
		for _, code := range []string{nfc, nfd} {
			if got := titlesOf(listMethods(t, srv, "taxCode="+url.QueryEscape(code))); !slices.Equal(got, []string{"Post"}) {
				t.Errorf("taxCode=%q: got %q", code, got)
			}
		}
	})
}
