package cart_test

import (
	"context"
	"encoding/json"
	"fmt"
	"testing"

	"github.com/commercekit/commerce"
	"github.com/commercekit/commerce/cart"
	"github.com/commercekit/commerce/sqldb"
	"github.com/commercekit/commerce/testkit/testdb"
)

// BenchmarkCart measures addToCart and calculateCart through the service
// (in-process, no HTTP) over SQLite, and PostgreSQL when
// COMMERCE_TEST_POSTGRES_URL is set, on a cart of 20 entries with 100
// active promotions: every product of the cart is named by 4 product
// promotions, and 20 category promotions cover them all.
//
//	go test ./cart -run '^$' -bench Cart -benchmem
func BenchmarkCart(b *testing.B) {
	b.Run("sqlite", func(b *testing.B) { benchmarkCart(b, testdb.SQLite(b)) })
	b.Run("postgres", func(b *testing.B) { benchmarkCart(b, testdb.Postgres(b)) })
}

func benchmarkCart(b *testing.B, db *sqldb.DB) {
	s := newShop(b, db)
	products := make([]string, 20)
	for i := range products {
		products[i] = s.product(fmt.Sprintf("B%02d", i), map[string]any{
			"prices": []map[string]any{{"amount": json.Number(fmt.Sprintf("%d.99", 100+10*i)), "currency": "USD"}}})
		s.stock(products[i], "W1", 1_000_000_000)
	}
	for i := range 100 {
		var rule map[string]any
		if i < 80 {
			rule = map[string]any{"product": map[string]any{"id": products[i%20], "quantity": 2 + i%4}}
		} else {
			rule = map[string]any{"category": map[string]any{"id": s.category, "quantity": 3 + i%20, "lowestPrice": i%2 == 0}}
		}
		then := map[string]any{"category": map[string]any{"id": s.category, "quantity": 1, "discount": map[string]any{"rate": 1 + i%10, "isPercentage": true}}}
		s.Post(b, "/promotion/v2/promotion.create", s.Admin, map[string]any{
			"title": fmt.Sprintf("promo %d", i), "class": "default", "active": true, "priority": i, "if": rule, "then": then,
		}).Must(b)
	}
	svc := s.App.Cart
	ctx := commerce.WithClaims(context.Background(), commerce.Claims{Subject: "bench", Scopes: []string{commerce.ScopeAPI}})
	one := int64(1)
	fresh := func() string {
		c, err := svc.Create(ctx, cart.CreateInput{})
		if err != nil {
			b.Fatal(err)
		}
		items := make([]cart.AddItem, len(products))
		for i, p := range products {
			items[i] = cart.AddItem{ProductID: p, Quantity: &one, WarehouseID: "W1"}
		}
		if _, err := svc.AddToCart(ctx, cart.AddInput{CartID: c.ID, Items: items}); err != nil {
			b.Fatal(err)
		}
		return c.ID
	}

	b.Run("addToCart", func(b *testing.B) {
		id := fresh()
		b.ReportAllocs()
		b.ResetTimer()
		for i := range b.N {
			if i > 0 && i%(20*5) == 0 { // a fresh cart every 5 adds per entry
				b.StopTimer()
				id = fresh()
				b.StartTimer()
			}
			p := products[i%len(products)]
			if _, err := svc.AddToCart(ctx, cart.AddInput{CartID: id, Items: []cart.AddItem{{ProductID: p, Quantity: &one, WarehouseID: "W1"}}}); err != nil {
				b.Fatal(err)
			}
		}
	})
	b.Run("calculateCart", func(b *testing.B) {
		id := fresh()
		c, err := svc.CalculateCart(ctx, cart.CartInput{CartID: id})
		if err != nil {
			b.Fatal(err)
		}
		if len(c.Items) != 20 || len(cart.Render(c, cart.CalculateForm).Promotions.FulfilledPromos) == 0 {
			b.Fatalf("got %d entries and no promotion fired, want 20 entries and promotions", len(c.Items))
		}
		b.ReportAllocs()
		b.ResetTimer()
		for range b.N {
			if _, err := svc.CalculateCart(ctx, cart.CartInput{CartID: id}); err != nil {
				b.Fatal(err)
			}
		}
	})
}
