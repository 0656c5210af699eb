package promotion_test

import (
	"encoding/json"
	"net/url"
	"strings"
	"testing"

	"github.com/commercekit/commerce/sqldb"
	"github.com/commercekit/commerce/testkit/apitest"
	"github.com/commercekit/commerce/testkit/testdb"
)

// couponPromo is a promotion with its coupon fields, as a client reads it.
type couponPromo struct {
	ID                    string  `json:"id"`
	Code                  *string `json:"code"`
	StartDate             *string `json:"startDate"`
	EndDate               *string `json:"endDate"`
	UsageLimit            *int    `json:"usageLimit"`
	UsageLimitPerCustomer *int    `json:"usageLimitPerCustomer"`
	UsageCount            *int    `json:"usageCount"`
}

const (
	pIf   = `{"product":{"id":"p1","quantity":1}}`
	pThen = `{"product":{"id":"p1","quantity":1,"discount":{"rate":10,"isPercentage":true}}}`
)

func TestCouponFields(t *testing.T) {
	testdb.Each(t, func(t *testing.T, db *sqldb.DB) {
		srv := apitest.New(t, db)
		b := body("Summer", 1, pIf, pThen)
		b["code"], b["startDate"], b["endDate"] = "Summer-10", "2026-06-01T00:00:00+02:00", "2026-09-01T00:00:00Z"
		b["usageLimit"], b["usageLimitPerCustomer"] = 100, 1
		var p couponPromo
		srv.Post(t, "/promotion/v2/promotion.create", srv.Admin, b).Must(t).Decode(t, "promotion", &p)
		if p.Code == nil || *p.Code != "Summer-10" || *p.StartDate != "2026-05-31T22:00:00Z" || *p.EndDate != "2026-09-01T00:00:00Z" ||
			*p.UsageLimit != 100 || *p.UsageLimitPerCustomer != 1 || p.UsageCount == nil || *p.UsageCount != 0 {
			t.Fatalf("got %s, want the coupon fields as given (dates in UTC) and usageCount 0", show(p))
		}
		var info couponPromo
		srv.Get(t, "/promotion/v1/promotion.info?id="+p.ID, srv.API).Must(t).Decode(t, "promotion", &info)
		if show(info) != show(p) {
			t.Errorf("info: got %s, want %s", show(info), show(p))
		}

		// Unique, case-insensitively.
		d := body("Dup", 1, pIf, pThen)
		d["code"] = "SUMMER-10"
		r := srv.Post(t, "/promotion/v2/promotion.create", srv.Admin, d).Expect(t, 409, "duplicate_key")
		if string(r.Data) != `{"code":"SUMMER-10","index":"code"}` {
			t.Errorf("got data %s, want {index: code, code}", r.Data)
		}
		other := create(t, srv, body("Other", 2, pIf, pThen))
		srv.Post(t, "/promotion/v1/promotion.update", srv.Admin, map[string]any{"id": other.ID, "code": "summer-10"}).Expect(t, 409, "duplicate_key")

		// Bad values: validation_error naming each, nothing stored.
		bad := body("Bad", 1, pIf, pThen)
		bad["code"], bad["startDate"], bad["usageLimit"], bad["usageLimitPerCustomer"] = " x", "2026-13-01", 0, -1
		r = srv.Post(t, "/promotion/v2/promotion.create", srv.Admin, bad).Expect(t, 400, "validation_error")
		for _, f := range []string{"code:", "startDate:", "usageLimit:", "usageLimitPerCustomer:"} {
			if !strings.Contains(string(r.Data), f) {
				t.Errorf("got %s, want a problem naming %s", r.Data, f)
			}
		}
		order := body("Order", 1, pIf, pThen)
		order["startDate"], order["endDate"] = "2026-02-01T00:00:00Z", "2026-01-01T00:00:00Z"
		srv.Post(t, "/promotion/v2/promotion.create", srv.Admin, order).Expect(t, 400, "validation_error")
		srv.Post(t, "/promotion/v1/promotion.update", srv.Admin, map[string]any{"id": p.ID, "endDate": "2026-05-01T00:00:00Z"}).Expect(t, 400, "validation_error")

		// Update: a new code, a new limit; list by code.
		var up couponPromo
		srv.Post(t, "/promotion/v1/promotion.update", srv.Admin, map[string]any{"id": other.ID, "code": "Winter", "usageLimit": 5}).
			Must(t).Decode(t, "promotion", &up)
		if *up.Code != "Winter" || *up.UsageLimit != 5 {
			t.Errorf("update: got %s", show(up))
		}
		var list []couponPromo
		srv.Get(t, "/promotion/v1/promotion.list?code=WINTER", srv.API).Must(t).Decode(t, "data", &list)
		if len(list) != 1 || list[0].ID != other.ID || list[0].Code == nil || *list[0].Code != "Winter" ||
			list[0].UsageLimit == nil || *list[0].UsageLimit != 5 || list[0].UsageCount == nil || *list[0].UsageCount != 0 {
			t.Errorf("list by code: got %s, want the Winter promotion with its coupon fields and usageCount", show(list))
		}
		srv.Get(t, "/promotion/v1/promotion.list?code=summer-10", srv.API).Must(t).Decode(t, "data", &list)
		if len(list) != 1 || list[0].ID != p.ID || show(list[0]) != show(p) {
			t.Errorf("list by code: got %s, want %s", show(list), show(p))
		}
		srv.Get(t, "/promotion/v1/promotion.list?code=nope", srv.API).Must(t).Decode(t, "data", &list)
		if len(list) != 0 {
			t.Errorf("list by an unknown code: got %s, want nothing", show(list))
		}
		// A code alone is admin-only to change, as every update.
		srv.Post(t, "/promotion/v1/promotion.update", srv.API, map[string]any{"id": other.ID, "code": "Mine"}).Expect(t, 403, "forbidden")
	})
}

func TestCartPromotionsCoupons(t *testing.T) {
	testdb.Each(t, func(t *testing.T, db *sqldb.DB) {
		srv := apitest.New(t, db)
		b := body("Coded", 1, pIf, pThen)
		b["code"] = "TEN"
		p := create(t, srv, b)
		items := []map[string]any{{"id": "e1", "productId": "p1", "quantity": 1, "price": 100}}
		var without, with []json.RawMessage
		srv.Post(t, "/promotion/v1/promotion.cartPromotions", srv.API, map[string]any{"cartId": "c", "items": items}).Must(t).Decode(t, "itemDiscounts", &without)
		srv.Post(t, "/promotion/v1/promotion.cartPromotions", srv.API, map[string]any{"cartId": "c", "items": items, "coupons": "x,ten"}).Must(t).Decode(t, "itemDiscounts", &with)
		if len(without) != 0 || len(with) != 1 || !strings.Contains(string(with[0]), p.ID) {
			t.Errorf("got %s without the code and %s with it, want nothing then the coded promotion", without, with)
		}
		srv.Post(t, "/promotion/v1/promotion.cartPromotions", srv.API, map[string]any{"cartId": "c", "items": items, "coupons": []string{"a", "b", "c", "d", "e", "f"}}).
			Expect(t, 400, "validation_error")
	})
}

// Coupon codes are compared in Unicode NFC (promotion.CodeKey): a code
// created precomposed is found and applied when typed decomposed, and the
// same code in the other form is a duplicate, on create and on update.
func TestCouponCodeNFD(t *testing.T) {
	const nfc, nfd = "\u00c9T\u00c9-10", "E\u0301TE\u0301-10" // ÉTÉ-10 both ways
	testdb.Each(t, func(t *testing.T, db *sqldb.DB) {
		srv := apitest.New(t, db)
		b := body("Summer", 1, pIf, pThen)
		b["code"] = nfc
		p := create(t, srv, b)

		var list []couponPromo
		srv.Get(t, "/promotion/v1/promotion.list?code="+url.QueryEscape(nfd), srv.API).Must(t).Decode(t, "data", &list)
		if len(list) != 1 || list[0].ID != p.ID || list[0].Code == nil || *list[0].Code != nfc {
			t.Errorf("list by the decomposed code: got %s, want the promotion with its code as created", show(list))
		}
		items := []map[string]any{{"id": "e1", "productId": "p1", "quantity": 1, "price": 100}}
		var with []json.RawMessage
		srv.Post(t, "/promotion/v1/promotion.cartPromotions", srv.API, map[string]any{"cartId": "c", "items": items, "coupons": nfd}).
			Must(t).Decode(t, "itemDiscounts", &with)
		if len(with) != 1 || !strings.Contains(string(with[0]), p.ID) {
			t.Errorf("coupon typed decomposed: got %s, want the coded promotion applied", with)
		}

		d := body("Dup", 1, pIf, pThen)
		d["code"] = strings.ToLower(nfd)
		srv.Post(t, "/promotion/v2/promotion.create", srv.Admin, d).Expect(t, 409, "duplicate_key")
		other := create(t, srv, body("Other", 2, pIf, pThen))
		srv.Post(t, "/promotion/v1/promotion.update", srv.Admin, map[string]any{"id": other.ID, "code": nfd}).Expect(t, 409, "duplicate_key")
		srv.Get(t, "/promotion/v1/promotion.list?code="+url.QueryEscape(nfc), srv.API).Must(t).Decode(t, "data", &list)
		if len(list) != 1 || list[0].ID != p.ID {
			t.Errorf("after the refused duplicates: got %s, want the first promotion alone", show(list))
		}
	})
}
