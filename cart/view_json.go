package cart

import (
	"encoding/json"
	"strconv"
	"time"
	"unicode/utf8"

	"github.com/commercekit/commerce/money"
	"github.com/commercekit/commerce/stock"
)

// The JSON form of a View, written by hand: a cart is encoded twice on
// every change (its event and the answer), and encoding/json spent most of
// that time calling and checking the MarshalJSON of every amount, price
// and time (about a hundred for a cart of 20 entries). The output is
// byte for byte what encoding/json writes for the View's fields
// (TestViewJSON compares the two over many carts); the rare parts
// (addresses, almost fulfilled promotions, an unknown item) are left to
// encoding/json.

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
	var err error
	b = append(b, `{"id":`...)
	b = appendString(b, v.ID)
	b = append(b, `,"status":`...)
	b = appendString(b, v.Status)
	b = append(b, `,"customerId":`...)
	b = appendString(b, v.CustomerID)
	b = append(b, `,"currency":`...)
	b = appendString(b, v.Currency)
	b = append(b, `,"country":`...)
	b = appendString(b, v.Country)
	b = append(b, `,"channel":`...)
	b = appendString(b, v.Channel)
	if v.Locale != "" {
		b = append(b, `,"locale":`...)
		b = appendString(b, v.Locale)
	}
	b = append(b, `,"expirationTime":`...)
	if b, err = appendTime(b, v.ExpirationTime); err != nil {
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
		b = append(b, `,"title":`...)
		b = appendString(b, f.Title)
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
	if v.ShippingAddr != nil {
		b = append(b, `,"shippingAddress":`...)
		if b, err = appendMarshal(b, v.ShippingAddr); err != nil {
			return nil, err
		}
	}
	if v.BillingAddr != nil {
		b = append(b, `,"BillingAddress":`...)
		if b, err = appendMarshal(b, v.BillingAddr); err != nil {
			return nil, err
		}
	}
	if m := v.ShippingMethod; m != nil {
		b = append(b, `,"shippingMethod":{"id":`...)
		b = appendString(b, m.ID)
		b = append(b, `,"title":`...)
		b = appendString(b, m.Title)
		b = append(b, `,"taxCode":`...)
		b = appendString(b, m.TaxCode)
		b = append(b, `,"rateId":`...)
		b = appendString(b, m.RateID)
		b = append(b, `,"rate":`...)
		b = appendPrice(b, m.Rate)
		if m.Discount != nil {
			b = append(b, `,"discount":`...)
			b = appendAmount(b, *m.Discount)
		}
		b = append(b, '}')
	}
	if v.OrderID != "" {
		b = append(b, `,"orderId":`...)
		b = appendString(b, v.OrderID)
	}
	b = append(b, `,"coupons":`...)
	b = appendStrings(b, v.Coupons)
	return append(b, '}'), nil
}

func (e AddEntry) appendJSON(b []byte) ([]byte, error) {
	b = append(b, `{"id":`...)
	b = appendString(b, e.ID)
	b = append(b, `,"productId":`...)
	b = appendString(b, e.ProductID)
	b = append(b, `,"quantity":`...)
	b = strconv.AppendInt(b, int64(e.Quantity), 10)
	b = append(b, `,"title":`...)
	b = appendString(b, e.Title)
	b = append(b, `,"taxDetail":`...)
	b = appendString(b, e.TaxDetail)
	b = append(b, `,"price":`...)
	b = appendPrice(b, e.Price)
	b = append(b, `,"tax":`...)
	b = appendAmount(b, e.Tax)
	b = append(b, `,"beforeTax":`...)
	b = appendAmount(b, e.BeforeTax)
	b = append(b, `,"discounts":`...)
	b = appendDiscounts(b, e.Discounts)
	b = append(b, `,"reserves":`...)
	b, err := appendReserves(b, e.Reserves)
	if err != nil {
		return nil, err
	}
	return append(b, '}'), nil
}

func (e CalculateEntry) appendJSON(b []byte) ([]byte, error) {
	b = append(b, `{"id":`...)
	b = appendString(b, e.ID)
	b = append(b, `,"productId":`...)
	b = appendString(b, e.ProductID)
	b = append(b, `,"title":`...)
	b = appendString(b, e.Title)
	b = append(b, `,"quantity":`...)
	b = strconv.AppendInt(b, int64(e.Quantity), 10)
	b = append(b, `,"price":`...)
	b = appendPrice(b, e.Price)
	b = append(b, `,"taxes":`...)
	b, _ = appendList(b, e.Taxes, func(b []byte, l TaxLineView) ([]byte, error) {
		b = append(b, `{"beforeTax":`...)
		b = appendAmount(b, l.BeforeTax)
		b = append(b, `,"tax":`...)
		b = appendAmount(b, l.Tax)
		b = append(b, `,"taxDetail":`...)
		b = appendString(b, l.TaxDetail)
		return append(b, '}'), nil
	})
	b = append(b, `,"discounts":`...)
	b = appendDiscounts(b, e.Discounts)
	b = append(b, `,"reserves":`...)
	b, err := appendReserves(b, e.Reserves)
	if err != nil {
		return nil, err
	}
	return append(b, '}'), nil
}

func appendDiscounts(b []byte, ds []DiscountView) []byte {
	b, _ = appendList(b, ds, func(b []byte, d DiscountView) ([]byte, error) {
		b = append(b, `{"promotionId":`...)
		b = appendString(b, d.PromotionID)
		b = append(b, `,"promotionTitle":`...)
		b = appendString(b, d.PromotionTitle)
		b = append(b, `,"quantity":`...)
		b = strconv.AppendInt(b, int64(d.Quantity), 10)
		b = append(b, `,"price":`...)
		b = appendAmount(b, d.Price)
		b = append(b, `,"discount":`...)
		b = appendAmount(b, d.Discount)
		return append(b, '}'), nil
	})
	return b
}

func appendReserves(b []byte, rs []stock.Reservation) ([]byte, error) {
	return appendList(b, rs, func(b []byte, r stock.Reservation) ([]byte, error) {
		b = append(b, `{"id":`...)
		b = appendString(b, r.ID)
		b = append(b, `,"warehouseId":`...)
		b = appendString(b, r.WarehouseID)
		b = append(b, `,"quantity":`...)
		b = strconv.AppendInt(b, r.Quantity, 10)
		b = append(b, `,"expirationTime":`...)
		b, err := appendTime(b, r.ExpirationTime)
		if err != nil {
			return nil, err
		}
		return append(b, '}'), nil
	})
}

// appendList writes xs as a JSON array, each element by each, and nil as
// null (as encoding/json does); it stops at each's first error.
func appendList[T any](b []byte, xs []T, each func([]byte, T) ([]byte, error)) ([]byte, error) {
	if xs == nil {
		return append(b, "null"...), nil
	}
	b = append(b, '[')
	for i, x := range xs {
		if i > 0 {
			b = append(b, ',')
		}
		var err error
		if b, err = each(b, x); err != nil {
			return nil, err
		}
	}
	return append(b, ']'), nil
}

// appendAmount writes an amount as money.Amount.MarshalJSON does.
func appendAmount(b []byte, a Amount) []byte {
	if a.Plain {
		return append(b, money.FormatMinor(a.Amount, a.Precision)...)
	}
	return appendMoney(b, a.Money)
}

// appendPrice writes a price as PriceView.MarshalJSON does.
func appendPrice(b []byte, p PriceView) []byte {
	if p.Plain {
		b = append(b, `{"amount":`...)
		b = append(b, money.Major(p.Amount, p.Precision)...)
		b = append(b, `,"currency":`...)
		b = appendString(b, p.Currency)
	} else {
		b = appendMoney(b, p.Money)
		b = b[:len(b)-1]
	}
	if p.PriceListID != "" {
		b = append(b, `,"priceListId":`...)
		b = appendString(b, p.PriceListID)
	}
	return append(b, '}')
}

func appendMoney(b []byte, m money.Money) []byte {
	b = append(b, `{"amount":`...)
	b = strconv.AppendInt(b, m.Amount, 10)
	b = append(b, `,"currency":`...)
	b = appendString(b, m.Currency)
	b = append(b, `,"precision":`...)
	b = strconv.AppendInt(b, int64(m.Precision), 10)
	return append(b, '}')
}

// appendTime writes a time as time.Time.MarshalJSON does.
func appendTime(b []byte, t time.Time) ([]byte, error) {
	if y := t.Year(); y < 0 || y > 9999 {
		_, err := t.MarshalJSON() // its error
		return nil, err
	}
	b = append(b, '"')
	b = t.AppendFormat(b, time.RFC3339Nano)
	return append(b, '"'), nil
}

func appendStrings(b []byte, ss []string) []byte {
	b, _ = appendList(b, ss, func(b []byte, s string) ([]byte, error) { return appendString(b, s), nil })
	return b
}

// appendString writes a JSON string as encoding/json does: a string with
// nothing to escape (valid UTF-8 but U+2028 and U+2029, no control
// character, quote, backslash or HTML character) as it is, any other
// through encoding/json itself.
func appendString(b []byte, s string) []byte {
	for i := 0; i < len(s); {
		c := s[i]
		if c < utf8.RuneSelf {
			if c < 0x20 || c == '"' || c == '\\' || c == '<' || c == '>' || c == '&' {
				return appendMarshaled(b, s)
			}
			i++
			continue
		}
		r, size := utf8.DecodeRuneInString(s[i:])
		if (r == utf8.RuneError && size == 1) || r == '\u2028' || r == '\u2029' {
			return appendMarshaled(b, s)
		}
		i += size
	}
	b = append(b, '"')
	b = append(b, s...)
	return append(b, '"')
}

func appendMarshaled(b []byte, s string) []byte {
	out, _ := json.Marshal(s) // a string always marshals
	return append(b, out...)
}

// appendMarshal appends v as encoding/json writes it.
func appendMarshal(b []byte, v any) ([]byte, error) {
	out, err := json.Marshal(v)
	if err != nil {
		return nil, err
	}
	return append(b, out...), nil
}
