package admin_test

import (
	"go/ast"
	"go/parser"
	"go/token"
	"strconv"
	"testing"

	"github.com/commercekit/commerce/admin"
)

// TestEveryErrorCodeHasASentence: each error code of error.go (every code
// the admin app can meet) has a sentence in the one table of them
// (admin/errortext.go): staff never see a code. A code added to error.go
// gets its sentence there.
func TestEveryErrorCodeHasASentence(t *testing.T) {
	f, err := parser.ParseFile(token.NewFileSet(), "../error.go", nil, 0)
	if err != nil {
		t.Fatal(err)
	}
	n := 0
	for _, d := range f.Decls {
		g, ok := d.(*ast.GenDecl)
		if !ok || g.Tok != token.CONST {
			continue
		}
		for _, s := range g.Specs {
			for _, v := range s.(*ast.ValueSpec).Values {
				lit, ok := v.(*ast.BasicLit)
				if !ok || lit.Kind != token.STRING {
					continue
				}
				code, _ := strconv.Unquote(lit.Value)
				n++
				if !admin.HasSentence(code) {
					t.Errorf("error code %q has no sentence in admin/errortext.go's errorSentences", code)
				}
			}
		}
	}
	if n < 60 {
		t.Fatalf("found %d codes in error.go: the file's shape changed?", n)
	}
}

// TestErrorSentences: the sentences read the error's data: money in major
// units with its currency, counts, names.
func TestErrorSentences(t *testing.T) {
	for _, tc := range []struct{ code, data, want string }{
		{"refund_exceeds_captured", `{"available":{"amount":274730,"currency":"USD","precision":2}}`, "You can refund at most 2,747.30 USD."},
		{"refund_exceeds_captured", `{"available":{"amount":1234567,"currency":"JPY","precision":0}}`, "You can refund at most 1,234,567 JPY."},
		{"refund_exceeds_captured", `{"available":{"amount":5,"currency":"JOD","precision":3}}`, "You can refund at most 0.005 JOD."},
		{"invalid_credentials", ``, "That email and password do not match an account."},
		{"too_many_attempts", `{"retryAfter":61}`, "Too many failed sign-ins for this email. Try again in 2 minutes."},
		{"price_invalid", `{"amount":12.345,"currency":"USD"}`, "The price 12.345 USD is not valid: USD amounts have at most 2 decimals."},
		{"max_categories_per_product_reached", `5`, "A product can be in at most 5 categories."},
		{"duplicate_key", `{"index":"sku","sku":"FR-1"}`, "Another product already has the SKU “FR-1”."},
		{"duplicate_key", `{"index":"taxes_code_idx"}`, "Something with this code or name already exists: choose another."},
		{"not_enough_stock", `{"productId":"p","warehouseId":"W1","requestedQuantity":5,"availableQuantity":1}`, "Only 1 unit available in the warehouse “W1” (5 asked for)."},
		{"invalid_order_state", `{"status":"CANCELLED","paymentStatus":"VOIDED","fulfillmentStatus":"NOT_SHIPPED"}`,
			"The order cannot do this now: it is cancelled, its payment voided and its fulfilment not shipped. Reload the page to see what it allows."},
		{"category_not_found", ``, "A category chosen no longer exists."},
		{"price_currency_invalid", `"XYZ"`, "“XYZ” is not a currency code: use an ISO 4217 code such as USD or EUR."},
		{"payment_failed", `{"provider":"stripe","code":"card_declined","message":"Your card was declined."}`, "The payment provider refused: Your card was declined."},
		{"a_code_with_no_sentence_yet", ``, "A code with no sentence yet."},
	} {
		if got := admin.ErrorSentence(tc.code, tc.data); got != tc.want {
			t.Errorf("%s %s: %q, want %q", tc.code, tc.data, got, tc.want)
		}
	}
}

// TestProblemsInWords: a validation problem is shown next to its field in
// words: a regular expression's parser error as a sentence about what was
// typed (without the (?i) the service adds), a path no field stands for
// in words.
func TestProblemsInWords(t *testing.T) {
	for _, tc := range []struct{ in, want string }{
		{"title: must be a valid regular expression (RE2 syntax): error parsing regexp: missing closing ): `(?i)(fridge`",
			"Title: is not a valid pattern: an opening bracket “(” is never closed (at “(fridge”)"},
		{"title: must be a valid regular expression (RE2 syntax): error parsing regexp: invalid nested repetition operator: `**`",
			"Title: is not a valid pattern: two repetition operators follow each other (such as “**”) (at “**”)"},
		{"items[2].quantity: must be a positive integer", "Items › 3 › quantity: must be a positive integer"},
		{"a text argument holds a NUL byte", ": a text argument holds a NUL byte"},
	} {
		if got := admin.Readable(tc.in); got != tc.want {
			t.Errorf("%q:\n got %q\nwant %q", tc.in, got, tc.want)
		}
	}
}
