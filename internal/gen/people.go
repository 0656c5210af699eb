package gen

import (
	"context"
	"encoding/json"
	"fmt"
	"strconv"
	"time"

	"github.com/commercekit/commerce/cart"
	"github.com/commercekit/commerce/customer"
	"github.com/commercekit/commerce/event"
	"github.com/commercekit/commerce/money"
	"github.com/commercekit/commerce/order"
	"github.com/commercekit/commerce/sqldb"
)

// rowBatch is the number of customers or orders a transaction writes;
// eventBatch the number of events.
const (
	rowBatch   = 5000
	eventBatch = 20000
)

// year is how far back orders and events go.
const year = 365 * 24 * time.Hour

// customers writes the customers, created over the year before now.
func (g *generator) customers(ctx context.Context) error {
	store := sqldb.NewCustomerStore(g.db)
	n := g.sizes.Customers
	start := g.now.Add(-year)
	return batches(n, rowBatch, func(from, to int) error {
		batch := make([]*customer.Customer, 0, to-from)
		for i := from; i < to; i++ {
			c := &customer.Customer{ID: g.id(), Email: fmt.Sprintf("shopper%07d@example.com", i),
				FirstName: g.pick(firstNames), LastName: g.pick(lastNames), CustomerType: "B2C", Groups: []string{},
				Addresses: []customer.Address{}, CreatedAt: start.Add(time.Duration(int64(year) / int64(n) * int64(i))).Truncate(time.Millisecond),
				PasswordHash: passwordHash}
			batch = append(batch, c)
			g.custs = append(g.custs, c.ID)
			g.emails[c.ID] = c.Email
		}
		return store.Update(ctx, func(tx customer.Tx) error {
			for _, c := range batch {
				if err := tx.Insert(ctx, c); err != nil {
					return err
				}
			}
			return nil
		})
	})
}

// orders writes the orders, dated evenly over the year before now (in
// number order), each of one to three lines, paid with the manual
// provider; most are delivered and completed.
func (g *generator) orders(ctx context.Context) error {
	store := sqldb.NewOrderStore(g.db)
	n := g.sizes.Orders
	start := g.now.Add(-year)
	step := int64(year) / int64(n)
	g.facts.Day = start.Add(year / 2).Format(time.DateOnly)
	first := map[string]bool{}
	return batches(n, rowBatch, func(from, to int) error {
		batch := make([]*order.Order, 0, to-from)
		for i := from; i < to; i++ {
			at := start.Add(time.Duration(step * int64(i))).Truncate(time.Millisecond)
			cust := g.custs[g.r.IntN(len(g.custs))]
			if len(g.facts.Customers) < 50 && !first[cust] {
				first[cust] = true
				g.facts.Customers = append(g.facts.Customers, cust)
			}
			batch = append(batch, g.order(cust, at))
		}
		return store.Update(ctx, func(tx order.Tx) error {
			for _, o := range batch {
				num, err := tx.NextNumber(ctx)
				if err != nil {
					return err
				}
				o.Number = strconv.FormatInt(num, 10)
				if err := tx.Insert(ctx, o); err != nil {
					return err
				}
			}
			return nil
		})
	})
}

// order returns an order of the customer placed at at (its number is set
// when it is written).
func (g *generator) order(cust string, at time.Time) *order.Order {
	usd := func(a int64) money.Money { return money.Money{Amount: a, Currency: "USD"} }
	o := &order.Order{ID: g.id(), CartID: g.id(), CustomerID: cust, Email: g.emails[cust],
		Status: order.StatusCompleted, PaymentStatus: order.PaymentPaid, FulfillmentStatus: order.Delivered,
		Currency: "USD", Country: "US", Channel: "default", Coupons: []string{}, Fulfillments: []*order.Fulfillment{},
		Refunds: []*order.Refund{}, Returns: []string{}, Source: order.SourceStorefront, CreatedAt: at, UpdatedAt: at, Version: 1}
	if g.r.IntN(10) == 0 { // a recent-looking order, not shipped yet
		o.Status, o.FulfillmentStatus = order.StatusPlaced, order.NotShipped
	}
	addr, _ := json.Marshal(cart.Address{FirstName: g.pick(firstNames), LastName: g.pick(lastNames), Address1: fmt.Sprintf("%d Main St", 1+g.r.IntN(999)),
		PostCode: cart.Text(fmt.Sprintf("%05d", g.r.IntN(100000))), City: "Springfield", State: "IL", Country: "US"})
	o.ShippingAddress, o.BillingAddress = addr, addr
	var items int64
	for range 1 + g.r.IntN(3) {
		p := g.sale[g.r.IntN(len(g.sale))]
		q := int64(1 + g.r.IntN(2))
		total := p.usd * q
		items += total
		o.Items = append(o.Items, &order.Item{ID: g.id(), ProductID: p.id, SKU: p.sku, Title: p.title, Quantity: q,
			WarehouseID: Warehouses[g.r.IntN(len(Warehouses))], UnitPrice: usd(p.usd), Discount: usd(0), Tax: usd(total * 21 / 121),
			Total: usd(total), ShippedQuantity: q})
	}
	if o.Status == order.StatusPlaced {
		for _, it := range o.Items {
			it.ShippedQuantity = 0
		}
	}
	o.Totals = order.Totals{Items: usd(items), Discount: usd(0), Shipping: usd(500), Tax: usd(items * 21 / 121), Total: usd(items + 500)}
	o.Payments = []*order.Payment{{ID: g.id(), Provider: "manual", Status: order.PayCaptured, Amount: o.Totals.Total,
		Captured: o.Totals.Total, Refunded: usd(0), Reference: "gen-" + o.ID}}
	return o
}

// eventKinds are the events of the generated log, in the proportions of a
// shop's: mostly carts, then orders, products and customers.
var eventKinds = []struct{ channel, typ string }{
	{event.Carts, "CREATE"}, {event.Carts, "UPDATE"}, {event.Carts, "UPDATE"}, {event.Carts, "UPDATE"},
	{event.Carts, "UPDATE"}, {event.Orders, "CHECKOUT"}, {event.Orders, "CAPTURE"}, {event.Orders, "FULFILL"},
	{event.Products, "UPDATE"}, {event.Customers, "UPDATE"},
}

// events writes the event log, dated evenly over the year before now.
// Payloads are small ({"id": ...}); the log's size, not its content, is
// what the benchmarks need.
func (g *generator) events(ctx context.Context) error {
	n := g.sizes.Events
	start := g.now.Add(-year)
	step := int64(year) / int64(n)
	return batches(n, eventBatch, func(from, to int) error {
		evs := make([]event.Event, 0, to-from)
		for i := from; i < to; i++ {
			k := eventKinds[i%len(eventKinds)]
			owner := ""
			ref := g.sale[g.r.IntN(len(g.sale))].id
			switch k.channel {
			case event.Carts, event.Orders:
				ref = g.id()
				owner = ref
			case event.Customers:
				ref = g.custs[g.r.IntN(len(g.custs))]
				owner = ref
			}
			at := start.Add(time.Duration(step * int64(i))).Truncate(time.Millisecond)
			e := event.Event{ID: g.orderedID(at), Channel: k.channel, Type: k.typ, Date: at,
				Payload: json.RawMessage(`{"id":"` + ref + `"}`), Owner: owner}
			if i == n/2 {
				g.facts.MiddleEvent = e.ID
			}
			evs = append(evs, e)
		}
		return g.db.Update(ctx, func(tx *sqldb.Tx) error {
			for _, e := range evs {
				tx.Emit(e)
			}
			return nil
		})
	})
}

// orderedAlphabet is commerce.NewOrderedID's alphabet (sorts as the bytes).
const orderedAlphabet = "-0123456789ABCDEFGHIJKLMNOPQRSTUVWXYZ_abcdefghijklmnopqrstuvwxyz"

// orderedID returns an id in the form of commerce.NewOrderedID's for a
// time: its milliseconds, then random bytes of the generator.
func (g *generator) orderedID(at time.Time) string {
	var b [18]byte
	ms := uint64(at.UnixMilli())
	for i := range 6 {
		b[i] = byte(ms >> (8 * (5 - i)))
	}
	for i := 6; i < len(b); i += 8 {
		v := g.r.Uint64()
		for j := 0; j < 8 && i+j < len(b); j++ {
			b[i+j] = byte(v >> (8 * j))
		}
	}
	out := make([]byte, 0, 24)
	for i := 0; i < len(b); i += 3 {
		v := uint(b[i])<<16 | uint(b[i+1])<<8 | uint(b[i+2])
		out = append(out, orderedAlphabet[v>>18&63], orderedAlphabet[v>>12&63], orderedAlphabet[v>>6&63], orderedAlphabet[v&63])
	}
	return string(out)
}

// followers are the event log's followers (their cursors in
// relay_cursors).
var followers = []string{"mail", "webhook", "nats"}

// cursors moves the followers to the end of the log: a running shop's
// have followed it as it grew (without it, a first serve would walk the
// whole generated log, and the mail follower would mail every order).
func (g *generator) cursors(ctx context.Context) error {
	var end sqldb.Position
	err := g.db.QueryRow(ctx, `SELECT k, seq FROM events ORDER BY k DESC, seq DESC LIMIT 1`).Scan(&end.K, &end.Seq)
	if err != nil {
		return err
	}
	for _, f := range followers {
		if err := g.db.SetCursor(ctx, f, end); err != nil {
			return err
		}
	}
	// Products ids spread over the catalog, for product.info.
	for i := 0; i < len(g.sale) && len(g.facts.Products) < 200; i += max(1, len(g.sale)/200) {
		g.facts.Products = append(g.facts.Products, g.sale[i].id)
	}
	return nil
}

var (
	firstNames = []string{"Ada", "Ben", "Carla", "David", "Elena", "Farid", "Grace", "Hugo", "Irene", "Jon", "Kiri", "Luis",
		"Maya", "Nils", "Olga", "Pablo", "Quinn", "Rosa", "Sam", "Tara"}
	lastNames = []string{"Smith", "Garcia", "Müller", "Rossi", "Dubois", "Kowalski", "Jensen", "Silva", "Novak", "Brown",
		"Ortiz", "Lindqvist", "Costa", "Horvat", "Murphy"}
)
