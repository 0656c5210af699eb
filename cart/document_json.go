package cart

import "strconv"

// Document returns the cart's stored form (its JSON form), what
// Tx.Save stores: byte for byte what encoding/json writes of the
// cart (TestDocumentJSON), written by hand because every change of a cart
// stores it, and encoding/json's reflection over a cart of 20 entries
// took as long as the rest of the change's encoding. The rarely set
// parts (addresses, the shipping method, the payment) go through
// encoding/json.
func (c *Cart) Document() ([]byte, error) {
	b := make([]byte, 0, viewSize(len(c.Items)))
	var err error
	b = append(b, `{"id":`...)
	b = appendString(b, c.ID)
	b = append(b, `,"customerId":`...)
	b = appendString(b, c.CustomerID)
	b = append(b, `,"status":`...)
	b = appendString(b, c.Status)
	b = append(b, `,"currency":`...)
	b = appendString(b, c.Currency)
	b = append(b, `,"country":`...)
	b = appendString(b, c.Country)
	b = append(b, `,"channel":`...)
	b = appendString(b, c.Channel)
	if c.Locale != "" {
		b = append(b, `,"locale":`...)
		b = appendString(b, c.Locale)
	}
	b = append(b, `,"expirationTime":`...)
	if b, err = appendTime(b, c.ExpirationTime); err != nil {
		return nil, err
	}
	b = append(b, `,"createdAt":`...)
	if b, err = appendTime(b, c.CreatedAt); err != nil {
		return nil, err
	}
	b = append(b, `,"updatedAt":`...)
	if b, err = appendTime(b, c.UpdatedAt); err != nil {
		return nil, err
	}
	b = append(b, `,"items":`...)
	if b, err = appendList(b, c.Items, func(b []byte, e *Entry) ([]byte, error) { return e.appendDocument(b) }); err != nil {
		return nil, err
	}
	if c.ShippingAddress != nil {
		b = append(b, `,"shippingAddress":`...)
		if b, err = appendMarshal(b, c.ShippingAddress); err != nil {
			return nil, err
		}
	}
	if c.BillingAddress != nil {
		b = append(b, `,"billingAddress":`...)
		if b, err = appendMarshal(b, c.BillingAddress); err != nil {
			return nil, err
		}
	}
	if c.BillingSameAsShipping {
		b = append(b, `,"billingSameAsShipping":true`...)
	}
	if c.ShippingMethod != nil {
		b = append(b, `,"shippingMethod":`...)
		if b, err = appendMarshal(b, c.ShippingMethod); err != nil {
			return nil, err
		}
	}
	if len(c.Coupons) > 0 {
		b = append(b, `,"coupons":`...)
		b = appendStrings(b, c.Coupons)
	}
	if d := c.ShippingDiscount; d != nil {
		b = append(b, `,"shippingDiscount":{"promotionId":`...)
		b = appendString(b, d.PromotionID)
		b = append(b, `,"promotionTitle":`...)
		b = appendString(b, d.PromotionTitle)
		b = append(b, `,"discount":`...)
		b = strconv.AppendInt(b, d.Discount, 10)
		b = append(b, '}')
	}
	if len(c.Fired) > 0 {
		b = append(b, `,"fired":`...)
		b = appendStrings(b, c.Fired)
	}
	b = append(b, `,"almostFulfilled":`...)
	if b, err = appendMarshal(b, c.AlmostFulfilled); err != nil {
		return nil, err
	}
	if c.ShippingTaxes != nil {
		b = append(b, `,"shippingTaxes":`...)
		b = c.ShippingTaxes.appendDocument(b)
	}
	b = append(b, `,"beforeTax":`...)
	b = strconv.AppendInt(b, c.BeforeTax, 10)
	b = append(b, `,"tax":`...)
	b = strconv.AppendInt(b, c.Tax, 10)
	if c.Payment != nil {
		b = append(b, `,"payment":`...)
		if b, err = appendMarshal(b, c.Payment); err != nil {
			return nil, err
		}
	}
	if c.OrderID != "" {
		b = append(b, `,"orderId":`...)
		b = appendString(b, c.OrderID)
	}
	if c.Email != "" {
		b = append(b, `,"email":`...)
		b = appendString(b, c.Email)
	}
	if len(c.Groups) > 0 {
		b = append(b, `,"groups":`...)
		b = appendStrings(b, c.Groups)
	}
	return append(b, '}'), nil
}

func (e *Entry) appendDocument(b []byte) ([]byte, error) {
	b = append(b, `{"id":`...)
	b = appendString(b, e.ID)
	b = append(b, `,"productId":`...)
	b = appendString(b, e.ProductID)
	b = append(b, `,"title":`...)
	b = appendString(b, e.Title)
	b = append(b, `,"quantity":`...)
	b = strconv.AppendInt(b, int64(e.Quantity), 10)
	b = append(b, `,"unitPrice":`...)
	b = strconv.AppendInt(b, e.UnitPrice, 10)
	if e.PriceID != "" {
		b = append(b, `,"priceId":`...)
		b = appendString(b, e.PriceID)
	}
	if e.PriceListID != "" {
		b = append(b, `,"priceListId":`...)
		b = appendString(b, e.PriceListID)
	}
	b = append(b, `,"taxCode":`...)
	b = appendString(b, e.TaxCode)
	b = append(b, `,"isNetPrice":`...)
	b = strconv.AppendBool(b, e.IsNetPrice)
	b = append(b, `,"stockStatus":`...)
	b = strconv.AppendInt(b, int64(e.StockStatus), 10)
	b = append(b, `,"discounts":`...)
	b, _ = appendList(b, e.Discounts, func(b []byte, d Discount) ([]byte, error) {
		b = append(b, `{"promotionId":`...)
		b = appendString(b, d.PromotionID)
		b = append(b, `,"promotionTitle":`...)
		b = appendString(b, d.PromotionTitle)
		b = append(b, `,"quantity":`...)
		b = strconv.AppendInt(b, int64(d.Quantity), 10)
		b = append(b, `,"price":`...)
		b = strconv.AppendInt(b, d.Price, 10)
		b = append(b, `,"discount":`...)
		b = strconv.AppendInt(b, d.Discount, 10)
		return append(b, '}'), nil
	})
	b = append(b, `,"taxes":`...)
	b = e.Taxes.appendDocument(b)
	b = append(b, `,"reserves":`...)
	b, err := appendReserves(b, e.Reserves)
	if err != nil {
		return nil, err
	}
	return append(b, '}'), nil
}

func (t *EntryTaxes) appendDocument(b []byte) []byte {
	b = append(b, `{"lines":`...)
	b, _ = appendList(b, t.Lines, func(b []byte, l TaxLine) ([]byte, error) {
		b = append(b, `{"beforeTax":`...)
		b = strconv.AppendInt(b, l.BeforeTax, 10)
		b = append(b, `,"tax":`...)
		b = strconv.AppendInt(b, l.Tax, 10)
		b = append(b, `,"taxDetail":`...)
		b = appendString(b, l.TaxDetail)
		return append(b, '}'), nil
	})
	b = append(b, `,"beforeTax":`...)
	b = strconv.AppendInt(b, t.BeforeTax, 10)
	b = append(b, `,"tax":`...)
	b = strconv.AppendInt(b, t.Tax, 10)
	b = append(b, `,"taxDetail":`...)
	b = appendString(b, t.TaxDetail)
	return append(b, '}')
}
