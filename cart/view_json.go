package cart

import (
	"strconv"
)

// The JSON form of a View, written by hand: a cart is encoded twice on
// every change (its event and the answer), and encoding/json spent most of
// that time calling and checking the MarshalJSON of every amount, price
// and time (about a hundred for a cart of 20 entries). The output is
// byte for byte what encoding/json writes for the View's fields
// (TestViewJSON compares the two over many carts); the rare parts
// (addresses, almost fulfilled promotions, an unknown item) are left to
// encoding/json. The parts shared with the stored form are in json.go.

// MarshalJSON writes the view.
func (v View) MarshalJSON() ([]byte, error) {
	return v.appendJSON(make([]byte, 0, viewSize(len(v.Items))))
}

// viewSize is room for the JSON of a cart of n entries: an entry takes
// 320 to 450 bytes in either form with a title of 40 characters, so most
// carts fit and a long one grows once. (Room for 1 KB an entry made every
// encoding allocate two to three times what it wrote, and the garbage
// collector run that much more often.)
func viewSize(n int) int { return 640 + 512*n }

func (v View) appendJSON(b []byte) ([]byte, error) {
	b, err := cartHead{ID: v.ID, CustomerID: v.CustomerID, Status: v.Status, Currency: v.Currency, Country: v.Country,
		Channel: v.Channel, Locale: v.Locale, ExpirationTime: v.ExpirationTime}.append(b)
	if err != nil {
		return nil, err
	}
	if v.Tax != nil {
		b = append(b, `,"tax":`...)
		b = appendAmount(b, *v.Tax)
	}
	if v.BeforeTax != nil {
		b = append(b, `,"beforeTax":`...)
		b = appendAmount(b, *v.BeforeTax)
	}
	b = append(b, `,"items":`...)
	b, err = appendList(b, v.Items, func(b []byte, it any) ([]byte, error) {
		switch e := it.(type) {
		case AddEntry:
			return e.appendJSON(b)
		case CalculateEntry:
			return e.appendJSON(b)
		}
		return appendMarshal(b, it)
	})
	if err != nil {
		return nil, err
	}
	b = append(b, `,"promotions":{"almostFulfilledPromos":`...)
	if b, err = appendMarshal(b, v.Promotions.AlmostFulfilledPromos); err != nil {
		return nil, err
	}
	b = append(b, `,"fulfilledPromos":`...)
	b, _ = appendList(b, v.Promotions.FulfilledPromos, func(b []byte, f FulfilledPromo) ([]byte, error) {
		b = append(b, `{"id":`...)
		b = appendString(b, f.ID)
		b = appendKeyString(b, `,"title":`, f.Title)
		b = append(b, `,"discount":`...)
		b = appendAmount(b, f.Discount)
		return append(b, '}'), nil
	})
	b = append(b, `,"ok":`...)
	b = strconv.AppendBool(b, v.Promotions.OK)
	b = append(b, `},"taxes":{"ok":`...)
	b = strconv.AppendBool(b, v.Taxes.OK)
	b = append(b, `,"beforeTax":`...)
	b = appendAmount(b, v.Taxes.BeforeTax)
	b = append(b, `,"tax":`...)
	b = appendAmount(b, v.Taxes.Tax)
	b = append(b, '}')
	if b, err = appendAddresses(b, `,"shippingAddress":`, v.ShippingAddr, `,"BillingAddress":`, v.BillingAddr); err != nil {
		return nil, err
	}
	if m := v.ShippingMethod; m != nil {
		b = append(b, `,"shippingMethod":{"id":`...)
		b = appendString(b, m.ID)
		b = appendKeyString(b, `,"title":`, m.Title)
		b = appendKeyString(b, `,"taxCode":`, m.TaxCode)
		b = appendKeyString(b, `,"rateId":`, m.RateID)
		b = append(b, `,"rate":`...)
		b = appendPrice(b, m.Rate)
		if m.Discount != nil {
			b = append(b, `,"discount":`...)
			b = appendAmount(b, *m.Discount)
		}
		b = append(b, '}')
	}
	if v.OrderID != "" {
		b = appendKeyString(b, `,"orderId":`, v.OrderID)
	}
	b = append(b, `,"coupons":`...)
	b = appendStrings(b, v.Coupons)
	return append(b, '}'), nil
}

func (e AddEntry) appendJSON(b []byte) ([]byte, error) {
	return appendEntryJSON(b, e.ID, e.ProductID, func(b []byte) []byte {
		b = append(b, `,"quantity":`...)
		b = strconv.AppendInt(b, int64(e.Quantity), 10)
		b = appendKeyString(b, `,"title":`, e.Title)
		b = appendKeyString(b, `,"taxDetail":`, e.TaxDetail)
		b = append(b, `,"price":`...)
		b = appendPrice(b, e.Price)
		b = append(b, `,"tax":`...)
		b = appendAmount(b, e.Tax)
		b = append(b, `,"beforeTax":`...)
		return appendAmount(b, e.BeforeTax)
	}, func(b []byte) []byte { return appendDiscountViews(b, e.Discounts) }, nil, e.Reserves)
}

func (e CalculateEntry) appendJSON(b []byte) ([]byte, error) {
	return appendEntryJSON(b, e.ID, e.ProductID, func(b []byte) []byte {
		b = appendKeyString(b, `,"title":`, e.Title)
		b = append(b, `,"quantity":`...)
		b = strconv.AppendInt(b, int64(e.Quantity), 10)
		b = append(b, `,"price":`...)
		b = appendPrice(b, e.Price)
		b = append(b, `,"taxes":`...)
		b, _ = appendList(b, e.Taxes, func(b []byte, l TaxLineView) ([]byte, error) {
			return appendTaxFields(b, appendAmount, '{', l.BeforeTax, l.Tax, l.TaxDetail), nil
		})
		return b
	}, func(b []byte) []byte { return appendDiscountViews(b, e.Discounts) }, nil, e.Reserves)
}

func appendDiscountViews(b []byte, ds []DiscountView) []byte {
	b, _ = appendList(b, ds, func(b []byte, d DiscountView) ([]byte, error) {
		return appendDiscountJSON(b, appendAmount, d.PromotionID, d.PromotionTitle, d.Quantity, d.Price, d.Discount), nil
	})
	return b
}
