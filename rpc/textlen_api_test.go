package rpc_test

import (
	"slices"
	"strings"
	"testing"

	"github.com/commercekit/commerce"
	"github.com/commercekit/commerce/sqldb"
	"github.com/commercekit/commerce/testkit/apitest"
	"github.com/commercekit/commerce/testkit/testdb"
)

// TestFreeTextCapped (issue 27 defect 1): titles, names and the fields of
// an address hold at most commerce.MaxTitleLen characters, descriptions
// commerce.MaxTextLen, at create and update, on both stores: one more
// character is validation_error naming the field, and nothing is written.
// Characters count, not bytes.
func TestFreeTextCapped(t *testing.T) {
	testdb.Each(t, func(t *testing.T, db *sqldb.DB) {
		s := apitest.New(t, db)
		title, text := strings.Repeat("é", commerce.MaxTitleLen+1), strings.Repeat("d", commerce.MaxTextLen+1)
		var cat struct{ ID string }
		s.Post(t, "/catalog/v1/category.create", s.Admin, map[string]any{"title": "Fridges", "slug": "fridges"}).Must(t).Decode(t, "category", &cat)
		product := func(extra map[string]any) map[string]any {
			body := map[string]any{"sku": "S-1", "status": "ONLINE", "title": "Fridge", "categories": []string{cat.ID}, "stockStatus": 0}
			for k, v := range extra {
				body[k] = v
			}
			return body
		}
		// At the limits, in characters of two bytes each: accepted.
		var p struct{ ID, Title string }
		s.Post(t, "/catalog/v1/product.create", s.Admin, product(map[string]any{"title": title[2:], "brand": title[2:],
			"description": text[1:]})).Must(t).Decode(t, "product", &p)
		var c struct{ ID string }
		s.Post(t, "/cart/v1/cart.create", s.API, map[string]any{}).Must(t).Decode(t, "cart", &c)
		events := len(s.Get(t, "/event/v1/event.list?limit=1000", s.Admin).Must(t).Raw)

		address := map[string]any{"firstName": "Ada", "address_1": "1 Main St", "postCode": "96815", "city": title,
			"state": "HI", "country": "US", "instructions": title}
		for _, tc := range []struct {
			name, path, token string
			body              any
			want              []string
		}{
			{"product.create", "/catalog/v1/product.create", s.Admin,
				product(map[string]any{"sku": "S-2", "title": title, "brand": title, "description": text}),
				[]string{"title: must be at most 500 characters", "brand: must be at most 500 characters", "description: must be at most 20000 characters"}},
			{"product.update", "/catalog/v1/product.update", s.Admin, map[string]any{"id": p.ID, "title": title},
				[]string{"title: must be at most 500 characters"}},
			{"category.create", "/catalog/v1/category.create", s.Admin, map[string]any{"title": title, "slug": "long", "description": text},
				[]string{"title: must be at most 500 characters", "description: must be at most 20000 characters"}},
			{"category.update", "/catalog/v1/category.update", s.Admin, map[string]any{"id": cat.ID, "description": text},
				[]string{"description: must be at most 20000 characters"}},
			{"tax.create", "/tax/v1/tax.create", s.Admin, map[string]any{"code": "STD", "class": "default", "title": title, "description": text, "rate": 20},
				[]string{"title: must be at most 500 characters", "description: must be at most 20000 characters"}},
			{"shipping.create", "/cart/v1/shipping.create", s.Admin, map[string]any{"title": title,
				"rates": []any{map[string]any{"locations": []any{map[string]any{"country": "US"}}, "rates": []any{map[string]any{"currency": "USD", "amount": 5}}}}},
				[]string{"title: must be at most 500 characters"}},
			{"promotion.create", "/promotion/v1/promotion.create", s.Admin, map[string]any{"title": title, "class": "default", "active": true, "priority": 1,
				"if":   map[string]any{"product": map[string]any{"id": p.ID, "quantity": 1}},
				"then": map[string]any{"product": map[string]any{"id": p.ID, "quantity": 1, "discount": map[string]any{"rate": 10, "isPercentage": true}}}},
				[]string{"title: must be at most 500 characters"}},
			{"cart.setShippingAddress", "/cart/v1/cart.setShippingAddress", s.API, map[string]any{"cartId": c.ID, "shippingAddress": address},
				[]string{"shippingAddress.city: must be at most 500 characters", "shippingAddress.instructions: must be at most 500 characters"}},
			{"webhook.update", "/event/v1/webhook.update", s.Admin, map[string]any{"id": "w1", "description": text},
				[]string{"description: must be at most 20000 characters"}},
		} {
			t.Run(tc.name, func(t *testing.T) {
				r := s.Post(t, tc.path, tc.token, tc.body).Expect(t, 400, commerce.EValidation)
				var problems []string
				r.Decode(t, "data", &problems)
				for _, w := range tc.want {
					if !slices.Contains(problems, w) {
						t.Errorf("problems %q, want %q", problems, w)
					}
				}
			})
		}
		if n := len(s.Get(t, "/event/v1/event.list?limit=1000", s.Admin).Must(t).Raw); n != events {
			t.Errorf("the refused requests wrote events")
		}
		var got struct{ Title string }
		s.Get(t, "/catalog/v1/product.info?id="+p.ID, s.Admin).Must(t).Decode(t, "product", &got)
		if got.Title != title[2:] {
			t.Errorf("the product's title changed to %d bytes by a refused update", len(got.Title))
		}
	})
}
