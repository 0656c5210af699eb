package admin_test

import (
	"html"
	"net/http"
	"net/url"
	"regexp"
	"strings"
	"testing"

	"github.com/commercekit/commerce/admin"
	"github.com/commercekit/commerce/sqldb"
	"github.com/commercekit/commerce/testkit/testdb"
)

// TestBuildRule: the promotion rule builder writes the common rules
// (PROMOTION-EXAMPLES.md types 2, 3, 5, 8, 9 and free shipping).
func TestBuildRule(t *testing.T) {
	for _, tc := range []struct {
		name     string
		form     url.Values
		ifJ, thJ string
	}{
		{"20% off every camera", url.Values{"rb_if_kind": {"category"}, "rb_if_category": {"cams"}, "rb_if_qty": {"1"},
			"rb_then_kind": {"same"}, "rb_rate": {"20"}, "rb_type": {"percent"}},
			`{"category":{"id":"cams","quantity":1}}`, `{"category":{"id":"cams","quantity":1,"discount":{"rate":20,"isPercentage":true}}}`},
		{"buy 2 get 1 free", url.Values{"rb_if_kind": {"category"}, "rb_if_category": {"c1"}, "rb_if_qty": {"2"},
			"rb_then_kind": {"same"}, "rb_then_qty": {"1"}, "rb_rate": {"100"}, "rb_type": {"percent"}},
			`{"category":{"id":"c1","quantity":2}}`, `{"category":{"id":"c1","quantity":1,"discount":{"rate":100,"isPercentage":true}}}`},
		{"3 fridges, cheapest first, at 10 each", url.Values{"rb_if_kind": {"category"}, "rb_if_category": {"fr"}, "rb_if_qty": {"3"}, "rb_lowest": {"on"},
			"rb_then_kind": {"same"}, "rb_then_qty": {"3"}, "rb_rate": {"10"}, "rb_type": {"fixed"}},
			`{"category":{"id":"fr","quantity":3,"lowestPrice":true}}`, `{"category":{"id":"fr","quantity":3,"discount":{"rate":10,"isFixedPrice":true}}}`},
		{"a game for 10 off with a console", url.Values{"rb_if_kind": {"product"}, "rb_if_product": {"console"}, "rb_if_qty": {"1"},
			"rb_then_kind": {"category"}, "rb_then_category": {"games"}, "rb_then_qty": {"1"}, "rb_rate": {"10.5"}, "rb_type": {"amount"}},
			`{"product":{"id":"console","quantity":1}}`, `{"category":{"id":"games","quantity":1,"discount":{"rate":10.5}}}`},
		{"free shipping with a fridge", url.Values{"rb_if_kind": {"product"}, "rb_if_product": {"p1"}, "rb_if_qty": {"1"},
			"rb_then_kind": {"shipping"}, "rb_rate": {"100"}, "rb_type": {"percent"}},
			`{"product":{"id":"p1","quantity":1}}`, `{"shipping":{"discount":{"rate":100,"isPercentage":true}}}`},
		{"a quantity typed as text stays text for the check to refuse", url.Values{"rb_if_kind": {"product"}, "rb_if_product": {"p1"}, "rb_if_qty": {"two"},
			"rb_then_kind": {"same"}, "rb_rate": {"5"}, "rb_type": {"amount"}},
			`{"product":{"id":"p1","quantity":"two"}}`, `{"product":{"id":"p1","quantity":1,"discount":{"rate":5}}}`},
	} {
		ifJ, thJ := admin.BuildRule(tc.form)
		if c := compactJSON(t, ifJ); c != compactJSON(t, tc.ifJ) {
			t.Errorf("%s: if %s, want %s", tc.name, c, tc.ifJ)
		}
		if c := compactJSON(t, thJ); c != compactJSON(t, tc.thJ) {
			t.Errorf("%s: then %s, want %s", tc.name, c, tc.thJ)
		}
	}
}

// TestBuildRates: the shipping rate builder writes one group per place,
// with a rate per currency, amounts as typed.
func TestBuildRates(t *testing.T) {
	got := compactJSON(t, admin.BuildRates([4]string{"us", "", "usd", "5"}, [4]string{"US", "", "EUR", "4.5"},
		[4]string{"US", "HI", "USD", "25"}, [4]string{}, [4]string{"CA", "", "CAD", "x"}))
	want := `[{"locations":[{"country":"US"}],"rates":[{"amount":5,"currency":"USD"},{"amount":4.5,"currency":"EUR"}]},` +
		`{"locations":[{"country":"US","state":"HI"}],"rates":[{"amount":25,"currency":"USD"}]},` +
		`{"locations":[{"country":"CA"}],"rates":[{"amount":"x","currency":"CAD"}]}]`
	if got != compactJSON(t, want) {
		t.Errorf("rates:\n got %s\nwant %s", got, want)
	}
}

var textareaRE = regexp.MustCompile(`(?s)<textarea id="(if|then|rates)"[^>]*>(.*?)</textarea>`)

// textareas returns the JSON text areas of a page by id.
func textareas(body string) map[string]string {
	out := map[string]string{}
	for _, m := range textareaRE.FindAllStringSubmatch(body, -1) {
		out[m[1]] = html.UnescapeString(m[2])
	}
	return out
}

// TestPickersWriteJSON: the builders' buttons post the form, which comes
// back with the JSON written and nothing saved; a product is found by
// its title or its SKU (also as typed, by htmx); a promotion's page opens
// with its rule in the builder.
func TestPickersWriteJSON(t *testing.T) {
	testdb.Each(t, func(t *testing.T, db *sqldb.DB) {
		e := newEnv(t, db)
		b := e.browser(t)
		b.mustSignIn()
		lamp := e.storeFixture(t, "LAMP-7")
		cat := e.categoryID(t, "cat-lamp-7")
		csrf := b.csrf("/admin/promotions/new")

		form := url.Values{"csrf": {csrf}, "title": {"Typed"}, "priority": {"0"}, "class": {"default"}, "active": {"on"},
			"if": {"{}"}, "then": {"{}"}, "rb_if_kind": {"category"}, "rb_if_category": {cat}, "rb_if_qty": {"2"},
			"rb_then_kind": {"same"}, "rb_then_qty": {"1"}, "rb_rate": {"100"}, "rb_type": {"percent"}, "build": {"1"}}
		got := b.post("/admin/promotions/rule", form)
		ta := textareas(got.Body)
		if got.Status != http.StatusOK || compactJSON(t, ta["if"]) != compactJSON(t, `{"category":{"id":"`+cat+`","quantity":2}}`) ||
			compactJSON(t, ta["then"]) != compactJSON(t, `{"category":{"id":"`+cat+`","quantity":1,"discount":{"rate":100,"isPercentage":true}}}`) ||
			!strings.Contains(got.Body, `value="Typed"`) {
			t.Fatalf("write the rule: %d %v\n%s", got.Status, ta, got.Body)
		}
		if res := e.Get(t, "/promotion/v1/promotion.list", e.Admin).Must(t); strings.Contains(string(res.Raw), "Typed") {
			t.Error("writing the rule saved the promotion")
		}

		// Find, without JavaScript: by title words, and by SKU as typed.
		form.Del("build")
		form.Set("find", "rb_if")
		form.Set("rb_if_q", "product lamp")
		got = b.post("/admin/promotions/rule", form)
		if !strings.Contains(got.Body, `<option value="`+lamp+`">Product LAMP-7 (LAMP-7)</option>`) {
			t.Errorf("find by title: the product is not offered\n%s", got.Body)
		}
		got = b.get("/admin/pickers/products?for=rb_then&rb_then_q=LAMP-7")
		if got.Status != http.StatusOK || !strings.Contains(got.Body, `<select id="rb_then_product" name="rb_then_product">`) ||
			!strings.Contains(got.Body, `<option value="`+lamp+`">Product LAMP-7 (LAMP-7)</option>`) || strings.Contains(got.Body, "<html") {
			t.Errorf("search as typed by SKU: %d\n%s", got.Status, got.Body)
		}
		if got := b.get("/admin/pickers/products?for=%3Cb%3E"); got.Status != http.StatusNotFound {
			t.Errorf("a picker of a prefix that is no name: %d", got.Status)
		}
		// Staff only: no session, the sign-in page; no anti-forgery token, 403.
		stranger := e.browser(t)
		if got := stranger.get("/admin/pickers/products?for=rb_if&rb_if_q=LAMP"); got.Status != http.StatusSeeOther || !strings.HasPrefix(got.Location, "/admin/signin") {
			t.Errorf("the product picker without a session: %d %q", got.Status, got.Location)
		}
		for _, p := range []string{"/admin/promotions/rule", "/admin/shipping/rates"} {
			if got := stranger.post(p, url.Values{}); got.Status != http.StatusSeeOther {
				t.Errorf("POST %s without a session: %d", p, got.Status)
			}
			if got := b.post(p, url.Values{"build": {"1"}}); got.Status != http.StatusForbidden {
				t.Errorf("POST %s without the anti-forgery token: %d", p, got.Status)
			}
		}

		// A saved promotion opens with its rule in the builder.
		var pr struct{ ID string }
		e.Post(t, "/promotion/v1/promotion.create", e.Admin, map[string]any{"title": "P", "class": "default", "active": true, "priority": 0,
			"if":   map[string]any{"product": map[string]any{"id": lamp, "quantity": 3}},
			"then": map[string]any{"category": map[string]any{"id": cat, "quantity": 1, "discount": map[string]any{"rate": 5, "isFixedPrice": true}}}}).
			Must(t).Decode(t, "promotion", &pr)
		page := b.get("/admin/promotions/" + pr.ID).Body
		for _, want := range []string{`<option value="product" selected>the product below</option>`, `<option value="` + lamp + `" selected>Product LAMP-7 (LAMP-7)</option>`,
			`id="rb_if_qty" name="rb_if_qty" inputmode="numeric" value="3"`, `<option value="fixed" selected>`,
			`<option value="` + cat + `" title="Cat LAMP-7" selected>Cat LAMP-7</option>`} {
			if !strings.Contains(page, want) {
				t.Errorf("the promotion's builder lacks %s", want)
			}
		}

		// The shipping rates.
		got = b.post("/admin/shipping/rates", url.Values{"csrf": {csrf}, "title": {"Express"}, "rates": {"[]"},
			"sr_country": {"US", "ES", ""}, "sr_state": {"", "", ""}, "sr_currency": {"USD", "EUR", ""}, "sr_amount": {"12", "9.90", ""}})
		if c := compactJSON(t, textareas(got.Body)["rates"]); got.Status != http.StatusOK ||
			c != compactJSON(t, `[{"locations":[{"country":"US"}],"rates":[{"amount":12,"currency":"USD"}]},{"locations":[{"country":"ES"}],"rates":[{"amount":9.90,"currency":"EUR"}]}]`) {
			t.Errorf("write the rates: %d %s", got.Status, c)
		}
		if res := e.Get(t, "/cart/v1/shipping.list?title=Express", e.Admin).Must(t); strings.Contains(string(res.Raw), "Express") {
			t.Error("writing the rates saved the method")
		}
	})
}
