package pricelist

import (
	"fmt"
	"testing"
	"time"

	"github.com/commercekit/commerce/catalog"
)

// BenchmarkSelect measures what price lists add to a cart line's pricing
// and to a product.info: the index look-up (ListPrices' work) and
// catalog.SelectPrice, with the index of BenchmarkPriceLists (1,000 lists
// of 1,000 prices, list i for group G<i mod 100>, priority i) and a
// shopper of G0, against the same selection without lists. Pure CPU, so
// it holds on a loaded machine where the end-to-end figures are noisy.
//
//	go test ./pricelist -run '^$' -bench Select
func BenchmarkSelect(b *testing.B) {
	const nProducts, nLists = 1000, 1000
	products := make([]string, nProducts)
	for i := range products {
		products[i] = fmt.Sprintf("P%04d", i)
	}
	lists := make([]PriceList, nLists)
	for i := range lists {
		l := PriceList{ID: fmt.Sprintf("L%04d", i), Status: StatusActive, Groups: []string{fmt.Sprintf("G%d", i%100)},
			Currency: "USD", Priority: int64(i), Seq: int64(i), Prices: make([]Price, nProducts)}
		for j, p := range products {
			l.Prices[j] = Price{ProductID: p, Amount: int64(5000 + i), MinQuantity: 1}
		}
		lists[i] = l
	}
	start := time.Now()
	idx := buildIndex(lists)
	b.Logf("index of %d prices built in %v", nProducts*nLists, time.Since(start))
	own := []catalog.Price{{ID: "own", Amount: 10000, Currency: "USD"}}
	sh := catalog.Shopper{Currency: "USD", Channel: "WEB", Country: "US", Tags: []string{"ANON"}, Groups: []string{"G0"}}
	now := time.Now()
	pick := func(i int) []catalog.ListPrice {
		pp := idx[products[i%nProducts]]
		ps := pp.open
		for _, g := range sh.Groups {
			ps = append(ps, pp.byGroup[g]...)
		}
		return ps
	}
	b.Run("lists=0", func(b *testing.B) {
		for i := range b.N {
			_ = products[i%nProducts]
			if _, ok := catalog.SelectPrice(own, nil, sh, 1, now); !ok {
				b.Fatal("no price")
			}
		}
	})
	b.Run("lists=1000", func(b *testing.B) {
		for i := range b.N {
			sel, ok := catalog.SelectPrice(own, pick(i), sh, 1, now)
			if !ok || sel.PriceListID != "L0900" {
				b.Fatalf("got %+v", sel)
			}
		}
	})
}
