package order

import (
	"encoding/json"
	"time"

	"github.com/commercekit/commerce"
)

// Erased replaces personal data in an order whose customer was removed
// (docs/api.md section 15).
const Erased = "[erased]"

// Erase removes the personal data of the order (customer.remove): the
// email becomes "[erased]", and so does every field of its addresses but
// country and state. Items, totals and payments are kept.
func (o *Order) Erase(now time.Time) {
	o.Email = Erased
	o.ShippingAddress = eraseAddress(o.ShippingAddress)
	o.BillingAddress = eraseAddress(o.BillingAddress)
	o.Version++
	o.UpdatedAt = now
}

// eraseAddress returns the address object with every field but country
// and state replaced by "[erased]"; what is not an object is dropped.
func eraseAddress(raw json.RawMessage) json.RawMessage {
	if commerce.IsNull(raw) {
		return raw
	}
	var fields map[string]json.RawMessage
	if err := json.Unmarshal(raw, &fields); err != nil {
		return nil
	}
	erased, _ := json.Marshal(Erased)
	for k := range fields {
		if k != "country" && k != "state" {
			fields[k] = erased
		}
	}
	out, err := json.Marshal(fields)
	if err != nil {
		return nil
	}
	return out
}
