package cart

import (
	"bytes"
	"encoding/json"
	"fmt"
	"math/rand/v2"
	"testing"
	"time"

	"github.com/commercekit/commerce/payment"
	"github.com/commercekit/commerce/promotion/engine"
	"github.com/commercekit/commerce/shipping"
	"github.com/commercekit/commerce/stock"
)

// viewFields is View without its MarshalJSON: what encoding/json writes
// of its fields.
type viewFields View

// TestViewJSON: the hand-written JSON of a View is byte for byte what
// encoding/json writes of its fields, for random carts in both forms:
// strings to escape (HTML, quotes, control characters, invalid UTF-8,
// U+2028), currencies of 0, 2 and 3 decimals, negative and large amounts,
// times with and without fractions, addresses, shipping methods with and
// without a discount, almost fulfilled promotions, nil lists.
func TestViewJSON(t *testing.T) {
	r := rand.New(rand.NewPCG(1, 2))
	for i := range 600 {
		c := randomCart(r)
		for _, f := range []Form{AddForm, CalculateForm} {
			v := Render(c, f)
			if i%7 == 0 {
				v.Coupons = nil
			}
			got, err := json.Marshal(v)
			if err != nil {
				t.Fatal(err)
			}
			want, err := json.Marshal(viewFields(v))
			if err != nil {
				t.Fatal(err)
			}
			if !bytes.Equal(got, want) {
				t.Fatalf("cart %d, form %d:\n got %s\nwant %s", i, f, got, want)
			}
			// Also as written, before encoding/json checks and compacts it
			// (it would escape HTML characters left raw).
			if direct, err := v.MarshalJSON(); err != nil || !bytes.Equal(direct, want) {
				t.Fatalf("cart %d, form %d: MarshalJSON\n got %s (%v)\nwant %s", i, f, direct, err, want)
			}
		}
	}
	// A time encoding/json refuses is refused too.
	v := Render(&Cart{ID: "x", Currency: "USD", ExpirationTime: time.Date(10000, 1, 1, 0, 0, 0, 0, time.UTC)}, CalculateForm)
	if _, err := json.Marshal(v); err == nil {
		t.Error("a year past 9999 was written")
	}
}

var oddStrings = []string{"", "plain", `"quoted"`, `back\slash`, "<b>&amp;</b>", "tab\there", "new\nline", "\x01ctl",
	"Frigorífico combi", "日本語", "line\u2028sep", "bad\xffutf8", "emoji 🧊"}

func randomCart(r *rand.Rand) *Cart {
	s := func() string { return oddStrings[r.IntN(len(oddStrings))] }
	amount := func() int64 {
		switch r.IntN(4) {
		case 0:
			return -r.Int64N(100000)
		case 1:
			return r.Int64N(10_000_000_000_000)
		}
		return r.Int64N(100000)
	}
	when := func() time.Time {
		t := time.Date(2026, 11, 26, 12, 0, 0, 0, time.UTC).Add(time.Duration(r.Int64N(1e15)))
		if r.IntN(2) == 0 {
			t = t.Truncate(time.Second)
		}
		return t
	}
	c := &Cart{ID: s(), CustomerID: s(), Status: StatusActive, Currency: []string{"USD", "JPY", "JOD", "EUR"}[r.IntN(4)],
		Country: s(), Channel: s(), ExpirationTime: when(), BeforeTax: amount(), Tax: amount(), OrderID: []string{"", "o1"}[r.IntN(2)]}
	for range r.IntN(6) {
		e := &Entry{ID: s(), ProductID: s(), Title: s(), Quantity: r.IntN(100), UnitPrice: amount()}
		for range r.IntN(3) {
			e.Discounts = append(e.Discounts, Discount{PromotionID: fmt.Sprint("p", r.IntN(3)), PromotionTitle: s(), Quantity: r.IntN(5), Price: amount(), Discount: amount()})
		}
		for range r.IntN(3) {
			e.Taxes.Lines = append(e.Taxes.Lines, TaxLine{BeforeTax: amount(), Tax: amount(), TaxDetail: s()})
		}
		e.Taxes.BeforeTax, e.Taxes.Tax, e.Taxes.TaxDetail = amount(), amount(), s()
		if r.IntN(3) > 0 {
			e.Reserves = []stock.Reservation{}
			for range r.IntN(3) {
				e.Reserves = append(e.Reserves, stock.Reservation{ID: s(), WarehouseID: s(), Quantity: r.Int64N(100), ExpirationTime: when()})
			}
		}
		c.Items = append(c.Items, e)
	}
	if r.IntN(2) == 0 {
		c.ShippingAddress = &Address{FirstName: s(), Address1: s(), City: s(), Country: "US", State: "HI", PostCode: Text(s())}
		if r.IntN(2) == 0 {
			c.ShippingAddress.Address2 = json.RawMessage(`"apt 3"`)
		}
	}
	switch r.IntN(3) {
	case 0:
		c.BillingSameAsShipping = true
	case 1:
		c.BillingAddress = &Address{FirstName: s(), Company: s(), Country: "GB", Phone: "123"}
	}
	if r.IntN(2) == 0 {
		c.ShippingMethod = &shipping.Selected{ID: s(), Title: s(), TaxCode: s(), RateID: s(), Amount: r.Int64N(100000), Currency: c.Currency}
		if r.IntN(2) == 0 {
			c.ShippingDiscount = &ShippingDiscount{PromotionID: fmt.Sprint("p", r.IntN(4)), PromotionTitle: s(), Discount: r.Int64N(100000)}
		}
	}
	if r.IntN(3) == 0 {
		c.AlmostFulfilled = []engine.AlmostFulfilled{{PromotionID: s(), Data: []engine.AlmostLeaf{{CollectedQuantity: 1, PromoQuantity: 3,
			Threshold: 0.3, Value: 1.0 / 3, Type: "PRODUCT", Code: s(), Items: []engine.ItemUse{{ItemID: s(), QuantityToUse: 1}}}}}}
	}
	if r.IntN(2) == 0 {
		c.Coupons = []string{s(), "FREESHIP"}
	}
	return c
}

// BenchmarkViewJSON: a cart of 20 entries in the calculateCart form,
// encoded as the answer and the event encode it (json.Marshal), by hand
// and by encoding/json's reflection over the fields.
//
//	go test ./cart -run '^$' -bench ViewJSON -benchmem
func BenchmarkViewJSON(b *testing.B) {
	v := Render(benchViewCart(), CalculateForm)
	b.Run("by hand", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			if _, err := json.Marshal(v); err != nil {
				b.Fatal(err)
			}
		}
	})
	b.Run("by hand, unchecked", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			if _, err := v.MarshalJSON(); err != nil {
				b.Fatal(err)
			}
		}
	})
	b.Run("encoding/json", func(b *testing.B) {
		b.ReportAllocs()
		for b.Loop() {
			if _, err := json.Marshal(viewFields(v)); err != nil {
				b.Fatal(err)
			}
		}
	})
}

// TestChangeEventPayload: the CARTS event of a change, written by hand,
// is what encoding/json writes of {operation, data, new, payment}.
func TestChangeEventPayload(t *testing.T) {
	r := rand.New(rand.NewPCG(3, 4))
	for i := range 200 {
		c := randomCart(r)
		if i%3 == 0 {
			c.Payment = &payment.Record{PaymentID: "manual", Authorization: "a<1>", Amount: 100, Currency: "USD", Precision: 2, Data: json.RawMessage(`{"card":"tok"}`)}
		}
		one := int64(2)
		o := change{op: "cart.addToCart", data: AddInput{CartID: c.ID, Items: []AddItem{{ProductID: "p<1>", Quantity: &one, WarehouseID: "W&1"}}}}
		e, err := changeEvent(o, c, time.Now())
		if err != nil {
			t.Fatal(err)
		}
		want := map[string]any{"operation": o.op, "data": o.data, "new": viewFields(Render(c, CalculateForm))}
		if c.Payment != nil {
			rec := *c.Payment
			rec.Data = nil
			want["payment"] = rec
		}
		wb, err := json.Marshal(want)
		if err != nil {
			t.Fatal(err)
		}
		if !bytes.Equal(e.Payload, wb) {
			t.Fatalf("cart %d:\n got %s\nwant %s", i, e.Payload, wb)
		}
		if e.Channel != "CARTS" || e.Type != "UPDATE" {
			t.Fatalf("event %s %s", e.Channel, e.Type)
		}
	}
}

// benchViewCart is a cart of 20 entries, each with a discount, a tax and a
// reservation.
func benchViewCart() *Cart {
	c := &Cart{ID: "cart1", CustomerID: "c1", Status: StatusActive, Currency: "USD", Country: "US", Channel: "WEB",
		ExpirationTime: time.Now(), BeforeTax: 123456, Tax: 25926}
	for i := range 20 {
		c.Items = append(c.Items, &Entry{ID: fmt.Sprint("e", i), ProductID: fmt.Sprint("p", i), Title: "001004721743831 - Frigorífico combi (Bosch)",
			Quantity: 1 + i%3, UnitPrice: 96900, Discounts: []Discount{{PromotionID: "promo", PromotionTitle: "10% off", Quantity: 1, Price: 96900, Discount: 9690}},
			Taxes:    EntryTaxes{Lines: []TaxLine{{BeforeTax: 80083, Tax: 16817, TaxDetail: "IVA 21%"}}, BeforeTax: 80083, Tax: 16817, TaxDetail: "IVA 21%"},
			Reserves: []stock.Reservation{{ID: "r1", WarehouseID: "madrid", Quantity: 1, ExpirationTime: time.Now()}}})
	}
	return c
}
