package order

import (
	"context"
	"fmt"
	"time"

	"github.com/commercekit/commerce"
)

// Fulfill is order.fulfill (admin): a SHIPPED fulfillment of the items
// given (default: every unit not yet shipped). Allowed while the order is
// PLACED and no cancel is in progress.
// Errors: order_not_found, validation_error (bad quantities, unknown
// items), fulfillment_exceeds_quantity ({itemId, remaining}),
// invalid_order_state.
func (s *Service) Fulfill(ctx context.Context, in FulfillInput) (*Order, error) {
	var p commerce.Problems
	if in.ID == "" {
		p.Add("id", "required")
	}
	if in.Items != nil && len(in.Items) == 0 {
		p.Add("items", "must not be empty")
	}
	checkItems(&p, in.Items)
	if err := p.Err(); err != nil {
		return nil, err
	}
	return s.change(ctx, in.ID, func(_ Tx, o *Order, now time.Time) (string, error) {
		var p commerce.Problems
		for i, it := range in.Items {
			if o.Item(it.ItemID) == nil {
				p.Add(fmt.Sprintf("items[%d].itemId", i), "no item %s in the order", it.ItemID)
			}
		}
		if err := p.Err(); err != nil {
			return "", err
		}
		if o.Status != StatusPlaced || pendingKind(o, OpCancel) {
			return "", invalidState(o, "fulfill")
		}
		want := map[string]int64{}
		var order []string
		if in.Items == nil {
			for _, it := range o.Items {
				if left := it.Quantity - it.ShippedQuantity; left > 0 {
					want[it.ID] = left
					order = append(order, it.ID)
				}
			}
			if len(order) == 0 {
				return "", invalidState(o, "fulfill")
			}
		}
		for _, it := range in.Items {
			if _, ok := want[it.ItemID]; !ok {
				order = append(order, it.ItemID)
			}
			want[it.ItemID] += it.Quantity
		}
		f := &Fulfillment{ID: commerce.NewID(), Status: FulfillmentShipped, ShippedAt: now, Items: []Quantity{}}
		if in.Carrier != nil {
			f.Carrier = *in.Carrier
		}
		if in.TrackingNumber != nil {
			f.TrackingNumber = *in.TrackingNumber
		}
		for _, id := range order {
			it := o.Item(id)
			if left := it.Quantity - it.ShippedQuantity; want[id] > left {
				return "", &commerce.Error{Code: EFulfillmentExceedsQuantity, Data: map[string]any{"itemId": id, "remaining": left},
					Message: fmt.Sprintf("item %s: %d to ship, %d left", id, want[id], left)}
			}
			it.ShippedQuantity += want[id]
			f.Items = append(f.Items, Quantity{ItemID: id, Quantity: want[id]})
		}
		o.Fulfillments = append(o.Fulfillments, f)
		return EventFulfill, nil
	})
}

// Deliver is order.deliver (admin): the fulfillment becomes DELIVERED.
// Errors: order_not_found, fulfillment_not_found (data: the id),
// invalid_order_state (already delivered, or the order cancelled).
func (s *Service) Deliver(ctx context.Context, in DeliverInput) (*Order, error) {
	var p commerce.Problems
	if in.ID == "" {
		p.Add("id", "required")
	}
	if in.FulfillmentID == "" {
		p.Add("fulfillmentId", "required")
	}
	if err := p.Err(); err != nil {
		return nil, err
	}
	return s.change(ctx, in.ID, func(_ Tx, o *Order, now time.Time) (string, error) {
		f := o.Fulfillment(in.FulfillmentID)
		if f == nil {
			return "", &commerce.Error{Code: EFulfillmentNotFound, Data: in.FulfillmentID, Message: "no fulfillment " + in.FulfillmentID}
		}
		if f.Status == FulfillmentDelivered || o.Status == StatusCancelled {
			return "", invalidState(o, "deliver")
		}
		f.Status = FulfillmentDelivered
		t := now
		f.DeliveredAt = &t
		return EventDeliver, nil
	})
}

// pendingKind reports whether an operation of the kind is pending.
func pendingKind(o *Order, kind string) bool {
	for _, op := range o.Pending {
		if op.Kind == kind {
			return true
		}
	}
	return false
}
