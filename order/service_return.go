package order

import (
	"context"
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/commercekit/commerce"
	"github.com/commercekit/commerce/event"
	"github.com/commercekit/commerce/stock"
)

// Returns (docs/api.md section 24). A return is its own record (return.go)
// whose every change is one transaction that locks the return, then its
// order (the order's row serialises everything that counts units of its
// returns: 50 parallel return.request for the same units never take more
// than were shipped), changes both and emits the RETURNS event. Money goes
// back through the order's payment as order.refund's does, with the same
// pending operation (service_return_refund.go).

func (s *Service) returnWindow() time.Duration {
	if s.ReturnWindow <= 0 {
		return DefaultReturnWindow
	}
	return s.ReturnWindow
}

// update runs fn in one transaction: through Exchanges when the change
// touches an exchange (ex is then set), else through the store (ex nil).
func (s *Service) update(ctx context.Context, exchange bool, fn func(tx Tx, ex ExchangeTx) error) error {
	if exchange {
		if s.Exchanges == nil {
			return commerce.Errorf(commerce.EInternal, "returns: no exchanges configured")
		}
		return s.Exchanges.UpdateExchanges(ctx, fn)
	}
	return s.store.Update(ctx, func(tx Tx) error { return fn(tx, nil) })
}

// mayReturn reports whether the caller may ask for a return of the order,
// and see or cancel its returns: an admin token, or the token of the
// order's customer (an ANON order's returns are staff's).
func mayReturn(cl commerce.Claims, customerID string) bool {
	return cl.IsAdmin() || (cl.CustomerID != "" && customerID != Anonymous && cl.CustomerID == customerID)
}

// lastDelivery is when the order's return window starts: its last
// delivery, or its last shipment when nothing is delivered yet.
func lastDelivery(o *Order) time.Time {
	var delivered, shipped time.Time
	for _, f := range o.Fulfillments {
		if f.DeliveredAt != nil && f.DeliveredAt.After(delivered) {
			delivered = *f.DeliveredAt
		}
		if f.ShippedAt.After(shipped) {
			shipped = f.ShippedAt
		}
	}
	if !delivered.IsZero() {
		return delivered
	}
	return shipped
}

// RequestReturn is return.request: admin, or the order's customer within
// the return window after the order's last delivery (last shipment when
// nothing is delivered). Only shipped units not on another return that is
// not CANCELLED can be returned. An exchange is priced and its units
// reserved at once (Exchanges), in the transaction that stores the return.
// Errors: validation_error, order_not_found (also an order the caller may
// not return), invalid_order_state (nothing shipped),
// return_window_expired ({deliveredAt}), return_exceeds_quantity
// ({itemId, remaining}), out_of_stock, and the exchange's pricing errors.
func (s *Service) RequestReturn(ctx context.Context, in RequestInput) (*Return, error) {
	if err := checkRequest(in); err != nil {
		return nil, err
	}
	cl, _ := commerce.ClaimsFrom(ctx)
	o, err := s.store.Order(ctx, in.OrderID)
	if err != nil {
		return nil, err
	}
	if !mayReturn(cl, o.CustomerID) {
		return nil, NotFound(in.OrderID)
	}
	var q Quote
	if in.Exchange != nil {
		if s.Exchanges == nil {
			return nil, commerce.Errorf(commerce.EInternal, "returns: no exchanges configured")
		}
		if q, err = s.Exchanges.QuoteExchange(ctx, o, in.Exchange.Items); err != nil {
			return nil, err
		}
	}
	var out *Return
	err = s.update(ctx, q != nil, func(tx Tx, ex ExchangeTx) error {
		now := s.clock()
		o, err := tx.Lock(ctx, in.OrderID)
		if err != nil {
			return err
		}
		if !o.shipped() || o.Status == StatusCancelled {
			return invalidState(o, "return")
		}
		if from := lastDelivery(o); !cl.IsAdmin() && now.After(from.Add(s.returnWindow())) {
			return &commerce.Error{Code: commerce.EReturnWindowExpired, Data: map[string]any{"deliveredAt": from},
				Message: fmt.Sprintf("order %s: the return window closed %s after %s", o.ID, s.returnWindow(), from.Format(time.RFC3339))}
		}
		returns, err := tx.OrderReturns(ctx, o.ID)
		if err != nil {
			return err
		}
		r := &Return{ID: commerce.NewID(), OrderID: o.ID, CustomerID: o.CustomerID, Status: ReturnRequested,
			Items: []*ReturnItem{}, CreatedAt: now, UpdatedAt: now, Version: 1}
		var p commerce.Problems
		for i, line := range in.Items {
			if o.Item(line.ItemID) == nil {
				p.Add(commerce.Index("items", i)+".itemId", "no item %s in the order", line.ItemID)
			}
		}
		if err := p.Err(); err != nil {
			return err
		}
		for _, line := range in.Items {
			it := o.Item(line.ItemID)
			if remaining := it.ShippedQuantity - onReturns(returns, it.ID); line.Quantity > remaining {
				return exceeds(it.ID, line.Quantity, max(remaining, 0))
			}
			ri := &ReturnItem{ItemID: it.ID, Quantity: line.Quantity, Reason: ReasonOther, WarehouseID: it.WarehouseID}
			if line.Reason != nil {
				ri.Reason = *line.Reason
			}
			if line.Note != nil {
				ri.Note = *line.Note
			}
			r.Items = append(r.Items, ri)
		}
		n, err := tx.NextReturnNumber(ctx)
		if err != nil {
			return err
		}
		r.Number = FormatReturnNumber(n)
		if q != nil {
			r.Exchange = &Exchange{Items: q.Items(), CartID: q.CartID(), Value: q.Value(), SKUs: q.SKUs()}
			if err := ex.Open(ctx, q); err != nil {
				return err
			}
		}
		if err := tx.InsertReturn(ctx, r); err != nil {
			return err
		}
		o.Returns = append(o.Returns, r.ID)
		if err := s.touch(ctx, tx, o, now); err != nil {
			return err
		}
		out = r
		return emitReturn(tx, EventReturnRequest, now, r)
	})
	if err != nil {
		return nil, err
	}
	return out, nil
}

// checkRequest checks return.request's arguments.
func checkRequest(in RequestInput) error {
	var p commerce.Problems
	if in.OrderID == "" {
		p.Add("orderId", "required")
	}
	if len(in.Items) == 0 {
		p.Add("items", "must list at least one item")
	}
	seen := map[string]bool{}
	for i, it := range in.Items {
		at := commerce.Index("items", i)
		switch {
		case it.ItemID == "":
			p.Add(at+".itemId", "required")
		case seen[it.ItemID]:
			p.Add(at+".itemId", "item %s is listed twice", it.ItemID)
		}
		seen[it.ItemID] = true
		if it.Quantity <= 0 {
			p.Add(at+".quantity", "must be a positive integer")
		}
		if it.Reason != nil && !slices.Contains(ReturnReasons, *it.Reason) {
			p.Add(at+".reason", "must be one of %s", strings.Join(ReturnReasons, ", "))
		}
	}
	if x := in.Exchange; x != nil {
		if len(x.Items) == 0 {
			p.Add("exchange.items", "must list at least one item")
		}
		for i, it := range x.Items {
			at := "exchange." + commerce.Index("items", i)
			if strings.TrimSpace(it.ProductID) == "" {
				p.Add(at+".productId", "required")
			}
			if it.Quantity <= 0 {
				p.Add(at+".quantity", "must be a positive integer")
			}
			if strings.TrimSpace(it.WarehouseID) == "" {
				p.Add(at+".warehouseId", "required")
			}
		}
	}
	return p.Err()
}

// onReturns counts the units of the item on returns that are not
// CANCELLED.
func onReturns(returns []*Return, itemID string) int64 {
	var n int64
	for _, r := range returns {
		if r.Status == ReturnCancelled {
			continue
		}
		if ri := r.Item(itemID); ri != nil {
			n += ri.Quantity
		}
	}
	return n
}

// touch stores a change of the order that a return made (its returns,
// returned quantities): version + 1, updatedAt now, no ORDERS event (the
// RETURNS event tells).
func (s *Service) touch(ctx context.Context, tx Tx, o *Order, now time.Time) error {
	o.Version++
	o.UpdatedAt = now
	return tx.Save(ctx, o)
}

// changeReturn runs fn on the locked return id and its locked order in
// one transaction (through Exchanges when the return has an exchange),
// then stores the return (version + 1, updatedAt now) and emits the event
// type fn returns on RETURNS.
func (s *Service) changeReturn(ctx context.Context, id string, fn func(tx Tx, ex ExchangeTx, r *Return, o *Order, now time.Time) (string, error)) (*Return, error) {
	if id == "" {
		return nil, commerce.Invalid("id: required")
	}
	cur, err := s.store.Return(ctx, id)
	if err != nil {
		return nil, err
	}
	var out *Return
	err = s.update(ctx, cur.cartID() != "", func(tx Tx, ex ExchangeTx) error {
		now := s.clock()
		r, err := tx.LockReturn(ctx, id)
		if err != nil {
			return err
		}
		o, err := tx.Lock(ctx, r.OrderID)
		if err != nil {
			return err
		}
		typ, err := fn(tx, ex, r, o, now)
		if err != nil {
			return err
		}
		r.Version++
		r.UpdatedAt = now
		if err := tx.SaveReturn(ctx, r); err != nil {
			return err
		}
		out = r
		return emitReturn(tx, typ, now, r)
	})
	if err != nil {
		return nil, err
	}
	return out, nil
}

// ReceiveReturn is return.receive (admin): REQUESTED -> RECEIVED. Each
// item given is received in its quantity (at most what the return asks
// for) and, with restock (the default), goes back to stock in its
// warehouse (the order item's by default; a stock record is created there
// when there is none); items not given are received 0. Without items,
// every unit asked for is received and restocked. The order's items count
// the units received (returnedQuantity). A receipt is made once: a
// retried return.receive gets invalid_return_state (or, with the same
// Idempotency-Key, the first answer), so units are restocked once.
// Errors: validation_error, return_not_found, invalid_return_state
// ({status}), return_exceeds_quantity ({itemId, remaining}).
func (s *Service) ReceiveReturn(ctx context.Context, in ReceiveInput) (*Return, error) {
	var p commerce.Problems
	if in.ID == "" {
		p.Add("id", "required")
	}
	if in.Items != nil && len(in.Items) == 0 {
		p.Add("items", "must not be empty")
	}
	seen := map[string]bool{}
	for i, it := range in.Items {
		at := commerce.Index("items", i)
		switch {
		case it.ItemID == "":
			p.Add(at+".itemId", "required")
		case seen[it.ItemID]:
			p.Add(at+".itemId", "item %s is listed twice", it.ItemID)
		}
		seen[it.ItemID] = true
		if it.Quantity < 0 {
			p.Add(at+".quantity", "must not be negative")
		}
		if it.WarehouseID != nil && strings.TrimSpace(*it.WarehouseID) == "" {
			p.Add(at+".warehouseId", "must not be blank")
		}
	}
	if err := p.Err(); err != nil {
		return nil, err
	}
	return s.changeReturn(ctx, in.ID, func(tx Tx, _ ExchangeTx, r *Return, o *Order, now time.Time) (string, error) {
		next, err := nextReturnStatus(r, opReceive)
		if err != nil {
			return "", err
		}
		lines := in.Items
		if lines == nil {
			for _, ri := range r.Items {
				lines = append(lines, ReceiveItemInput{ItemID: ri.ItemID, Quantity: ri.Quantity})
			}
		}
		var p commerce.Problems
		for i, line := range lines {
			if r.Item(line.ItemID) == nil {
				p.Add(commerce.Index("items", i)+".itemId", "item %s is not on the return", line.ItemID)
			}
		}
		if err := p.Err(); err != nil {
			return "", err
		}
		for _, line := range lines {
			ri := r.Item(line.ItemID)
			if line.Quantity > ri.Quantity {
				return "", exceeds(ri.ItemID, line.Quantity, ri.Quantity)
			}
			ri.ReceivedQuantity = line.Quantity
			ri.Restock = line.Restock == nil || *line.Restock
			if line.WarehouseID != nil {
				ri.WarehouseID = commerce.Key(*line.WarehouseID)
			}
			it := o.Item(ri.ItemID)
			it.ReturnedQuantity += line.Quantity
			if ri.Restock && line.Quantity > 0 {
				if err := putBack(ctx, tx.Stock(), it.ProductID, ri.WarehouseID, line.Quantity); err != nil {
					return "", err
				}
			}
		}
		r.Status = next
		return EventReturnReceive, s.touch(ctx, tx, o, now)
	})
}

// putBack gives n units of a product back to the stock of a warehouse,
// creating the record when there is none. A product removed since (its
// stock records went with it) takes nothing back.
func putBack(ctx context.Context, st stock.Tx, productID, warehouseID string, n int64) error {
	key := stock.Key{ProductID: productID, WarehouseID: warehouseID}
	rec, err := st.Lock(ctx, key)
	switch {
	case commerce.ErrorCode(err) == commerce.EStockNotFound:
		if err := st.LockProduct(ctx, productID); commerce.ErrorCode(err) == commerce.EProductNotFound {
			return nil
		} else if err != nil {
			return err
		}
		return st.Create(ctx, stock.Stock{ProductID: productID, WarehouseID: warehouseID, Quantity: n})
	case err != nil:
		return fmt.Errorf("restock %s in %s: %w", productID, warehouseID, err)
	}
	if _, err := st.SetQuantity(ctx, key, rec.Quantity+n); err != nil {
		return fmt.Errorf("restock %s in %s: %w", productID, warehouseID, err)
	}
	return nil
}

// RejectReturn is return.reject (admin): REQUESTED or RECEIVED ->
// REJECTED; the exchange's reservations are released. Units restocked at
// receipt stay in stock.
// Errors: return_not_found, invalid_return_state ({status}),
// concurrent_modification (its refund in progress).
func (s *Service) RejectReturn(ctx context.Context, in RejectInput) (*Return, error) {
	return s.changeReturn(ctx, in.ID, func(_ Tx, ex ExchangeTx, r *Return, o *Order, _ time.Time) (string, error) {
		next, err := nextReturnStatus(r, opReject)
		if err != nil {
			return "", err
		}
		if refunding(o, r.ID) {
			return "", commerce.Errorf(commerce.EConcurrentMod, "return %s: its refund is in progress", r.ID)
		}
		if id := r.cartID(); id != "" {
			if err := ex.Close(ctx, id); err != nil {
				return "", err
			}
		}
		r.Status = next
		if in.Reason != nil {
			r.RejectReason = *in.Reason
		}
		return EventReturnReject, nil
	})
}

// CancelReturn is return.cancel (admin, or the return's customer):
// REQUESTED -> CANCELLED; the exchange's reservations are released and
// its units can be returned again.
// Errors: return_not_found (also a return the caller may not see),
// invalid_return_state ({status}).
func (s *Service) CancelReturn(ctx context.Context, in ReturnInput) (*Return, error) {
	if _, err := s.ReturnInfo(ctx, in); err != nil {
		return nil, err
	}
	return s.changeReturn(ctx, in.ID, func(_ Tx, ex ExchangeTx, r *Return, _ *Order, _ time.Time) (string, error) {
		next, err := nextReturnStatus(r, opCancel)
		if err != nil {
			return "", err
		}
		if id := r.cartID(); id != "" {
			if err := ex.Close(ctx, id); err != nil {
				return "", err
			}
		}
		r.Status = next
		return EventReturnCancel, nil
	})
}

// ReturnInfo is return.info: admin, or the return's customer.
// Errors: validation_error, return_not_found (also for a return the
// caller may not see).
func (s *Service) ReturnInfo(ctx context.Context, in ReturnInput) (*Return, error) {
	if in.ID == "" {
		return nil, commerce.Invalid("id: required")
	}
	r, err := s.store.Return(ctx, in.ID)
	if err != nil {
		return nil, err
	}
	cl, _ := commerce.ClaimsFrom(ctx)
	if !mayReturn(cl, r.CustomerID) {
		return nil, ReturnNotFound(in.ID)
	}
	return r, nil
}

// ReturnList is return.list: the returns matching the filters, in
// creation order. A customer's token sees only that customer's returns
// whatever the filter says; a token with neither admin nor customerId is
// forbidden.
func (s *Service) ReturnList(ctx context.Context, in ReturnListInput) (commerce.List, error) {
	cl, _ := commerce.ClaimsFrom(ctx)
	if !cl.IsAdmin() && cl.CustomerID == "" {
		return commerce.List{}, commerce.Errorf(commerce.EForbidden, "return.list needs an admin token or a customer's")
	}
	var p commerce.Problems
	page, err := in.Page()
	p.AddErr(err)
	for _, v := range in.Status {
		if !slices.Contains(ReturnStatuses, v) {
			p.Add("status", "%q is not one of %s", v, strings.Join(ReturnStatuses, ", "))
		}
	}
	if err := p.Err(); err != nil {
		return commerce.List{}, err
	}
	f := ReturnFilter{OrderIDs: in.OrderID, CustomerIDs: in.CustomerID, Statuses: in.Status, Limit: page.Limit, Skip: page.Skip}
	if !cl.IsAdmin() {
		if len(f.CustomerIDs) > 0 && !slices.Contains(f.CustomerIDs, cl.CustomerID) {
			return commerce.List{Page: page, Data: []any{}}, nil
		}
		f.CustomerIDs = []string{cl.CustomerID}
	}
	returns, err := s.store.Returns(ctx, f)
	if err != nil {
		return commerce.List{}, fmt.Errorf("list returns: %w", err)
	}
	data := make([]any, len(returns))
	for i, r := range returns {
		data[i] = r
	}
	return commerce.List{Page: page, Data: data}, nil
}

// OrderReturns returns the returns of an order (the admin app's order
// page), in creation order.
func (s *Service) OrderReturns(ctx context.Context, orderID string) ([]*Return, error) {
	return s.store.Returns(ctx, ReturnFilter{OrderIDs: []string{orderID}, Limit: 1000})
}

// CustomerReturns returns every return of a customer, in creation order
// (customer.export).
func (s *Service) CustomerReturns(ctx context.Context, customerID string) ([]*Return, error) {
	const page = 500
	var out []*Return
	for skip := 0; ; skip += page {
		rs, err := s.store.Returns(ctx, ReturnFilter{CustomerIDs: []string{customerID}, Limit: page, Skip: skip})
		if err != nil {
			return nil, err
		}
		out = append(out, rs...)
		if len(rs) < page {
			return out, nil
		}
	}
}

// refunding reports whether a refund of the return id is pending on the
// order.
func refunding(o *Order, id string) bool {
	return slices.ContainsFunc(o.Pending, func(x *Operation) bool { return x.Return == id })
}

// emitReturn queues an event on RETURNS with the payload {return}.
func emitReturn(tx Tx, typ string, now time.Time, r *Return) error {
	return event.Emit(tx, event.Returns, typ, now, map[string]any{"return": r})
}
