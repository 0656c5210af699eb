package engine

import (
	"encoding/json"
	"os"
	"slices"
	"strings"
	"testing"

	"github.com/commercekit/commerce/testkit/sample"

	"github.com/commercekit/commerce"
)

func TestParseCanonical(t *testing.T) {
	tests := []struct {
		name             string
		ifJSON, thenJSON string
		wantIf, wantThen string // "" means the input is already canonical
	}{
		{name: "type 1 bundle", ifJSON: bundleIf, thenJSON: bundleThen},
		{name: "type 2 buy X get Y", ifJSON: b1g1If, thenJSON: b1g1Then},
		{name: "type 3 fixed price", ifJSON: fixedIf, thenJSON: fixedThen},
		{name: "type 4 multi-buy", ifJSON: multiIf, thenJSON: multiThen},
		{name: "type 5 perfect partner", ifJSON: partnerIf, thenJSON: partnerThen},
		{name: "type 6 one-to-one partner bundle", ifJSON: oneToOneIf, thenJSON: oneToOneTh},
		{name: "type 7 partner bundle", ifJSON: pbundleIf, thenJSON: pbundleThen},
		{name: "type 8 percentage", ifJSON: pctIf, thenJSON: pctThen},
		{name: "type 9 cheapest of 3", ifJSON: cheap3If, thenJSON: cheap3Then},
		{
			name:     "any and threshold",
			ifJSON:   `{"any":[{"product":{"id":"a","quantity":2,"threshold":0.25}},{"category":{"id":"c","quantity":1,"threshold":0}}]}`,
			thenJSON: `{"any":[{"product":{"id":"a","quantity":1,"discount":{"rate":0.99}}}]}`,
		},
		{
			name:     "nulls are absent, numbers normalised, false flags dropped",
			ifJSON:   ` {"category":{"quantity":2.0,"id":"c","threshold":null,"lowestPrice":false},"all":null} `,
			thenJSON: `{"category":{"id":"c","quantity":1e0,"discount":{"rate":10.50,"isPercentage":false,"isFixedPrice":true}}}`,
			wantIf:   `{"category":{"id":"c","quantity":2}}`,
			wantThen: `{"category":{"id":"c","quantity":1,"discount":{"rate":10.5,"isFixedPrice":true}}}`,
		},
		{
			name:     "nesting depth 8",
			ifJSON:   nest(8, `{"product":{"id":"a","quantity":1}}`),
			thenJSON: nest(8, `{"product":{"id":"a","quantity":1,"discount":{"rate":1}}}`),
		},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			r, err := Parse(json.RawMessage(tc.ifJSON), json.RawMessage(tc.thenJSON))
			if err != nil {
				t.Fatalf("got error %v, want none", err)
			}
			wantIf, wantThen := cmpOr(tc.wantIf, tc.ifJSON), cmpOr(tc.wantThen, tc.thenJSON)
			if got := show(r.If); got != wantIf {
				t.Errorf("if: got %s, want %s", got, wantIf)
			}
			if got := show(r.Then); got != wantThen {
				t.Errorf("then: got %s, want %s", got, wantThen)
			}
			// The stored form decodes back to the same rules.
			var back Rules
			if err := json.Unmarshal([]byte(show(r)), &back); err != nil || show(back) != show(r) {
				t.Errorf("round trip: got %s (%v), want %s", show(back), err, show(r))
			}
		})
	}
}

func cmpOr(a, b string) string {
	if a != "" {
		return a
	}
	return b
}

// nest wraps rule in `all` until it sits at the given depth.
func nest(depth int, rule string) string {
	for range depth - 1 {
		rule = `{"all":[` + rule + `]}`
	}
	return rule
}

func TestParseInvalid(t *testing.T) {
	const okIf = `{"category":{"id":"c","quantity":1}}`
	const okThen = `{"category":{"id":"c","quantity":1,"discount":{"rate":10}}}`
	thenDiscount := func(d string) string {
		return `{"category":{"id":"c","quantity":1,"discount":` + d + `}}`
	}
	tests := []struct {
		name             string
		ifJSON, thenJSON string
		wantPath         string // field path of the expected problem
	}{
		{"if missing", ``, okThen, "if"},
		{"if null", `null`, okThen, "if"},
		{"then missing", okIf, ``, "then"},
		{"if not an object", `[1]`, okThen, "if"},
		{"if empty", `{}`, okThen, "if"},
		{"if with two rules", `{"category":{"id":"c","quantity":1},"product":{"id":"p","quantity":1}}`, okThen, "if"},
		{"then with two rules", okIf, `{"all":[` + okThen + `],"any":[` + okThen + `]}`, "then"},
		{"all empty", `{"all":[]}`, okThen, "if.all"},
		{"any empty", okIf, `{"any":[]}`, "then.any"},
		{"any not an array", `{"any":{"category":{"id":"c","quantity":1}}}`, okThen, "if.any"},
		{"element not an object", `{"all":[1]}`, okThen, "if.all[0]"},
		{"element empty", `{"all":[` + okIf + `,{}]}`, okThen, "if.all[1]"},
		{"quantity zero", `{"category":{"id":"c","quantity":0}}`, okThen, "if.category.quantity"},
		{"quantity negative", `{"product":{"id":"p","quantity":-1}}`, okThen, "if.product.quantity"},
		{"quantity fractional", `{"product":{"id":"p","quantity":1.5}}`, okThen, "if.product.quantity"},
		{"quantity a string", `{"product":{"id":"p","quantity":"2"}}`, okThen, "if.product.quantity"},
		{"quantity too large", `{"product":{"id":"p","quantity":1e30}}`, okThen, "if.product.quantity"},
		{"quantity missing", `{"product":{"id":"p"}}`, okThen, "if.product.quantity"},
		{"quantity nested", `{"all":[` + okIf + `,{"product":{"id":"p","quantity":0}}]}`, okThen, "if.all[1].product.quantity"},
		{"then quantity", okIf, `{"category":{"id":"c","quantity":0,"discount":{"rate":1}}}`, "then.category.quantity"},
		{"id missing", `{"category":{"quantity":1}}`, okThen, "if.category.id"},
		{"id empty", `{"category":{"id":"","quantity":1}}`, okThen, "if.category.id"},
		{"id a number", `{"category":{"id":7,"quantity":1}}`, okThen, "if.category.id"},
		{"threshold above 1", `{"category":{"id":"c","quantity":2,"threshold":1.5}}`, okThen, "if.category.threshold"},
		{"threshold negative", `{"category":{"id":"c","quantity":2,"threshold":-0.1}}`, okThen, "if.category.threshold"},
		{"threshold a string", `{"category":{"id":"c","quantity":2,"threshold":"0.5"}}`, okThen, "if.category.threshold"},
		{"threshold in then", okIf, `{"category":{"id":"c","quantity":1,"threshold":0.5,"discount":{"rate":1}}}`, "then.category.threshold"},
		{"lowestPrice in then", okIf, `{"category":{"id":"c","quantity":1,"lowestPrice":true,"discount":{"rate":1}}}`, "then.category.lowestPrice"},
		{"lowestPrice not a boolean", `{"category":{"id":"c","quantity":1,"lowestPrice":"yes"}}`, okThen, "if.category.lowestPrice"},
		{"discount in if", `{"category":{"id":"c","quantity":1,"discount":{"rate":1}}}`, okThen, "if.category.discount"},
		{"discount missing in then", okIf, `{"product":{"id":"p","quantity":1}}`, "then.product.discount"},
		{"discount not an object", okIf, thenDiscount(`10`), "then.category.discount"},
		{"rate missing", okIf, thenDiscount(`{"isPercentage":true}`), "then.category.discount.rate"},
		{"rate negative", okIf, thenDiscount(`{"rate":-1}`), "then.category.discount.rate"},
		{"rate a string", okIf, thenDiscount(`{"rate":"10"}`), "then.category.discount.rate"},
		{"rate too large", okIf, thenDiscount(`{"rate":12345678901234567890}`), "then.category.discount.rate"},
		{"percentage above 100", okIf, thenDiscount(`{"rate":100.01,"isPercentage":true}`), "then.category.discount.rate"},
		{"percentage and fixed price", okIf, thenDiscount(`{"rate":10,"isPercentage":true,"isFixedPrice":true}`), "then.category.discount"},
		{"flag not a boolean", okIf, thenDiscount(`{"rate":10,"isFixedPrice":1}`), "then.category.discount.isFixedPrice"},
		{"isPercentaje typo", okIf, thenDiscount(`{"rate":10,"isPercentaje":true}`), "then.category.discount.isPercentaje"},
		{"unknown leaf property", `{"category":{"id":"c","qty":1,"quantity":1}}`, okThen, "if.category.qty"},
		{"unknown rule property", `{"categroy":{"id":"c","quantity":1}}`, okThen, "if.categroy"},
		{"unknown property beside a rule", okIf, `{"category":{"id":"c","quantity":1,"discount":{"rate":1}},"note":"x"}`, "then.note"},
		{"case matters", `{"Category":{"id":"c","quantity":1}}`, okThen, "if.Category"},
		{"nesting depth 9", nest(9, okIf), okThen, "if" + strings.Repeat(".all[0]", 8)},
		{"then nesting depth 9", okIf, nest(9, okThen), "then" + strings.Repeat(".all[0]", 8)},
		{"not JSON", `{"category":`, okThen, "if"},
	}
	for _, tc := range tests {
		t.Run(tc.name, func(t *testing.T) {
			_, err := Parse(json.RawMessage(tc.ifJSON), json.RawMessage(tc.thenJSON))
			if got := commerce.ErrorCode(err); got != commerce.EValidation {
				t.Fatalf("got code %q, want %q", got, commerce.EValidation)
			}
			problems, _ := commerce.ErrorData(err).([]string)
			var paths []string
			for _, p := range problems {
				path, _, _ := strings.Cut(p, ": ")
				paths = append(paths, path)
			}
			if !slices.Contains(paths, tc.wantPath) {
				t.Errorf("got problems %q, want one for %s", problems, tc.wantPath)
			}
		})
	}
}

// TestParseReportsEveryProblem checks that one call lists every problem.
func TestParseReportsEveryProblem(t *testing.T) {
	_, err := Parse(
		json.RawMessage(`{"all":[{"product":{"id":"","quantity":0}},{"category":{"id":"c","quantity":1,"threshold":2}}]}`),
		json.RawMessage(`{"category":{"id":"c","quantity":1,"discount":{"rate":101,"isPercentaje":true,"isPercentage":true}}}`))
	want := []string{
		"if.all[0].product.id: must be a non-empty string",
		"if.all[0].product.quantity: must be a positive integer",
		"if.all[1].category.threshold: must be a number between 0 and 1",
		"then.category.discount.isPercentaje: unknown property",
		"then.category.discount.rate: must be between 0 and 100 for a percentage",
	}
	if got := commerce.ErrorData(err); !slices.Equal(got.([]string), want) {
		t.Errorf("got %q, want %q", got, want)
	}
}

// TestParseSamplePromotion parses the promotion of the MicroBase sample
// data, whose `isPercentaje` (sic) must be rejected.
func TestParseSamplePromotion(t *testing.T) {
	b, err := os.ReadFile(sample.File(t, "dataPromotions.jsonl"))
	if err != nil {
		t.Fatal(err)
	}
	var p struct{ If, Then json.RawMessage }
	if err := json.Unmarshal(b, &p); err != nil {
		t.Fatal(err)
	}
	_, err = Parse(p.If, p.Then)
	if got := commerce.ErrorCode(err); got != commerce.EValidation {
		t.Errorf("got code %q, want %q", got, commerce.EValidation)
	}
	fixed := json.RawMessage(strings.ReplaceAll(string(p.Then), "isPercentaje", "isPercentage"))
	if _, err := Parse(p.If, fixed); err != nil {
		t.Errorf("corrected spelling: got %v, want no error", err)
	}
}
