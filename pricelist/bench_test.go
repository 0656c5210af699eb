package pricelist_test

import (
	"context"
	"fmt"
	"net/http"
	"testing"
	"time"

	"github.com/commercekit/commerce"
	cartpkg "github.com/commercekit/commerce/cart"
	"github.com/commercekit/commerce/pricelist"
	"github.com/commercekit/commerce/sqldb"
	"github.com/commercekit/commerce/testkit/testdb"
)

// BenchmarkPriceLists measures cart.addToCart (in-process, as
// BenchmarkCart) and product.info with a currency (over HTTP) on a
// catalog of 1,000 products, without price lists and with 1,000 ACTIVE
// price lists of 1,000 prices each (one per product: 1,000,000 prices).
// List i is for group G<i mod 100> with priority i; the shopper is in G0,
// so each product's prices are read past 99 lists of other groups before
// list 900 gives its price. BENCHMARKS.md has the figures.
//
//	go test ./pricelist -run '^$' -bench PriceLists -benchtime 2000x
func BenchmarkPriceLists(b *testing.B) {
	for _, lists := range []int{0, 1000} {
		b.Run(fmt.Sprintf("sqlite/lists=%d", lists), func(b *testing.B) { benchmarkPriceLists(b, testdb.SQLite(b), lists) })
		b.Run(fmt.Sprintf("postgres/lists=%d", lists), func(b *testing.B) { benchmarkPriceLists(b, testdb.Postgres(b), lists) })
	}
}

func benchmarkPriceLists(b *testing.B, db *sqldb.DB, lists int) {
	s := newShop(b, db)
	const nProducts = 1000
	products := make([]string, nProducts)
	for i := range products {
		products[i] = s.product(fmt.Sprintf("P%04d", i))
	}
	if lists > 0 {
		store := sqldb.NewPriceListStore(db)
		now := time.Now().UTC()
		for first := 0; first < lists; first += 50 {
			err := store.Update(context.Background(), func(tx pricelist.Tx) error {
				for i := first; i < min(first+50, lists); i++ {
					l := &pricelist.PriceList{ID: commerce.NewID(), Code: fmt.Sprintf("L%04d", i), Title: "list", Status: pricelist.StatusActive,
						Groups: []string{fmt.Sprintf("G%d", i%100)}, Currency: "USD", Priority: int64(i), CreatedAt: now, UpdatedAt: now,
						Prices: make([]pricelist.Price, nProducts)}
					for j, p := range products {
						l.Prices[j] = pricelist.Price{ProductID: p, Amount: int64(5000 + i), MinQuantity: 1}
					}
					if err := tx.Insert(context.Background(), l); err != nil {
						return err
					}
				}
				return nil
			})
			if err != nil {
				b.Fatal(err)
			}
		}
	}
	claims := commerce.Claims{Subject: "bench", Scopes: []string{commerce.ScopeAPI}, Groups: []string{"G0"}}
	ctx := commerce.WithClaims(context.Background(), claims)
	tok := s.Token(b, claims)
	// The price every benchmark gets: list 900's with the lists.
	want := "100"
	if lists > 0 {
		want = "59"
	}
	if got := s.infoPrice(tok, products[0], 1); got == nil || got.Amount.String() != want {
		b.Fatalf("price %+v, want %s", got, want)
	}

	svc := s.App.Cart
	one := int64(1)
	b.Run("addToCart", func(b *testing.B) {
		var id string
		b.ReportAllocs()
		b.ResetTimer()
		for i := range b.N {
			if i%100 == 0 { // a fresh cart every 100 adds, over 20 products
				b.StopTimer()
				c, err := svc.Create(ctx, cartpkg.CreateInput{})
				if err != nil {
					b.Fatal(err)
				}
				id = c.ID
				b.StartTimer()
			}
			p := products[(i%20)*50]
			if _, err := svc.AddToCart(ctx, cartpkg.AddInput{CartID: id, Items: []cartpkg.AddItem{{ProductID: p, Quantity: &one, WarehouseID: "W1"}}}); err != nil {
				b.Fatal(err)
			}
		}
	})
	b.Run("product.info", func(b *testing.B) {
		client := &http.Client{}
		b.ReportAllocs()
		b.ResetTimer()
		for i := range b.N {
			req, err := http.NewRequest(http.MethodGet, s.URL+"/catalog/v1/product.info?currency=USD&quantity=1&id="+products[i%nProducts], nil)
			if err != nil {
				b.Fatal(err)
			}
			req.Header.Set("Authorization", "Bearer "+tok)
			resp, err := client.Do(req)
			if err != nil {
				b.Fatal(err)
			}
			resp.Body.Close()
			if resp.StatusCode != http.StatusOK {
				b.Fatalf("status %d", resp.StatusCode)
			}
		}
	})
}
