package cart

import "strconv"

// Document returns the cart's stored form (its JSON form), what
// Tx.Save stores: byte for byte what encoding/json writes of the
// cart (TestDocumentJSON), written by hand because every change of a cart
// stores it, and encoding/json's reflection over a cart of 20 entries
// took as long as the rest of the change's encoding. The rarely set
// parts (addresses, the shipping method, the payment) go through
// encoding/json. The parts shared with a View's JSON are in json.go.
func (c *Cart) Document() ([]byte, error) {
	b, err := cartHead{ID: c.ID, CustomerID: c.CustomerID, Status: c.Status, Currency: c.Currency, Country: c.Country,
		Channel: c.Channel, Locale: c.Locale, ExpirationTime: c.ExpirationTime, CustomerFirst: true}.append(make([]byte, 0, viewSize(len(c.Items))))
	if err != nil {
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
	if b, err = appendAddresses(b, `,"shippingAddress":`, c.ShippingAddress, `,"billingAddress":`, c.BillingAddress); err != nil {
		return nil, err
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
		b = appendKeyString(b, `,"promotionTitle":`, d.PromotionTitle)
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
		b = appendKeyString(b, `,"orderId":`, c.OrderID)
	}
	if c.Email != "" {
		b = appendKeyString(b, `,"email":`, c.Email)
	}
	if len(c.Groups) > 0 {
		b = append(b, `,"groups":`...)
		b = appendStrings(b, c.Groups)
	}
	return append(b, '}'), nil
}

func (e *Entry) appendDocument(b []byte) ([]byte, error) {
	return appendEntryJSON(b, e.ID, e.ProductID, func(b []byte) []byte {
		b = appendKeyString(b, `,"title":`, e.Title)
		b = append(b, `,"quantity":`...)
		b = strconv.AppendInt(b, int64(e.Quantity), 10)
		b = append(b, `,"unitPrice":`...)
		b = strconv.AppendInt(b, e.UnitPrice, 10)
		if e.PriceID != "" {
			b = appendKeyString(b, `,"priceId":`, e.PriceID)
		}
		if e.PriceListID != "" {
			b = appendKeyString(b, `,"priceListId":`, e.PriceListID)
		}
		b = appendKeyString(b, `,"taxCode":`, e.TaxCode)
		b = append(b, `,"isNetPrice":`...)
		b = strconv.AppendBool(b, e.IsNetPrice)
		b = append(b, `,"stockStatus":`...)
		return strconv.AppendInt(b, int64(e.StockStatus), 10)
	}, func(b []byte) []byte {
		b, _ = appendList(b, e.Discounts, func(b []byte, d Discount) ([]byte, error) {
			return appendDiscountJSON(b, appendInt, d.PromotionID, d.PromotionTitle, d.Quantity, d.Price, d.Discount), nil
		})
		return b
	}, func(b []byte) []byte {
		b = append(b, `,"taxes":`...)
		return e.Taxes.appendDocument(b)
	}, e.Reserves)
}

func (t *EntryTaxes) appendDocument(b []byte) []byte {
	b = append(b, `{"lines":`...)
	b, _ = appendList(b, t.Lines, func(b []byte, l TaxLine) ([]byte, error) {
		return appendTaxFields(b, appendInt, '{', l.BeforeTax, l.Tax, l.TaxDetail), nil
	})
	return appendTaxFields(b, appendInt, ',', t.BeforeTax, t.Tax, t.TaxDetail)
}
