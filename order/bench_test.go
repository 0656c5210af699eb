package order_test

import (
	"context"
	"encoding/json"
	"fmt"
	"os"
	"strconv"
	"testing"
	"time"

	"github.com/commercekit/commerce"
	"github.com/commercekit/commerce/cart"
	"github.com/commercekit/commerce/money"
	"github.com/commercekit/commerce/order"
	"github.com/commercekit/commerce/sqldb"
	"github.com/commercekit/commerce/testkit/testdb"
)

// BenchmarkCheckout compares cart.checkout (which now places the order:
// number allocation, authorisation, stock commit, order insert, two
// events) with an addToCart of one unit, through the services
// (in-process), on a cart of one product.
//
//	go test ./order -run '^$' -bench Checkout -benchtime 200x
func BenchmarkCheckout(b *testing.B) {
	for _, st := range testdb.Stores {
		b.Run(st.Name, func(b *testing.B) { benchmarkCheckout(b, st.Open(b)) })
	}
}

func benchmarkCheckout(b *testing.B, db *sqldb.DB) {
	s := newShop(b, db)
	p := s.product("B", "10.00", 1_000_000_000)
	svc := s.App.Cart
	ctx := commerce.WithClaims(context.Background(), commerce.Claims{Subject: "bench", Scopes: []string{commerce.ScopeAPI}})
	one := int64(1)
	fresh := func() string {
		c, err := svc.Create(ctx, cart.CreateInput{})
		if err != nil {
			b.Fatal(err)
		}
		if _, err := svc.AddToCart(ctx, cart.AddInput{CartID: c.ID, Items: []cart.AddItem{{ProductID: p, Quantity: &one, WarehouseID: "W1"}}}); err != nil {
			b.Fatal(err)
		}
		return c.ID
	}
	raw, _ := json.Marshal(address())
	var addr cart.AddressArg
	if err := json.Unmarshal(raw, &addr); err != nil {
		b.Fatal(err)
	}
	b.Run("addToCart", func(b *testing.B) {
		id := fresh()
		b.ReportAllocs()
		b.ResetTimer()
		for i := range b.N {
			if i > 0 && i%50 == 0 {
				b.StopTimer()
				id = fresh()
				b.StartTimer()
			}
			if _, err := svc.AddToCart(ctx, cart.AddInput{CartID: id, Items: []cart.AddItem{{ProductID: p, Quantity: &one, WarehouseID: "W1"}}}); err != nil {
				b.Fatal(err)
			}
		}
	})
	b.Run("checkout", func(b *testing.B) {
		ids := make([]string, b.N)
		for i := range ids {
			ids[i] = fresh()
		}
		b.ReportAllocs()
		b.ResetTimer()
		for _, id := range ids {
			_, o, err := svc.CheckoutOrder(ctx, cart.CheckoutInput{CartID: id, ShippingAddress: &addr, PaymentID: "manual", PaymentData: []byte(`{}`)})
			if err != nil || o == nil {
				b.Fatal(err)
			}
		}
	})
}

// BenchmarkOrderList measures order.list through the service over
// COMMERCE_BENCH_ORDERS orders (default 100,000) of 1,000 customers,
// inserted through the store: a customer's orders (about 100, first page
// of 10), and an admin filter by status (a tenth are CANCELLED; first
// page of 10, and a page 100 deep).
//
//	go test ./order -run '^$' -bench OrderList -benchtime 200x
func BenchmarkOrderList(b *testing.B) {
	n := 100_000
	if v, err := strconv.Atoi(os.Getenv("COMMERCE_BENCH_ORDERS")); err == nil && v > 0 {
		n = v
	}
	for _, st := range testdb.Stores {
		b.Run(st.Name, func(b *testing.B) { benchmarkOrderList(b, st.Open(b), n) })
	}
}

func benchmarkOrderList(b *testing.B, db *sqldb.DB, n int) {
	store := sqldb.NewOrderStore(db)
	ctx := context.Background()
	m := func(v int64) money.Money { return money.Money{Amount: v, Currency: "USD", Precision: 2} }
	t0 := time.Date(2026, 1, 1, 0, 0, 0, 0, time.UTC)
	for start := 0; start < n; start += 1000 {
		err := store.Update(ctx, func(tx order.Tx) error {
			for i := start; i < min(start+1000, n); i++ {
				status := order.StatusPlaced
				if i%10 == 0 {
					status = order.StatusCancelled
				}
				o := &order.Order{ID: commerce.NewID(), Number: strconv.Itoa(1001 + i), CartID: commerce.NewID(),
					CustomerID: fmt.Sprintf("c%d", i%1000), Status: status, PaymentStatus: order.PaymentAuthorized,
					FulfillmentStatus: order.NotShipped, Currency: "USD", Country: "US", Channel: "WEB", Coupons: []string{},
					Items: []*order.Item{{ID: "i1", ProductID: "p1", SKU: "SKU1", Title: "A product", Quantity: 1,
						UnitPrice: m(1000), Discount: m(0), Tax: m(174), Total: m(1000)}},
					Totals:       order.Totals{Items: m(1000), Discount: m(0), Shipping: m(500), Tax: m(260), Total: m(1500)},
					Payments:     []*order.Payment{{ID: "p", Provider: "manual", Status: order.PayAuthorized, Amount: m(1500), Reference: "r" + strconv.Itoa(i)}},
					Fulfillments: []*order.Fulfillment{}, Refunds: []*order.Refund{}, Version: 1,
					CreatedAt: t0.Add(time.Duration(i) * time.Second), UpdatedAt: t0}
				if err := tx.Insert(ctx, o); err != nil {
					return err
				}
			}
			return nil
		})
		if err != nil {
			b.Fatal(err)
		}
	}
	svc := order.NewService(store, nil, time.Now)
	admin := commerce.WithClaims(ctx, commerce.Claims{Subject: "a", Scopes: []string{commerce.ScopeAdmin}})
	customer := commerce.WithClaims(ctx, commerce.Claims{Subject: "c", Scopes: []string{commerce.ScopeAPI}, CustomerID: "c7"})
	skip := 1000
	for _, bc := range []struct {
		name string
		ctx  context.Context
		in   order.ListInput
	}{
		{"customer", customer, order.ListInput{}},
		{"admin-status", admin, order.ListInput{Status: commerce.StringList{order.StatusCancelled}}},
		{"admin-status-skip1000", admin, order.ListInput{Status: commerce.StringList{order.StatusCancelled}, PageArgs: commerce.PageArgs{Skip: &skip}}},
	} {
		b.Run(bc.name, func(b *testing.B) {
			b.ReportAllocs()
			for range b.N {
				l, err := svc.List(bc.ctx, bc.in)
				if err != nil || len(l.Data) != 10 {
					b.Fatalf("got %d orders, %v; want a page of 10", len(l.Data), err)
				}
			}
		})
	}
}
