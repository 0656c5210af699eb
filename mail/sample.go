package mail

import (
	"encoding/json"
	"time"

	"github.com/commercekit/commerce/money"
	"github.com/commercekit/commerce/order"
)

// SampleOrder is an order with two lines, a discount, a shipment and a
// refund: what NewRenderer renders every template with to check it, and
// tests use.
func SampleOrder() *order.Order {
	usd := func(a int64) money.Money { return money.Money{Amount: a, Currency: "USD", Precision: 2} }
	addr := json.RawMessage(`{"firstName":"Ada","lastName":"Lovelace","address_1":"1 Main St","address_2":"Flat 4",` +
		`"postCode":"96815","city":"Honolulu","state":"HI","country":"US"}`)
	return &order.Order{ID: "o1", Number: "1042", CustomerID: "c1", Email: "ada@example.com", Currency: "USD",
		Items: []*order.Item{
			{ID: "i1", SKU: "F1", Title: "Fridge", Quantity: 2, UnitPrice: usd(49999), Total: usd(99998)},
			{ID: "i2", SKU: "K9", Title: "Kettle <Deluxe>", Quantity: 1, UnitPrice: usd(2500), Total: usd(2000)},
		},
		ShippingAddress: addr, BillingAddress: addr,
		ShippingMethod: &order.ShippingMethod{Title: "UPS"},
		Totals:         order.Totals{Items: usd(102498), Discount: usd(500), Shipping: usd(2500), Tax: usd(0), Total: usd(104498)},
		Fulfillments:   []*order.Fulfillment{{ID: "f1", Items: []order.Quantity{{ItemID: "i2", Quantity: 1}}, Carrier: "UPS", TrackingNumber: "1Z999"}},
		Refunds:        []*order.Refund{{ID: "r1", Amount: usd(1250), Reason: "scratched"}},
		CreatedAt:      time.Date(2026, 3, 4, 10, 0, 0, 0, time.UTC)}
}

// sampleData is the data of a template for the sample order, with every
// part set (order, shipment, refund, return, link).
func sampleData(template, locale string, shop Shop) *Data {
	o := SampleOrder()
	d := &Data{Shop: shop, To: o.Email, Name: "Ada", Order: orderView(o, locale, shop.URL)}
	d.Fulfillment = fulfillmentView(o, o.Fulfillments[0])
	d.Refund = &RefundView{Amount: Money(o.Refunds[0].Amount, locale), Reason: o.Refunds[0].Reason}
	d.Return = &ReturnView{Number: "R1001", Status: "RECEIVED", Lines: []ReturnLine{{Title: "Fridge", Quantity: 1, Reason: "DAMAGED"}}}
	d.Link = &LinkView{URL: shop.URL + "/reset-password?token=tok123", Expires: DateTime(o.CreatedAt, locale)}
	return d
}
