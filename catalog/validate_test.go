package catalog

import (
	"encoding/json"
	"reflect"
	"strings"
	"testing"
	"time"

	"github.com/commercekit/commerce"
)

// priceInputs decodes prices as the transport does (a JSON null is a nil
// element).
func priceInputs(t *testing.T, raw ...string) []*PriceInput {
	t.Helper()
	out := make([]*PriceInput, len(raw))
	for i, r := range raw {
		dec := json.NewDecoder(strings.NewReader(r))
		dec.DisallowUnknownFields()
		if err := dec.Decode(&out[i]); err != nil {
			t.Fatalf("price %s: %v", r, err)
		}
	}
	return out
}

func TestParsePrices(t *testing.T) {
	day := func(s string) *time.Time {
		v, err := time.Parse(time.RFC3339Nano, s)
		if err != nil {
			t.Fatal(err)
		}
		return &v
	}
	tests := []struct {
		name     string
		in       []string
		want     []Price // IDs ignored when empty
		wantCode string
		wantData string // JSON, when wantCode is set and data is checked
	}{
		{name: "integer USD", in: []string{`{"amount": 749, "currency": "USD"}`},
			want: []Price{{Amount: 74900, Currency: "USD"}}},
		{name: "two decimals", in: []string{`{"amount": 577.65, "currency": "USD", "id": "p1"}`},
			want: []Price{{ID: "p1", Amount: 57765, Currency: "USD"}}},
		{name: "trailing zeros are not decimals", in: []string{`{"amount": 10.500, "currency": "USD"}`},
			want: []Price{{Amount: 1050, Currency: "USD"}}},
		{name: "JPY has no minor unit", in: []string{`{"amount": 1200, "currency": "JPY"}`},
			want: []Price{{Amount: 1200, Currency: "JPY"}}},
		{name: "JOD has three", in: []string{`{"amount": 1.234, "currency": "JOD"}`},
			want: []Price{{Amount: 1234, Currency: "JOD"}}},
		{name: "zero is allowed", in: []string{`{"amount": 0, "currency": "EUR"}`},
			want: []Price{{Amount: 0, Currency: "EUR"}}},
		{name: "restrictions", in: []string{`{"amount": 1, "currency": "EUR", "country": "ES", "customerType": "VIP", "channel": "WEB"}`},
			want: []Price{{Amount: 100, Currency: "EUR", Country: "ES", CustomerType: "VIP", Channel: "WEB"}}},
		{name: "plain dates", in: []string{`{"amount": 1, "currency": "EUR", "validFrom": "2017-01-01", "validUntil": "2017-01-31"}`},
			want: []Price{{Amount: 100, Currency: "EUR", ValidFrom: day("2017-01-01T00:00:00Z"), ValidUntil: day("2017-01-31T23:59:59.999Z")}}},
		{name: "date-times with offsets", in: []string{`{"amount": 1, "currency": "EUR", "validFrom": "2017-01-01T10:00:00+02:00", "validUntil": "2017-01-01T10:00:00+02:00"}`},
			want: []Price{{Amount: 100, Currency: "EUR", ValidFrom: day("2017-01-01T08:00:00Z"), ValidUntil: day("2017-01-01T08:00:00Z")}}},

		{name: "negative", in: []string{`{"amount": -1, "currency": "USD"}`},
			wantCode: commerce.EPriceInvalid, wantData: `{"amount": -1, "currency": "USD"}`},
		{name: "too many decimals", in: []string{`{"amount": 1.005, "currency": "USD"}`},
			wantCode: commerce.EPriceInvalid, wantData: `{"amount": 1.005, "currency": "USD"}`},
		{name: "decimals on JPY", in: []string{`{"amount": 1.5, "currency": "JPY"}`},
			wantCode: commerce.EPriceInvalid},
		{name: "too large", in: []string{`{"amount": 1e30, "currency": "USD"}`},
			wantCode: commerce.EPriceInvalid},
		{name: "above the largest amount", in: []string{`{"amount": 100000000000.01, "currency": "USD"}`},
			wantCode: commerce.EPriceInvalid},
		{name: "the largest amount", in: []string{`{"amount": 100000000000, "currency": "USD"}`},
			want: []Price{{Amount: 10_000_000_000_000, Currency: "USD"}}},
		{name: "amount as string", in: []string{`{"amount": "7", "currency": "USD"}`},
			wantCode: commerce.EValidation, wantData: `["prices[0].amount: must be a number"]`},
		{name: "amount as boolean", in: []string{`{"amount": true, "currency": "USD"}`},
			wantCode: commerce.EValidation, wantData: `["prices[0].amount: must be a number"]`},
		{name: "amount as object", in: []string{`{"amount": {"value": 1}, "currency": "USD"}`},
			wantCode: commerce.EValidation, wantData: `["prices[0].amount: must be a number"]`},
		{name: "amount null", in: []string{`{"amount": null, "currency": "USD"}`},
			wantCode: commerce.EValidation, wantData: `["prices[0].amount: required"]`},
		{name: "amount missing", in: []string{`{"currency": "USD"}`},
			wantCode: commerce.EValidation, wantData: `["prices[0].amount: required"]`},
		{name: "currency missing", in: []string{`{"amount": 1}`},
			wantCode: commerce.EValidation, wantData: `["prices[0].currency: required"]`},
		{name: "unknown currency", in: []string{`{"amount": 1, "currency": "ABC"}`},
			wantCode: commerce.EPriceCurrencyInvalid, wantData: `"ABC"`},
		{name: "lower-case currency", in: []string{`{"amount": 1, "currency": "usd"}`},
			wantCode: commerce.EPriceCurrencyInvalid, wantData: `"usd"`},
		{name: "unknown country", in: []string{`{"amount": 1, "currency": "USD", "country": "ZZ"}`},
			wantCode: commerce.EPriceCountryInvalid, wantData: `"ZZ"`},
		{name: "lower-case country", in: []string{`{"amount": 1, "currency": "USD", "country": "us"}`},
			wantCode: commerce.EPriceCountryInvalid, wantData: `"us"`},
		{name: "unknown customer type", in: []string{`{"amount": 1, "currency": "USD", "customerType": "GOLD"}`},
			wantCode: commerce.EValidation, wantData: `["prices[0].customerType: must be one of VIP, B2B, B2C"]`},
		{name: "until before from", in: []string{`{"amount": 1, "currency": "USD", "validFrom": "2017-02-01", "validUntil": "2017-01-01"}`},
			wantCode: commerce.EPriceValidDates, wantData: `{"validFrom": "2017-02-01", "validUntil": "2017-01-01"}`},
		{name: "from alone", in: []string{`{"amount": 1, "currency": "USD", "validFrom": "2017-02-01"}`},
			wantCode: commerce.EPriceValidDates, wantData: `{"validFrom": "2017-02-01", "validUntil": null}`},
		{name: "until alone", in: []string{`{"amount": 1, "currency": "USD", "validUntil": "2017-02-01"}`},
			wantCode: commerce.EPriceValidDates},
		{name: "unparsable date", in: []string{`{"amount": 1, "currency": "USD", "validFrom": "yesterday", "validUntil": "2017-02-01"}`},
			wantCode: commerce.EPriceValidDates},
		{name: "date-time without offset", in: []string{`{"amount": 1, "currency": "USD", "validFrom": "2017-01-01T10:00:00", "validUntil": "2017-02-01"}`},
			wantCode: commerce.EPriceValidDates},
		{name: "date as number", in: []string{`{"amount": 1, "currency": "USD", "validFrom": 20170101, "validUntil": "2017-02-01"}`},
			wantCode: commerce.EPriceValidDates, wantData: `{"validFrom": 20170101, "validUntil": "2017-02-01"}`},
		{name: "date null", in: []string{`{"amount": 1, "currency": "USD", "validFrom": null, "validUntil": "2017-02-01"}`},
			wantCode: commerce.EPriceValidDates, wantData: `{"validFrom": null, "validUntil": "2017-02-01"}`},
		{name: "null element", in: []string{`null`},
			wantCode: commerce.EValidation, wantData: `["prices[0]: must be an object"]`},
		{name: "duplicate ids", in: []string{`{"id": "a", "amount": 1, "currency": "USD"}`, `{"id": "a", "amount": 2, "currency": "USD"}`},
			wantCode: commerce.EValidation, wantData: `["prices[1].id: duplicate price id \"a\""]`},
		{name: "the price as given", in: []string{`{"id": "", "amount": 1e30, "currency": "USD", "country": "", "channel": "WEB", "validFrom": {"x": [1]}}`},
			wantCode: commerce.EPriceInvalid, wantData: `{"id": "", "amount": 1e30, "currency": "USD", "country": "", "channel": "WEB", "validFrom": {"x": [1]}}`},
		{name: "second price checked", in: []string{`{"amount": 1, "currency": "USD"}`, `{"amount": -2, "currency": "USD"}`},
			wantCode: commerce.EPriceInvalid, wantData: `{"amount": -2, "currency": "USD"}`},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			got, err := parsePrices(priceInputs(t, tc.in...))
			if tc.wantCode != "" {
				if code := commerce.ErrorCode(err); code != tc.wantCode {
					t.Fatalf("got error %v (%s), want %s", err, code, tc.wantCode)
				}
				if tc.wantData != "" {
					jsonEqual(t, commerce.ErrorData(err), tc.wantData)
				}
				return
			}
			if err != nil {
				t.Fatalf("got error %v, want none", err)
			}
			for i := range got {
				if got[i].ID == "" {
					t.Errorf("price %d has no id", i)
				}
				if tc.want[i].ID == "" {
					tc.want[i].ID = got[i].ID
				}
			}
			if !reflect.DeepEqual(got, tc.want) {
				t.Errorf("got %+v, want %+v", got, tc.want)
			}
		})
	}
}

func jsonEqual(t *testing.T, got any, want string) {
	t.Helper()
	b, err := json.Marshal(got)
	if err != nil {
		t.Fatal(err)
	}
	var g, w any
	if err := json.Unmarshal(b, &g); err != nil {
		t.Fatal(err)
	}
	if err := json.Unmarshal([]byte(want), &w); err != nil {
		t.Fatal(err)
	}
	if !reflect.DeepEqual(g, w) {
		t.Errorf("got %s, want %s", b, want)
	}
}

func TestPriceJSON(t *testing.T) {
	from := time.Date(2017, 1, 1, 0, 0, 0, 0, time.UTC)
	until := from.Add(24*time.Hour - time.Millisecond)
	tests := []struct {
		name  string
		price Price
		want  string
	}{
		{"USD", Price{ID: "a", Amount: 57765, Currency: "USD"}, `{"id":"a","amount":577.65,"currency":"USD"}`},
		{"whole", Price{ID: "a", Amount: 74900, Currency: "USD"}, `{"id":"a","amount":749,"currency":"USD"}`},
		{"JPY", Price{ID: "a", Amount: 1200, Currency: "JPY"}, `{"id":"a","amount":1200,"currency":"JPY"}`},
		{"JOD", Price{ID: "a", Amount: 1005, Currency: "JOD"}, `{"id":"a","amount":1.005,"currency":"JOD"}`},
		{"all", Price{ID: "a", Amount: 1, Currency: "EUR", Country: "ES", CustomerType: "VIP", Channel: "WEB", ValidFrom: &from, ValidUntil: &until},
			`{"id":"a","amount":0.01,"currency":"EUR","country":"ES","customerType":"VIP","channel":"WEB","validFrom":"2017-01-01T00:00:00Z","validUntil":"2017-01-01T23:59:59.999Z"}`},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			b, err := json.Marshal(tc.price)
			if err != nil {
				t.Fatal(err)
			}
			if string(b) != tc.want {
				t.Fatalf("got %s, want %s", b, tc.want)
			}
		})
	}
}

func TestNormalizeClassifications(t *testing.T) {
	defs := []ClassificationDef{
		{ID: "energy", Type: TypeString, Mandatory: true},
		{ID: "frost", Type: TypeBoolean},
		{ID: "width", Type: TypeNumber},
	}
	v := func(id, raw string) ClassificationValue {
		c := ClassificationValue{ID: id}
		if raw != "" {
			if err := json.Unmarshal([]byte(raw), &c.Value); err != nil {
				t.Fatal(err)
			}
		}
		return c
	}
	tests := []struct {
		name     string
		in       []ClassificationValue
		want     string // JSON of the result
		wantCode string
		wantData string
	}{
		{name: "strings converted", in: []ClassificationValue{v("energy", `"A+"`), v("frost", `"true"`), v("width", `"59.5"`)},
			want: `[{"id":"energy","value":"A+"},{"id":"frost","value":true},{"id":"width","value":59.5}]`},
		{name: "native types kept", in: []ClassificationValue{v("width", `60`), v("energy", `"A"`), v("frost", `false`)},
			want: `[{"id":"width","value":60},{"id":"energy","value":"A"},{"id":"frost","value":false}]`},
		{name: "boolean string any case", in: []ClassificationValue{v("energy", `"A"`), v("frost", `"FALSE"`)},
			want: `[{"id":"energy","value":"A"},{"id":"frost","value":false}]`},
		{name: "number for a STRING becomes text", in: []ClassificationValue{v("energy", `233`)},
			want: `[{"id":"energy","value":"233"}]`},
		{name: "optional empty is absent", in: []ClassificationValue{v("energy", `"A"`), v("width", `""`), v("frost", `null`)},
			want: `[{"id":"energy","value":"A"}]`},
		{name: "negative and exponent numbers", in: []ClassificationValue{v("energy", `"A"`), v("width", `"-1.5e2"`)},
			want: `[{"id":"energy","value":"A"},{"id":"width","value":-1.5e2}]`},

		{name: "mandatory missing", in: []ClassificationValue{v("width", `1`)},
			wantCode: commerce.EMissingClassification, wantData: `"energy"`},
		{name: "mandatory empty string", in: []ClassificationValue{v("energy", `""`)},
			wantCode: commerce.EEmptyClassificationValue, wantData: `"energy"`},
		{name: "mandatory blank string", in: []ClassificationValue{v("energy", `"  "`)},
			wantCode: commerce.EEmptyClassificationValue, wantData: `"energy"`},
		{name: "mandatory null", in: []ClassificationValue{v("energy", `null`)},
			wantCode: commerce.EEmptyClassificationValue, wantData: `"energy"`},
		{name: "mandatory without value", in: []ClassificationValue{v("energy", ``)},
			wantCode: commerce.EEmptyClassificationValue, wantData: `"energy"`},
		{name: "not a boolean", in: []ClassificationValue{v("energy", `"A"`), v("frost", `"yes"`)},
			wantCode: commerce.EClassificationValueNotBoolean, wantData: `"frost"`},
		{name: "number is not a boolean", in: []ClassificationValue{v("energy", `"A"`), v("frost", `1`)},
			wantCode: commerce.EClassificationValueNotBoolean, wantData: `"frost"`},
		{name: "not a number", in: []ClassificationValue{v("energy", `"A"`), v("width", `"wide"`)},
			wantCode: commerce.EClassificationValueNotNumber, wantData: `"width"`},
		{name: "hex is not a number", in: []ClassificationValue{v("energy", `"A"`), v("width", `"0x10"`)},
			wantCode: commerce.EClassificationValueNotNumber, wantData: `"width"`},
		{name: "boolean is not a number", in: []ClassificationValue{v("energy", `"A"`), v("width", `true`)},
			wantCode: commerce.EClassificationValueNotNumber, wantData: `"width"`},
		{name: "unknown id", in: []ClassificationValue{v("energy", `"A"`), v("weight", `1`)},
			wantCode: commerce.EValidation},
		{name: "object for a STRING", in: []ClassificationValue{v("energy", `{"a":1}`)},
			wantCode: commerce.EValidation, wantData: `["classifications[0].value: must be a string"]`},
		{name: "list for a NUMBER", in: []ClassificationValue{v("energy", `"A"`), v("width", `[1]`)},
			wantCode: commerce.EClassificationValueNotNumber, wantData: `"width"`},
		{name: "boolean for a STRING becomes text", in: []ClassificationValue{v("energy", `false`)},
			want: `[{"id":"energy","value":"false"}]`},
		{name: "number given as text keeps its digits", in: []ClassificationValue{v("energy", `"A"`), v("width", `" 0.10 "`)},
			want: `[{"id":"energy","value":"A"},{"id":"width","value":0.10}]`},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			got, err := normalizeClassifications(tc.in, defs)
			if tc.wantCode != "" {
				if code := commerce.ErrorCode(err); code != tc.wantCode {
					t.Fatalf("got error %v (%s), want %s", err, code, tc.wantCode)
				}
				if tc.wantData != "" {
					jsonEqual(t, commerce.ErrorData(err), tc.wantData)
				}
				return
			}
			if err != nil {
				t.Fatalf("got error %v, want none", err)
			}
			jsonEqual(t, got, tc.want)
		})
	}
}

func TestEffectiveDefs(t *testing.T) {
	cats := map[string]*Category{
		"ROOT": {ID: "ROOT", Path: "ROOT"},
		"A":    {ID: "A", Path: "ROOT.A", Classifications: []ClassificationDef{{ID: "voltage", Type: TypeNumber, Mandatory: true}, {ID: "color", Type: TypeString}}},
		"B":    {ID: "B", Path: "ROOT.A.B", Classifications: []ClassificationDef{{ID: "energy", Type: TypeString}}},
		"C":    {ID: "C", Path: "ROOT.C", Classifications: []ClassificationDef{{ID: "color", Type: TypeNumber, Mandatory: true}}},
	}
	tests := []struct {
		name       string
		categories []string
		want       []ClassificationDef
	}{
		{"own and ancestors, nearest first", []string{"B"}, []ClassificationDef{
			{ID: "energy", Type: TypeString}, {ID: "voltage", Type: TypeNumber, Mandatory: true}, {ID: "color", Type: TypeString}}},
		{"first category wins the type, mandatory if any", []string{"B", "C"}, []ClassificationDef{
			{ID: "energy", Type: TypeString}, {ID: "voltage", Type: TypeNumber, Mandatory: true}, {ID: "color", Type: TypeString, Mandatory: true}}},
		{"no definitions", []string{"ROOT"}, nil},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			if got := effectiveDefs(tc.categories, cats); !reflect.DeepEqual(got, tc.want) {
				t.Errorf("got %+v, want %+v", got, tc.want)
			}
		})
	}
}

func TestCheckProduct(t *testing.T) {
	valid := func() *Product {
		return &Product{SKU: "S", Status: StatusOnline, Title: "T", TaxCode: "default", Categories: []string{"c"}}
	}
	tests := []struct {
		name   string
		change func(p *Product)
		ok     bool
	}{
		{"valid", func(p *Product) {}, true},
		{"variant without categories", func(p *Product) { p.Categories = []string{}; p.Base = "b"; p.Variations = []Variation{} }, true},
		{"blank sku", func(p *Product) { p.SKU = " " }, false},
		{"lower-case status", func(p *Product) { p.Status = "online" }, false},
		{"blank title", func(p *Product) { p.Title = "" }, false},
		{"stock status 3", func(p *Product) { p.StockStatus = 3 }, false},
		{"stock status -1", func(p *Product) { p.StockStatus = -1 }, false},
		{"blank tax code", func(p *Product) { p.TaxCode = "" }, false},
		{"no categories", func(p *Product) { p.Categories = nil }, false},
		{"empty categories", func(p *Product) { p.Categories = []string{} }, false},
		{"duplicate category", func(p *Product) { p.Categories = []string{"c", "c"} }, false},
		{"blank category", func(p *Product) { p.Categories = []string{""} }, false},
		{"media without url", func(p *Product) { p.Medias = []Media{{ID: "m"}} }, false},
		{"duplicate media", func(p *Product) { p.Medias = []Media{{ID: "m", URL: "u"}, {ID: "m", URL: "v"}} }, false},
		{"duplicate classification", func(p *Product) {
			p.Classifications = []ClassificationValue{{ID: "a"}, {ID: "a"}}
		}, false},
		{"blank modifier", func(p *Product) { p.Modifiers = []string{"size", ""} }, false},
		{"duplicate modifier", func(p *Product) { p.Modifiers = []string{"size", "size"} }, false},
		{"duplicate variation", func(p *Product) { p.Variations = []Variation{{ID: "s", Value: "1"}, {ID: "s", Value: "2"}} }, false},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			p := valid()
			tc.change(p)
			err := checkProduct(p)
			if tc.ok && err != nil {
				t.Fatalf("got %v, want no error", err)
			}
			if !tc.ok && commerce.ErrorCode(err) != commerce.EValidation {
				t.Fatalf("got %v, want validation_error", err)
			}
		})
	}
}

func TestProductJSONVariants(t *testing.T) {
	tests := []struct {
		name string
		p    Product
		has  bool
	}{
		{"not a base: no variants key", Product{ID: "a"}, false},
		{"base without variants: empty list", Product{ID: "a", Modifiers: []string{"s"}, Variants: []string{}}, true},
		{"base with variants", Product{ID: "a", Modifiers: []string{"s"}, Variants: []string{"v"}}, true},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			b, err := json.Marshal(tc.p)
			if err != nil {
				t.Fatal(err)
			}
			var m map[string]json.RawMessage
			if err := json.Unmarshal(b, &m); err != nil {
				t.Fatal(err)
			}
			if _, ok := m["variants"]; ok != tc.has {
				t.Fatalf("variants present %v, want %v: %s", ok, tc.has, b)
			}
			var back Product
			if err := json.Unmarshal(b, &back); err != nil {
				t.Fatal(err)
			}
			if back.ID != tc.p.ID || !reflect.DeepEqual(back.Modifiers, tc.p.Modifiers) {
				t.Errorf("round trip: got %+v, want %+v", back, tc.p)
			}
		})
	}
}
