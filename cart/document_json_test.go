package cart

import (
	"bytes"
	"encoding/json"
	"math/rand/v2"
	"testing"
	"time"

	"github.com/commercekit/commerce/payment"
)

// docFields is Cart as encoding/json writes it by reflection.
type docFields Cart

// TestDocumentJSON: the hand-written stored form of a cart is byte for
// byte what encoding/json writes of it, for random carts (the strings
// and amounts of TestViewJSON), with every optional part present or not:
// addresses, billing same as shipping, the shipping method and its
// discount and taxes, coupons, fired promotions, almost fulfilled ones,
// a payment, an order, a price id, times with and without fractions.
// And the cart read back writes as encoding/json writes it too.
func TestDocumentJSON(t *testing.T) {
	r := rand.New(rand.NewPCG(5, 6))
	for i := range 800 {
		c := randomCart(r)
		c.CreatedAt, c.UpdatedAt = c.ExpirationTime.Add(-time.Hour), c.ExpirationTime.Add(-time.Duration(r.Int64N(1e12)))
		if r.IntN(3) == 0 {
			c.Fired = []string{oddStrings[r.IntN(len(oddStrings))], "p2"}
		}
		if r.IntN(3) == 0 {
			c.ShippingTaxes = &EntryTaxes{BeforeTax: 100, Tax: 21, TaxDetail: oddStrings[r.IntN(len(oddStrings))]}
			if r.IntN(2) == 0 {
				c.ShippingTaxes.Lines = []TaxLine{{BeforeTax: 100, Tax: 21, TaxDetail: "IVA"}}
			}
		}
		if r.IntN(4) == 0 {
			c.Payment = &payment.Record{PaymentID: "stripe", Authorization: oddStrings[r.IntN(len(oddStrings))], Amount: 1234, Currency: "USD", Precision: 2, Data: json.RawMessage(`{"card": "tok"}`)}
		}
		if r.IntN(5) == 0 {
			c.Items = nil
		}
		for _, e := range c.Items {
			if r.IntN(2) == 0 {
				e.PriceID, e.TaxCode, e.IsNetPrice, e.StockStatus = "price1", oddStrings[r.IntN(len(oddStrings))], true, 2
			}
		}
		got, err := c.Document()
		if err != nil {
			t.Fatal(err)
		}
		want, err := json.Marshal((*docFields)(c))
		if err != nil {
			t.Fatal(err)
		}
		if !bytes.Equal(got, want) {
			t.Fatalf("cart %d:\n got %s\nwant %s", i, got, want)
		}
		var back Cart
		if err := json.Unmarshal(got, &back); err != nil {
			t.Fatalf("cart %d does not read back: %v", i, err)
		}
		// Read back (invalid UTF-8 is then U+FFFD), it writes as
		// encoding/json writes it again.
		again, err := back.Document()
		if want, _ := json.Marshal((*docFields)(&back)); err != nil || !bytes.Equal(again, want) {
			t.Fatalf("cart %d read back and written again:\n got %s\nwant %s", i, again, want)
		}
	}
	// A time encoding/json refuses is refused too.
	if _, err := (&Cart{CreatedAt: time.Date(10000, 1, 1, 0, 0, 0, 0, time.UTC)}).Document(); err == nil {
		t.Error("a year past 9999 was written")
	}
}

// BenchmarkDocument: the stored form of a cart of 20 entries, by hand and
// by encoding/json's reflection.
//
//	go test ./cart -run '^$' -bench Document -benchmem
func BenchmarkDocument(b *testing.B) {
	c := benchViewCart()
	b.Run("by hand", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			if _, err := c.Document(); err != nil {
				b.Fatal(err)
			}
		}
	})
	b.Run("encoding/json", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			if _, err := json.Marshal((*docFields)(c)); err != nil {
				b.Fatal(err)
			}
		}
	})
}
