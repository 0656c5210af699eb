package promotion_test

import (
	"context"
	"encoding/json"
	"maps"
	"slices"
	"testing"

	"github.com/commercekit/commerce"
	"github.com/commercekit/commerce/promotion"
	"github.com/commercekit/commerce/sqldb"
	"github.com/commercekit/commerce/testkit/testdb"
)

// FuzzCartPromotions feeds arbitrary request bodies to cartPromotions: it
// never panics, fails only with validation_error, and what it accepts is
// sound (discounts within prices, money objects exactly {amount, currency,
// precision}).
func FuzzCartPromotions(f *testing.F) {
	for _, seed := range []string{
		`{"cartId":"c","items":[{"id":"a","productId":"p1","quantity":2,"price":10.5}]}`,
		`{"cartId":"c","currency":"JPY","items":[{"id":"a","productId":"p2","price":1000}]}`,
		`{"cartId":"c","items":[{"id":"a","productId":"p1","price":{"amount":1050,"currency":"USD","precision":2}},{"id":"b","productId":"p2","quantity":3,"price":{"amount":99,"currency":"USD","precision":2}}]}`,
		`{"cartId":"c","items":[{"id":"a","productId":"p1","price":{ "amount" : 1 , "currency" : "U\u0053D" , "precision" : 2 }}]}`,
		`{"cartId":"c","items":[{"id":"a","productId":"p1","price":{"amount":1,"curr\u0065ncy":"USD","precision":2,"x":{"y":[1,"}"]}}}]}`,
		`{"cartId":"c","items":[{"id":"a","productId":"p1","price":{"amount":1e2,"currency":"JOD","precision":3}}]}`,
		`{"cartId":"c","items":[{"id":"a","productId":"p1","price":{}}]}`,
		`{"cartId":"c","items":[{"id":"a","productId":"p1","price":"10"},{"id":"a","productId":"","price":-1}]}`,
		`{"cartId":"c","items":[{"id":"a","productId":"p1","quantity":100,"price":1e-2}]}`,
	} {
		f.Add([]byte(seed))
	}
	svc := promotion.NewService(sqldb.NewPromotionStore(testdb.SQLite(f)), mapCatalog{"p1": {"c"}, "p2": {"c", "ROOT"}}, nil)
	productPromo(f, svc, "pp", "p1")
	createPromo(f, svc, "pc", true, `{"category":{"id":"c","quantity":2,"lowestPrice":true}}`, `{"category":{"id":"c","quantity":1,"discount":{"rate":50,"isPercentage":true}}}`)
	ctx := context.Background()

	f.Fuzz(func(t *testing.T, body []byte) {
		var req promotion.CartInput
		var raw struct {
			Items []struct{ Price json.RawMessage }
		}
		if json.Unmarshal(body, &req) != nil || json.Unmarshal(body, &raw) != nil {
			return // the transport rejects it before the service
		}
		res, err := svc.CartPromotions(ctx, req)
		if err != nil {
			if commerce.ErrorCode(err) != commerce.EValidation {
				t.Fatalf("got error %v, want validation_error or success", err)
			}
			return
		}
		if _, err := json.Marshal(res); err != nil {
			t.Fatalf("result does not marshal: %v", err)
		}
		for _, it := range raw.Items {
			if len(it.Price) > 0 && it.Price[0] == '{' {
				var m map[string]json.RawMessage
				if err := json.Unmarshal(it.Price, &m); err != nil {
					t.Fatalf("accepted price %s that is not an object: %v", it.Price, err)
				}
				if keys := slices.Sorted(maps.Keys(m)); !slices.Equal(keys, []string{"amount", "currency", "precision"}) {
					t.Fatalf("accepted price %s with keys %v", it.Price, keys)
				}
			}
		}
		for _, it := range res.ItemDiscounts {
			for _, d := range it.Discounts {
				if d.Quantity < 1 || d.Discount.Amount <= 0 || d.Discount.Amount > d.Price.Amount {
					t.Fatalf("unsound discount %+v", d)
				}
			}
		}
	})
}
