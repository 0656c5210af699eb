package admin_test

import (
	"net/http"
	"net/url"
	"strings"
	"testing"

	"github.com/commercekit/commerce/sqldb"
	"github.com/commercekit/commerce/testkit/testdb"
)

// promotionRecord is what the clearing tests read of a promotion.
type promotionRecord struct {
	Title                 string  `json:"title"`
	Code                  *string `json:"code"`
	StartDate             *string `json:"startDate"`
	EndDate               *string `json:"endDate"`
	UsageLimit            *int    `json:"usageLimit"`
	UsageLimitPerCustomer *int    `json:"usageLimitPerCustomer"`
}

// TestEditFormsClearOptionalFields: an emptied field of an edit form is
// cleared where the API can clear it (a promotion's code, a webhook's
// types: every type again), and refused with a validation_error that
// changes nothing where it cannot (a promotion's dates and usage limits),
// rather than kept without a word.
func TestEditFormsClearOptionalFields(t *testing.T) {
	testdb.Each(t, func(t *testing.T, db *sqldb.DB) {
		e := newEnv(t, db)
		b := e.browser(t)
		b.mustSignIn()
		rule := map[string]any{"product": map[string]any{"id": "p1", "quantity": 1}}
		then := map[string]any{"product": map[string]any{"id": "p1", "quantity": 1, "discount": map[string]any{"rate": 10, "isPercentage": true}}}
		var pr struct{ ID string }
		e.Post(t, "/promotion/v1/promotion.create", e.Admin, map[string]any{"title": "Coupon", "class": "default", "active": true, "priority": 0,
			"if": rule, "then": then, "code": "SAVE10", "startDate": "2030-01-01T00:00:00Z", "endDate": "2030-02-01T00:00:00Z",
			"usageLimit": 10, "usageLimitPerCustomer": 1}).Must(t).Decode(t, "promotion", &pr)
		info := func() promotionRecord {
			var p promotionRecord
			e.Get(t, "/promotion/v1/promotion.info?id="+pr.ID, e.Admin).Must(t).Decode(t, "promotion", &p)
			return p
		}
		path := "/admin/promotions/" + pr.ID
		page := b.get(path)
		for _, k := range []string{"startDate", "endDate", "usageLimit", "usageLimitPerCustomer"} {
			if !strings.Contains(page.Body, `name="stored" value="`+k+`"`) {
				t.Errorf("the edit form does not say the promotion has %s", k)
			}
		}
		form := url.Values{"csrf": {b.csrf(path)}, "title": {"Coupon"}, "priority": {"0"}, "active": {"on"},
			"if": {`{"product": {"id": "p1", "quantity": 1}}`}, "then": {`{"product": {"id": "p1", "quantity": 1, "discount": {"rate": 10, "isPercentage": true}}}`},
			"code": {"SAVE10"}, "startDate": {"2030-01-01T00:00"}, "endDate": {"2030-02-01T00:00"}, "usageLimit": {"10"}, "usageLimitPerCustomer": {"1"},
			"stored": {"startDate", "endDate", "usageLimit", "usageLimitPerCustomer"}}

		// The code emptied: removed.
		form.Set("code", "")
		if got := b.post(path, form); got.Status != http.StatusSeeOther {
			t.Fatalf("save without the code: %d\n%s", got.Status, got.Body)
		}
		if p := info(); p.Code != nil || p.StartDate == nil || p.UsageLimit == nil || *p.UsageLimit != 10 {
			t.Fatalf("after emptying the code: code %v, startDate %v, usageLimit %v; want no code and the rest kept", p.Code, p.StartDate, p.UsageLimit)
		}

		// A date or a limit emptied: refused, nothing changes (not even the
		// title changed with it), and the form keeps what was typed.
		for _, k := range []string{"startDate", "endDate", "usageLimit", "usageLimitPerCustomer"} {
			f := url.Values{}
			for fk, v := range form {
				f[fk] = v
			}
			f.Set("title", "Renamed")
			f.Set(k, "")
			got := b.post(path, f)
			if got.Status != http.StatusBadRequest || !strings.Contains(got.Body, `data-code="validation_error"`) ||
				!strings.Contains(got.Body, `<p class="field-error" id="`+k+`-error">Cannot be removed`) {
				t.Errorf("emptying %s: %d, want 400 validation_error naming it\n%s", k, got.Status, got.Body)
			}
			if !strings.Contains(got.Body, `value="Renamed"`) {
				t.Errorf("emptying %s: the form lost the title typed", k)
			}
		}
		if p := info(); p.Title != "Coupon" || p.StartDate == nil || p.EndDate == nil || p.UsageLimit == nil || p.UsageLimitPerCustomer == nil {
			t.Errorf("a refused form changed the promotion: %+v", p)
		}

		// A webhook's types emptied: every type again.
		var wh struct{ ID string }
		e.Post(t, "/event/v1/webhook.create", e.Admin, map[string]any{"url": "http://127.0.0.1:9/hook", "channels": []string{"ORDERS"},
			"types": []string{"CREATE", "CANCEL"}}).Must(t).Decode(t, "webhook", &wh)
		whPath := "/admin/webhooks/" + wh.ID
		if page := b.get(whPath); !strings.Contains(page.Body, `value="CREATE,CANCEL"`) {
			t.Fatalf("the webhook's form does not show its types\n%s", page.Body)
		}
		got := b.post(whPath, url.Values{"csrf": {b.csrf(whPath)}, "url": {"http://127.0.0.1:9/hook"}, "channels": {"ORDERS"}, "types": {""}, "active": {"on"}})
		if got.Status != http.StatusSeeOther {
			t.Fatalf("save the webhook with no types: %d\n%s", got.Status, got.Body)
		}
		var after struct {
			Types []string `json:"types"`
		}
		e.Get(t, "/event/v1/webhook.info?id="+wh.ID, e.Admin).Must(t).Decode(t, "webhook", &after)
		if len(after.Types) != 0 {
			t.Errorf("the webhook's types after emptying them: %q, want none (every type)", after.Types)
		}
	})
}
