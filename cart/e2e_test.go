package cart_test

import (
	"bufio"
	"encoding/json"
	"fmt"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/commercekit/commerce/loader"
	"github.com/commercekit/commerce/sqldb"
	"github.com/commercekit/commerce/testkit/apitest"
	"github.com/commercekit/commerce/testkit/sample"
	"github.com/commercekit/commerce/testkit/testdb"
)

// sampleFridge is a product of the sample file as the test reads it.
type sampleFridge struct {
	SKU        string   `json:"sku"`
	Title      string   `json:"title"`
	Brand      string   `json:"brand"`
	Categories []string `json:"categories"`
	Prices     []struct {
		Amount   json.Number `json:"amount"`
		Currency string      `json:"currency"`
	} `json:"prices"`
}

// cents reads a USD amount of the sample ("749", "1099.9") in cents.
func cents(t *testing.T, n json.Number) int64 {
	t.Helper()
	whole, frac, _ := strings.Cut(n.String(), ".")
	frac = (frac + "00")[:2]
	v, err := json.Number(whole + frac).Int64()
	if err != nil {
		t.Fatalf("amount %s: %v", n, err)
	}
	return v
}

// combiFridges returns the first three combi fridges of the sample with
// distinct USD prices, cheapest first.
func combiFridges(t *testing.T, dir string) []sampleFridge {
	t.Helper()
	f, err := os.Open(filepath.Join(dir, "dataProductsFridges.jsonl"))
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	var out []sampleFridge
	sc := bufio.NewScanner(f)
	sc.Buffer(nil, 1<<20)
	for sc.Scan() && len(out) < 3 {
		var p sampleFridge
		if json.Unmarshal(sc.Bytes(), &p) != nil || len(p.Prices) != 1 || p.Prices[0].Currency != "USD" ||
			!slices.Contains(p.Categories, "categoryIdByTitle(Frigoríficos combi)") ||
			slices.ContainsFunc(out, func(q sampleFridge) bool { return q.Prices[0].Amount == p.Prices[0].Amount }) {
			continue
		}
		out = append(out, p)
	}
	if len(out) != 3 {
		t.Fatalf("found %d combi fridges with distinct USD prices in the sample, want 3", len(out))
	}
	slices.SortFunc(out, func(a, b sampleFridge) int { return int(cents(t, a.Prices[0].Amount) - cents(t, b.Prices[0].Amount)) })
	return out
}

// round returns n / d rounded half away from zero, for n, d > 0.
func round(n, d int64) int64 { return (2*n + d) / (2 * d) }

// gross21 splits a gross amount at the 21% of the sample's default tax:
// net = amount / 1.21 rounded, tax = the rest.
func gross21(amount int64) (net, tax int64) {
	net = round(amount*100, 121)
	return net, amount - net
}

// TestSampleJourney is the end-to-end test of the cart: the MicroBase
// sample loaded with the loader, then a shopper's journey to checkout,
// with every total computed here by hand.
func TestSampleJourney(t *testing.T) {
	dir := sample.Dir(t)
	testdb.Each(t, func(t *testing.T, db *sqldb.DB) {
		srv := apitest.New(t, db)
		rep, err := loader.Load(t.Context(), dir, loader.Options{URL: srv.URL, Token: srv.Admin, FixSpelling: true})
		if err != nil {
			t.Fatalf("load the sample: %v", err)
		}
		for file, want := range map[string]int{"dataCategories.jsonl": 13, "dataProductsFridges.jsonl": 983, "dataTaxes.jsonl": 3,
			"dataShipping.jsonl": 2, "dataPromotions.jsonl": 1} {
			if fr := rep.File(file); fr == nil || fr.Loaded != want {
				t.Fatalf("%s: got %+v loaded, want %d", file, fr, want)
			}
		}
		s := &shop{Server: srv, t: t}

		// The three fridges, by sku.
		fridges := combiFridges(t, dir)
		skus := []string{fridges[0].SKU, fridges[1].SKU, fridges[2].SKU}
		var listed []struct{ ID, SKU string }
		srv.Get(t, "/catalog/v1/product.list?fields=sku&sku="+strings.Join(skus, ","), srv.API).Must(t).Decode(t, "data", &listed)
		ids := make([]string, 3)
		for _, p := range listed {
			ids[slices.Index(skus, p.SKU)] = p.ID
		}
		price := make([]int64, 3)
		for i, f := range fridges {
			if ids[i] == "" {
				t.Fatalf("product %s not found after the load", f.SKU)
			}
			price[i] = cents(t, f.Prices[0].Amount)
			s.stock(ids[i], "W1", 5)
		}

		// Three combi fridges: "10% if you buy 3 combi fridges" fires on all three.
		c := s.newCart(srv.API, nil)
		got := s.add(srv.API, c.ID, ids[0], 1, ids[1], 1, ids[2], 1)
		var wantBefore, wantTax int64
		for i, id := range ids {
			e := got.entry(t, id)
			if want := fridges[i].SKU + " - " + fridges[i].Title + " (" + fridges[i].Brand + ")"; e.Title != want {
				t.Errorf("got title %q, want %q", e.Title, want)
			}
			discount := round(price[i]*10, 100)
			net, tax := gross21(price[i] - discount)
			wantBefore += net
			wantTax += tax
			if len(e.Discounts) != 1 || e.Discounts[0].Discount != money2(discount) || e.Discounts[0].Quantity != 1 {
				t.Errorf("fridge %d: got discounts %+v, want 1 unit %s off", i, e.Discounts, money2(discount))
			}
			if e.BeforeTax != money2(net) || e.Tax != money2(tax) || e.TaxDetail != "IVA 21%" {
				t.Errorf("fridge %d: got beforeTax %s tax %s (%s), want %s %s", i, e.BeforeTax, e.Tax, e.TaxDetail, money2(net), money2(tax))
			}
		}
		if got.BeforeTax != money2(wantBefore) || got.Tax != money2(wantTax) {
			t.Errorf("got cart beforeTax %s tax %s, want %s %s", got.BeforeTax, got.Tax, money2(wantBefore), money2(wantTax))
		}
		promo := got.Promotions.FulfilledPromos
		if len(promo) != 1 || promo[0].Title != "10% if you buy 3 'Combi fridges'" || len(got.Promotions.AlmostFulfilledPromos) != 0 {
			t.Fatalf("got promotions %+v, want the combi promotion fulfilled", got.Promotions)
		}

		// Remove the most expensive one: the promotion no longer fires and is almost fulfilled.
		got = removeUnits(t, s, c.ID, got.entry(t, ids[2]).ID, 1)
		if len(got.Items) != 2 || len(got.Promotions.FulfilledPromos) != 0 {
			t.Fatalf("got %d entries and fulfilled %+v, want 2 and none", len(got.Items), got.Promotions.FulfilledPromos)
		}
		af := got.Promotions.AlmostFulfilledPromos
		if len(af) != 1 || af[0].ID != promo[0].ID || af[0].Data[0].CollectedQuantity != 2 || af[0].Data[0].PromoQuantity != 3 {
			t.Errorf("got almostFulfilledPromos %+v, want the combi promotion with 2 of 3", af)
		}
		wantBefore, wantTax = 0, 0
		for i := range 2 {
			net, tax := gross21(price[i])
			wantBefore, wantTax = wantBefore+net, wantTax+tax
			if d := got.entry(t, ids[i]).Discounts; len(d) != 0 {
				t.Errorf("fridge %d: got discounts %+v, want none", i, d)
			}
		}
		if got.BeforeTax != money2(wantBefore) || got.Tax != money2(wantTax) {
			t.Errorf("got cart beforeTax %s tax %s, want %s %s", got.BeforeTax, got.Tax, money2(wantBefore), money2(wantTax))
		}

		// Hawaii: in USD only UPS Same Day serves it, at 25.00, and it is assigned.
		ship := setShipping(t, s, srv.API, c.ID, map[string]any{"firstName": "Ada", "lastName": "Lovelace",
			"address_1": "2005 Kalia Rd", "postCode": 96815, "city": "Honolulu", "state": "Hawaii", "country": "US", "phone": "+1 808 555 0100"})
		if len(ship.methods) != 1 || ship.methods[0].Title != "UPS Same Day" {
			t.Fatalf("got methods %+v, want UPS Same Day only", ship.methods)
		}
		if m := ship.cart.ShippingMethod; m == nil || m.Title != "UPS Same Day" || m.Rate != (money{2500, "USD", 2}) {
			t.Fatalf("got shippingMethod %+v, want UPS Same Day at 25.00 USD", m)
		}
		shipNet, shipTax := gross21(2500)
		wantBefore, wantTax = wantBefore+shipNet, wantTax+shipTax
		if ship.cart.Taxes.BeforeTax.Amount != wantBefore || ship.cart.Taxes.Tax.Amount != wantTax {
			t.Errorf("got taxes %+v, want %d + %d with the shipping line", ship.cart.Taxes, wantBefore, wantTax)
		}

		var billed calcCart
		srv.Post(t, "/cart/v1/cart.setBillingAddress", srv.API, map[string]any{"cartId": c.ID, "billingAddress": "SAMEASSHIPPING"}).
			Must(t).Decode(t, "cart", &billed)
		if billed.BillingAddress["address_1"] != "2005 Kalia Rd" || billed.BillingAddress["postCode"] != "96815" {
			t.Errorf("got BillingAddress %v, want the shipping address", billed.BillingAddress)
		}

		var done calcCart
		srv.Post(t, "/cart/v1/cart.checkout", srv.API, map[string]any{"cartId": c.ID, "paymentId": "manual",
			"paymentData": map[string]any{"method": "cash on delivery"}}).Must(t).Decode(t, "cart", &done)
		if done.Status != "CHECKED_OUT" || done.Taxes.BeforeTax.Amount != wantBefore || done.Taxes.Tax.Amount != wantTax {
			t.Errorf("got status %s taxes %+v, want CHECKED_OUT with %d + %d", done.Status, done.Taxes, wantBefore, wantTax)
		}
		if total, want := done.Taxes.BeforeTax.Amount+done.Taxes.Tax.Amount, price[0]+price[1]+2500; total != want {
			t.Errorf("got a total of %d, want %d (two fridges and the shipping, gross)", total, want)
		}
		for i, want := range []int{4, 4, 5} {
			if q, r := s.stockInfo(ids[i], "W1"); q != want || r != 0 {
				t.Errorf("fridge %d: got stock %d reserved %d, want %d and 0", i, q, r, want)
			}
		}
		srv.Post(t, "/cart/v1/cart.checkout", srv.API, map[string]any{"cartId": c.ID, "paymentId": "manual", "paymentData": map[string]any{}}).
			Expect(t, 400, "cart_not_active")

		// A GBP cart, a GBP-priced product, Dorset: both UPS methods; Next Day at its Dorset rate.
		var cat []struct{ ID string }
		srv.Get(t, "/catalog/v1/category.list?title=^Frigoríficos%20combi$", srv.API).Must(t).Decode(t, "data", &cat)
		if len(cat) != 1 {
			t.Fatalf("got %d categories named Frigoríficos combi, want 1", len(cat))
		}
		var gbp struct{ ID string }
		srv.Post(t, "/catalog/v1/product.create", srv.Admin, map[string]any{"sku": "GB-1", "status": "ONLINE", "title": "Combi UK",
			"brand": "Acme", "categories": []string{cat[0].ID}, "stockStatus": 1,
			"prices": []map[string]any{{"amount": json.Number("399.99"), "currency": "GBP"}}}).Must(t).Decode(t, "product", &gbp)
		gc := s.newCart(srv.API, map[string]any{"currency": "GBP", "country": "GB"})
		s.add(srv.API, gc.ID, gbp.ID, 1)
		ship = setShipping(t, s, srv.API, gc.ID, map[string]any{"firstName": "Thomas", "address_1": "Max Gate", "postCode": "DT1 2AB",
			"city": "Dorchester", "state": "Dorset", "country": "GB"})
		var titles []string
		var nextDay string
		for _, m := range ship.methods {
			titles = append(titles, m.Title)
			if m.Title == "UPS Next Day" {
				nextDay = m.ID
			}
		}
		slices.Sort(titles)
		if !slices.Equal(titles, []string{"UPS Next Day", "UPS Same Day"}) || ship.cart.ShippingMethod != nil {
			t.Fatalf("got methods %v and method %+v, want both UPS methods and none assigned", titles, ship.cart.ShippingMethod)
		}
		var gm calcCart
		srv.Post(t, "/cart/v1/cart.setShippingMethod", srv.API, map[string]any{"cartId": gc.ID, "methodId": nextDay}).Must(t).Decode(t, "cart", &gm)
		if m := gm.ShippingMethod; m == nil || m.Title != "UPS Next Day" || m.Rate != (money{490, "GBP", 2}) {
			t.Errorf("got shippingMethod %+v, want UPS Next Day at 4.90 GBP", m)
		}
		pNet, pTax := gross21(39999)
		sNet, sTax := gross21(490)
		if gm.Taxes.BeforeTax.Amount != pNet+sNet || gm.Taxes.Tax.Amount != pTax+sTax {
			t.Errorf("got taxes %+v, want %d + %d", gm.Taxes, pNet+sNet, pTax+sTax)
		}
	})
}

// money2 prints cents (>= 0) as the addToCart form does (577.65, 25, 0.5).
func money2(v int64) json.Number {
	s := fmt.Sprintf("%d.%02d", v/100, v%100)
	return json.Number(strings.TrimRight(strings.TrimRight(s, "0"), "."))
}
