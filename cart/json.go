package cart

import (
	"encoding/json"
	"strconv"
	"time"
	"unicode/utf8"

	"github.com/commercekit/commerce/money"
	"github.com/commercekit/commerce/stock"
)

// One writer for the three JSON forms of a cart: the stored form
// (Cart.Document, amounts as integers in minor units) and a View's
// AddForm and CalculateForm (amounts as Amounts, plain or money objects).
// The forms share their head, their entries' frame (id and productId
// first, discounts and reserves last), their discounts and tax lines and
// their addresses; what differs is passed in: the order of a few keys,
// the entry fields a form shows, and how an amount is written (A: int64
// with appendInt, Amount with appendAmount). Each form is byte for byte
// what encoding/json writes of its type (TestDocumentJSON, TestViewJSON).

// cartHead is the first fields of every form of a cart, up to its
// expiration time.
type cartHead struct {
	ID, CustomerID, Status, Currency, Country, Channel, Locale string
	ExpirationTime                                             time.Time
	// CustomerFirst puts customerId before status (the stored form's
	// order; a view has status first).
	CustomerFirst bool
}

func (h cartHead) append(b []byte) ([]byte, error) {
	b = append(b, `{"id":`...)
	b = appendString(b, h.ID)
	if h.CustomerFirst {
		b = appendKeyString(b, `,"customerId":`, h.CustomerID)
		b = appendKeyString(b, `,"status":`, h.Status)
	} else {
		b = appendKeyString(b, `,"status":`, h.Status)
		b = appendKeyString(b, `,"customerId":`, h.CustomerID)
	}
	b = appendKeyString(b, `,"currency":`, h.Currency)
	b = appendKeyString(b, `,"country":`, h.Country)
	b = appendKeyString(b, `,"channel":`, h.Channel)
	if h.Locale != "" {
		b = appendKeyString(b, `,"locale":`, h.Locale)
	}
	b = append(b, `,"expirationTime":`...)
	return appendTime(b, h.ExpirationTime)
}

// appendEntryJSON writes an entry in any form: id and productId, then
// the form's own fields (fields), the discounts, the stored form's taxes
// (after, nil in a view) and the reserves.
func appendEntryJSON(b []byte, id, productID string, fields, discounts, after func([]byte) []byte, reserves []stock.Reservation) ([]byte, error) {
	b = append(b, `{"id":`...)
	b = appendString(b, id)
	b = appendKeyString(b, `,"productId":`, productID)
	b = fields(b)
	b = append(b, `,"discounts":`...)
	b = discounts(b)
	if after != nil {
		b = after(b)
	}
	b = append(b, `,"reserves":`...)
	b, err := appendReserves(b, reserves)
	if err != nil {
		return nil, err
	}
	return append(b, '}'), nil
}

// appendDiscountJSON writes a discount of an entry in any form, its
// amounts with amount.
func appendDiscountJSON[A any](b []byte, amount func([]byte, A) []byte, promotionID, promotionTitle string, quantity int, price, discount A) []byte {
	b = append(b, `{"promotionId":`...)
	b = appendString(b, promotionID)
	b = appendKeyString(b, `,"promotionTitle":`, promotionTitle)
	b = append(b, `,"quantity":`...)
	b = strconv.AppendInt(b, int64(quantity), 10)
	b = append(b, `,"price":`...)
	b = amount(b, price)
	b = append(b, `,"discount":`...)
	b = amount(b, discount)
	return append(b, '}')
}

// appendTaxFields writes the beforeTax, tax and taxDetail of a tax line
// (or of an entry's taxes in the stored form) in any form, after sep (`{`
// or `,`), and closes the object.
func appendTaxFields[A any](b []byte, amount func([]byte, A) []byte, sep byte, beforeTax, tax A, taxDetail string) []byte {
	b = append(b, sep)
	b = append(b, `"beforeTax":`...)
	b = amount(b, beforeTax)
	b = append(b, `,"tax":`...)
	b = amount(b, tax)
	b = appendKeyString(b, `,"taxDetail":`, taxDetail)
	return append(b, '}')
}

// appendAddresses writes the addresses present (nil ones are absent)
// under the form's keys.
func appendAddresses(b []byte, shippingKey string, shipping *Address, billingKey string, billing *Address) ([]byte, error) {
	var err error
	if shipping != nil {
		b = append(b, shippingKey...)
		if b, err = appendMarshal(b, shipping); err != nil {
			return nil, err
		}
	}
	if billing != nil {
		b = append(b, billingKey...)
		if b, err = appendMarshal(b, billing); err != nil {
			return nil, err
		}
	}
	return b, nil
}

func appendReserves(b []byte, rs []stock.Reservation) ([]byte, error) {
	return appendList(b, rs, func(b []byte, r stock.Reservation) ([]byte, error) {
		b = append(b, `{"id":`...)
		b = appendString(b, r.ID)
		b = appendKeyString(b, `,"warehouseId":`, r.WarehouseID)
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

// appendInt writes an amount of the stored form: an integer in minor
// units.
func appendInt(b []byte, v int64) []byte { return strconv.AppendInt(b, v, 10) }

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
		b = appendKeyString(b, `,"currency":`, p.Currency)
	} else {
		b = appendMoney(b, p.Money)
		b = b[:len(b)-1]
	}
	if p.PriceListID != "" {
		b = appendKeyString(b, `,"priceListId":`, p.PriceListID)
	}
	return append(b, '}')
}

func appendMoney(b []byte, m money.Money) []byte {
	b = append(b, `{"amount":`...)
	b = strconv.AppendInt(b, m.Amount, 10)
	b = appendKeyString(b, `,"currency":`, m.Currency)
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

// appendKeyString writes key (`,"name":`) and the string s.
func appendKeyString(b []byte, key, s string) []byte {
	return appendString(append(b, key...), s)
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
