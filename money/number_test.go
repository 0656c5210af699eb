package money

import (
	"encoding/json"
	"testing"
)

func TestNumber(t *testing.T) {
	tests := []struct {
		name, literal string
		want          Decimal
		problem       string
	}{
		{"integer", `21`, Decimal{21, 0}, ""},
		{"decimal", `10.50`, Decimal{105, 1}, ""},
		{"exponent", `1e2`, Decimal{100, 0}, ""},
		{"negative", `-0.01`, Decimal{-1, 2}, ""},
		{"spaces", ` 5 `, Decimal{5, 0}, ""},
		{"a string holding a number", `"21"`, Decimal{}, "must be a number"},
		{"a boolean", `true`, Decimal{}, "must be a number"},
		{"an object", `{"amount":1}`, Decimal{}, "must be a number"},
		{"a list", `[1]`, Decimal{}, "must be a number"},
		{"too many digits", `99999999999999999999`, Decimal{}, "too large or too precise"},
		{"too precise", `1.0000000000000000001`, Decimal{}, "too large or too precise"},
		{"exponent out of range", `1e99`, Decimal{}, "too large or too precise"},
		{"not JSON", `1x`, Decimal{}, "must be a number"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			n := NewNumber(tc.literal)
			if json.Valid([]byte(tc.literal)) {
				var dec Number
				if err := json.Unmarshal([]byte(tc.literal), &dec); err != nil || dec != n {
					t.Fatalf("decoding: got %+v, %v; want %+v (it never fails)", dec, err, n)
				}
			}
			if got := n.Check(); got != tc.problem {
				t.Errorf("Check: got %q, want %q", got, tc.problem)
			}
			d, err := n.Decimal()
			switch {
			case tc.problem == "" && (err != nil || d != tc.want):
				t.Errorf("Decimal: got %v, %v; want %v", d, err, tc.want)
			case tc.problem != "" && (err == nil || err.Error() != tc.problem):
				t.Errorf("Decimal: got %v, %v; want the problem %q", d, err, tc.problem)
			}
		})
	}
}

// TestNumberField: in a struct, null leaves a *Number nil (absent), and
// the number marshals as it was given.
func TestNumberField(t *testing.T) {
	var in struct {
		Rate  *Number `json:"rate"`
		Price *Number `json:"price"`
	}
	if err := json.Unmarshal([]byte(`{"rate": 21.50, "price": null}`), &in); err != nil {
		t.Fatal(err)
	}
	if in.Price != nil || in.Rate == nil {
		t.Fatalf("got rate %v, price %v; want a rate and no price", in.Rate, in.Price)
	}
	b, err := json.Marshal(in)
	if err != nil || string(b) != `{"rate":21.50,"price":null}` {
		t.Errorf("got %s, %v; want the rate as given", b, err)
	}
	if b, _ := json.Marshal(Number{}); string(b) != "0" {
		t.Errorf("zero Number: got %s, want 0", b)
	}
}

func TestNumberNonNegative(t *testing.T) {
	num := func(s string) *Number { n := NewNumber(s); return &n }
	for _, tc := range []struct {
		name    string
		n       *Number
		want    Decimal
		problem string
	}{
		{"absent", nil, Decimal{}, "required"},
		{"zero", num("0"), Decimal{}, ""},
		{"positive", num("9.90"), Decimal{99, 1}, ""},
		{"negative", num("-0.01"), Decimal{}, "must not be negative"},
		{"not a number", num(`"5"`), Decimal{}, "must be a number"},
	} {
		if d, problem := tc.n.NonNegative(); d != tc.want || problem != tc.problem {
			t.Errorf("%s: got %v, %q; want %v, %q", tc.name, d, problem, tc.want, tc.problem)
		}
	}
}
