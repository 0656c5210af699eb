package order_test

import (
	"bytes"
	"encoding/json"
	"net/url"
	"slices"
	"sync"
	"testing"
	"time"

	"github.com/commercekit/commerce/app"
	"github.com/commercekit/commerce/money"
	"github.com/commercekit/commerce/order"
	"github.com/commercekit/commerce/sqldb"
	"github.com/commercekit/commerce/testkit/testdb"
)

// clock is a clock the test moves.
type clock struct {
	mu sync.Mutex
	t  time.Time
}

func (c *clock) Now() time.Time {
	c.mu.Lock()
	defer c.mu.Unlock()
	return c.t
}

func (c *clock) Advance(d time.Duration) {
	c.mu.Lock()
	defer c.mu.Unlock()
	c.t = c.t.Add(d)
}

// TestList: every filter of order.list, alone and together, newest
// first, paged; a customer token's filters apply within its own orders.
func TestList(t *testing.T) {
	testdb.Each(t, func(t *testing.T, db *sqldb.DB) {
		t0 := time.Date(2026, 3, 1, 10, 0, 0, 0, time.UTC)
		clk := &clock{t: t0}
		s := newShop(t, db, func(o *app.Options) { o.Now = clk.Now })
		ada, bob := s.customer("ada"), s.customer("bob")
		// One order an hour: o[0] at t0 ... o[4] at t0+4h.
		var o [5]*order.Order
		for i, tok := range []string{s.API, ada, bob, ada, s.API} {
			o[i], _ = s.order(tok, 2)
			clk.Advance(time.Hour)
		}
		s.op("capture", map[string]any{"id": o[1].ID})                                                                         // PLACED/PAID/NOT_SHIPPED
		s.Post(t, "/order/v1/order.cancel", bob, map[string]any{"id": o[2].ID}).Must(t)                                        // CANCELLED/VOIDED/NOT_SHIPPED
		s.op("capture", map[string]any{"id": o[3].ID})                                                                         // COMPLETED/PAID/DELIVERED
		f := s.op("fulfill", map[string]any{"id": o[3].ID}).Fulfillments[0].ID                                                 // (continued)
		s.op("deliver", map[string]any{"id": o[3].ID, "fulfillmentId": f})                                                     // (continued)
		s.op("fulfill", map[string]any{"id": o[4].ID, "items": []map[string]any{{"itemId": o[4].Items[0].ID, "quantity": 1}}}) // PLACED/AUTHORIZED/PARTIALLY_SHIPPED
		at := func(h int) string { return t0.Add(time.Duration(h) * time.Hour).Format(time.RFC3339) }

		for _, tc := range []struct {
			name  string
			token string
			query url.Values
			want  []int // indexes into o, in the order expected
		}{
			{"no filter: newest first", s.Admin, nil, []int{4, 3, 2, 1, 0}},
			{"status", s.Admin, url.Values{"status": {"PLACED"}}, []int{4, 1, 0}},
			{"statuses", s.Admin, url.Values{"status": {"CANCELLED,COMPLETED"}}, []int{3, 2}},
			{"paymentStatus", s.Admin, url.Values{"paymentStatus": {"PAID"}}, []int{3, 1}},
			{"paymentStatus VOIDED", s.Admin, url.Values{"paymentStatus": {"VOIDED"}}, []int{2}},
			{"fulfillmentStatus", s.Admin, url.Values{"fulfillmentStatus": {"NOT_SHIPPED"}}, []int{2, 1, 0}},
			{"fulfillmentStatuses", s.Admin, url.Values{"fulfillmentStatus": {"PARTIALLY_SHIPPED,DELIVERED"}}, []int{4, 3}},
			{"number", s.Admin, url.Values{"number": {o[1].Number + "," + o[3].Number}}, []int{3, 1}},
			{"number unknown", s.Admin, url.Values{"number": {"999999"}}, nil},
			{"customerId", s.Admin, url.Values{"customerId": {"ada"}}, []int{3, 1}},
			{"customerId ANON", s.Admin, url.Values{"customerId": {"ANON"}}, []int{4, 0}},
			{"createdFrom (inclusive)", s.Admin, url.Values{"createdFrom": {at(1)}}, []int{4, 3, 2, 1}},
			{"createdTo (inclusive)", s.Admin, url.Values{"createdTo": {at(1)}}, []int{1, 0}},
			{"createdFrom and createdTo", s.Admin, url.Values{"createdFrom": {at(1)}, "createdTo": {at(3)}}, []int{3, 2, 1}},
			{"createdFrom with an offset", s.Admin, url.Values{"createdFrom": {t0.Add(3 * time.Hour).In(time.FixedZone("", 2*3600)).Format(time.RFC3339)}}, []int{4, 3}},
			{"filters together", s.Admin, url.Values{"status": {"PLACED"}, "customerId": {"ada,ANON"}, "fulfillmentStatus": {"NOT_SHIPPED"}}, []int{1, 0}},
			{"limit", s.Admin, url.Values{"limit": {"2"}}, []int{4, 3}},
			{"limit and skip", s.Admin, url.Values{"limit": {"2"}, "skip": {"2"}}, []int{2, 1}},
			{"skip past the end", s.Admin, url.Values{"skip": {"5"}}, nil},
			{"a customer: own orders only", ada, nil, []int{3, 1}},
			{"a customer's filter within them", ada, url.Values{"status": {"COMPLETED"}}, []int{3}},
			{"a customer naming another", ada, url.Values{"customerId": {"bob"}, "status": {"CANCELLED"}}, nil},
			{"a customer naming ANON", bob, url.Values{"customerId": {"ANON"}}, nil},
		} {
			t.Run(tc.name, func(t *testing.T) {
				var got []order.Order
				s.Get(t, "/order/v1/order.list?"+tc.query.Encode(), tc.token).Must(t).Decode(t, "data", &got)
				var ids, want []string
				for _, g := range got {
					ids = append(ids, g.Number)
				}
				for _, i := range tc.want {
					want = append(want, o[i].Number)
				}
				if !slices.Equal(ids, want) {
					t.Errorf("got numbers %v, want %v", ids, want)
				}
				// The same filters in a POST body.
				body := map[string]any{}
				for k, v := range tc.query {
					body[k] = v[0]
					if k == "limit" || k == "skip" {
						body[k] = json.Number(v[0])
					}
				}
				var post []order.Order
				s.Post(t, "/order/v1/order.list", tc.token, body).Must(t).Decode(t, "data", &post)
				if len(post) != len(got) {
					t.Errorf("POST: got %d orders, GET %d", len(post), len(got))
				}
			})
		}
		for _, bad := range []url.Values{{"createdTo": {"2026-03-01"}}, {"createdFrom": {"yesterday"}}, {"skip": {"-1"}}, {"limit": {"1001"}}} {
			s.Get(t, "/order/v1/order.list?"+bad.Encode(), s.Admin).Expect(t, 400, "validation_error")
		}
		// A number is digits only: anything else is validation_error
		// naming number, never a lenient parse (1001abc read as 1001).
		for _, bad := range []string{"abc", o[0].Number + "abc", "0" + o[0].Number, "+" + o[0].Number, "1e3",
			o[0].Number + ".0", "-1", "1234567890123456789", o[1].Number + ",x"} {
			e := s.Get(t, "/order/v1/order.list?"+url.Values{"number": {bad}}.Encode(), s.Admin).Expect(t, 400, "validation_error")
			if !bytes.Contains(e.Data, []byte(`number`)) {
				t.Errorf("number %q: data %s, want it to name number", bad, e.Data)
			}
			s.Post(t, "/order/v1/order.list", s.Admin, map[string]any{"number": []string{bad}}).Expect(t, 400, "validation_error")
		}
	})
}

// TestSnapshot: an order keeps the prices, discounts, taxes, titles and
// shipping rate of its checkout whatever later changes to the catalog,
// the promotions, the taxes and the shipping methods; without an email
// argument an ANON order has none.
func TestSnapshot(t *testing.T) {
	testdb.Each(t, func(t *testing.T, db *sqldb.DB) {
		s := newShop(t, db)
		o, p := s.order(s.API, 2)
		if o.Email != "" {
			t.Errorf("ANON order without an email argument: email %q, want none", o.Email)
		}
		var raw map[string]json.RawMessage
		s.Get(t, "/order/v1/order.info?id="+o.ID, s.API).Must(t).Decode(t, "order", &raw)
		if _, ok := raw["email"]; ok {
			t.Errorf("order has an email %s, want the field absent", raw["email"])
		}
		before := s.Get(t, "/order/v1/order.info?id="+o.ID, s.Admin).Must(t).Body["order"]

		s.Post(t, "/catalog/v1/product.update", s.Admin, map[string]any{"id": p, "title": "Renamed",
			"prices": []map[string]any{{"amount": 1, "currency": "USD"}}}).Must(t)
		var taxes []struct{ ID string }
		s.Get(t, "/tax/v1/tax.list", s.Admin).Must(t).Decode(t, "data", &taxes)
		for _, tx := range taxes {
			s.Post(t, "/tax/v1/tax.update", s.Admin, map[string]any{"id": tx.ID, "rate": 50}).Must(t)
		}
		s.Post(t, "/promotion/v1/promotion.create", s.Admin, map[string]any{"title": "Half", "class": "default", "active": true, "priority": 1,
			"if":   map[string]any{"product": map[string]any{"id": p, "quantity": 1}},
			"then": map[string]any{"product": map[string]any{"id": p, "quantity": 1, "discount": map[string]any{"rate": 50, "isPercentage": true}}},
		}).Must(t)
		var methods []struct{ ID string }
		s.Get(t, "/cart/v1/shipping.list", s.Admin).Must(t).Decode(t, "data", &methods)
		for _, m := range methods {
			s.Post(t, "/cart/v1/shipping.remove", s.Admin, map[string]any{"id": m.ID}).Must(t)
		}

		after := s.Get(t, "/order/v1/order.info?id="+o.ID, s.Admin).Must(t).Body["order"]
		if !bytes.Equal(before, after) {
			t.Errorf("the order changed with the catalog, promotions, taxes and shipping:\nbefore %s\nafter  %s", before, after)
		}
	})
}

// TestTotals: the order's lines and totals as section 13 defines them,
// with a line discount and a shipping discount: items one per cart entry
// (its id and title), discount the line's total discount, total what the
// line costs tax included; totals.items the sum of unit price x quantity,
// discount the lines' discounts, shipping the rate after its discount,
// tax and total the cart's.
func TestTotals(t *testing.T) {
	testdb.Each(t, func(t *testing.T, db *sqldb.DB) {
		s := newShop(t, db)
		p := s.product("T", "100.00", 10)
		// Half shipping (first, it takes one unit), then 10% off each other
		// unit (it fires twice).
		for i, then := range []map[string]any{
			{"shipping": map[string]any{"discount": map[string]any{"rate": 50, "isPercentage": true}}},
			{"product": map[string]any{"id": p, "quantity": 1, "discount": map[string]any{"rate": 10, "isPercentage": true}}},
		} {
			s.Post(t, "/promotion/v1/promotion.create", s.Admin, map[string]any{"title": "P", "class": "default", "active": true, "priority": i,
				"if": map[string]any{"product": map[string]any{"id": p, "quantity": 1}}, "then": then}).Must(t)
		}
		r := s.Post(t, "/cart/v1/cart.checkout", s.API, checkoutBody(s.cart(s.API, p, 3))).Must(t)
		var o order.Order
		r.Decode(t, "order", &o)
		var c struct {
			Items []struct {
				ID, Title string
			}
			Taxes struct {
				BeforeTax, Tax struct{ Amount int64 }
			}
		}
		r.Decode(t, "cart", &c)
		if len(o.Items) != 1 || len(c.Items) != 1 || o.Items[0].ID != c.Items[0].ID || o.Items[0].Title != c.Items[0].Title {
			t.Fatalf("items %+v, cart entries %+v: want one per entry, with its id and title", o.Items, c.Items)
		}
		it := o.Items[0]
		if it.UnitPrice.Amount != 10000 || it.Discount.Amount != 2000 || it.Total.Amount != 28000 || it.Tax.Amount <= 0 ||
			it.ShippedQuantity != 0 || it.RefundedQuantity != 0 {
			t.Errorf("item %+v: want 3 x 100.00 less 2 x 10.00, 280.00 tax included", it)
		}
		if o.ShippingMethod == nil || o.ShippingMethod.Rate.Amount != 2500 {
			t.Errorf("shipping method %+v: want its rate, 25.00", o.ShippingMethod)
		}
		tot := o.Totals
		if tot.Items.Amount != 30000 || tot.Discount.Amount != 2000 || tot.Shipping.Amount != 1250 ||
			tot.Tax.Amount != c.Taxes.Tax.Amount || tot.Total.Amount != c.Taxes.BeforeTax.Amount+c.Taxes.Tax.Amount ||
			tot.Total.Amount != it.Total.Amount+tot.Shipping.Amount || tot.Tax.Amount <= it.Tax.Amount {
			t.Errorf("totals %+v (cart taxes %+v): want items 300.00, discount 20.00, shipping 12.50, the cart's tax and total (292.50)", tot, c.Taxes)
		}
		for _, m := range []money.Money{it.UnitPrice, it.Discount, it.Tax, it.Total, tot.Items, tot.Discount, tot.Shipping, tot.Tax, tot.Total,
			o.Payments[0].Amount, o.Payments[0].Captured, o.Payments[0].Refunded} {
			if m.Currency != "USD" || m.Precision != 2 {
				t.Errorf("amount %+v: want a USD money object of precision 2", m)
			}
		}
		if o.Payments[0].Amount != tot.Total {
			t.Errorf("payment of %+v, want the total %+v", o.Payments[0].Amount, tot.Total)
		}
	})
}
