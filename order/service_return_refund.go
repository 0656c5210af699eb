package order

import (
	"bytes"
	"context"
	"encoding/json"
	"fmt"
	"slices"
	"time"

	"github.com/commercekit/commerce"
	"github.com/commercekit/commerce/money"
	"github.com/commercekit/commerce/payment"
)

// RefundPlan is what return.refund gives back for a return, in minor
// units of the order's currency: Credit is what the received units cost
// the customer (tax included, discount deducted; plus the order's
// shipping when asked), Exchange what the exchange costs, Amount what is
// refunded (Credit less Exchange, never below 0, unless an amount is
// given), Charge what the exchange costs more than Credit (authorised
// with the payment given to return.refund).
type RefundPlan struct {
	Credit   money.Money `json:"credit"`
	Exchange money.Money `json:"exchange"`
	Amount   money.Money `json:"amount"`
	Charge   money.Money `json:"charge"`
	// items are the received units, refunded on the order's items.
	items []Quantity
}

// plan computes the refund of r, a return of o (returns are o's returns),
// with the order's shipping when shipping is set and amount (minor units)
// when given.
//
// A unit's value is its line's total (what the customer paid for the
// line: unit price x quantity, less its discount, tax included) shared
// among the line's units: the k-th refunded unit of a line of q units is
// worth floor(total x k / q) - floor(total x (k-1) / q), so that the
// units of a line add up to its total exactly, however they are returned.
// The order's shipping is refunded by one return at most.
func plan(o *Order, r *Return, returns []*Return, shipping bool, amount *int64) (RefundPlan, error) {
	refunded := map[string]int64{} // units of each item refunded by other returns
	for _, x := range returns {
		if x.ID == r.ID || x.Status != ReturnRefunded {
			continue
		}
		for _, ri := range x.Items {
			refunded[ri.ItemID] += ri.ReceivedQuantity
		}
		if shipping && x.Refund != nil && x.Refund.Shipping {
			return RefundPlan{}, commerce.Invalid(fmt.Sprintf("shipping: the order's shipping was refunded by return %s", x.Number))
		}
	}
	var credit int64
	var items []Quantity
	for _, ri := range r.Items {
		it := o.Item(ri.ItemID)
		if it == nil || ri.ReceivedQuantity == 0 || it.Quantity == 0 {
			continue
		}
		prev := refunded[ri.ItemID]
		credit += it.Total.Amount*(prev+ri.ReceivedQuantity)/it.Quantity - it.Total.Amount*prev/it.Quantity
		if left := it.Quantity - it.RefundedQuantity - pendingRefundQty(o, it.ID); left > 0 {
			items = append(items, Quantity{ItemID: it.ID, Quantity: min(ri.ReceivedQuantity, left)})
		}
	}
	if shipping {
		credit += o.Totals.Shipping.Amount
	}
	var value int64
	if r.Exchange != nil {
		value = r.Exchange.Value
	}
	refund := max(credit-value, 0)
	if amount != nil {
		refund = *amount
	}
	return RefundPlan{Credit: o.money(credit), Exchange: o.money(value), Amount: o.money(refund),
		Charge: o.money(max(value-credit, 0)), items: items}, nil
}

// RefundQuote is what return.refund of the return id would give back now,
// with or without the order's shipping: the admin app shows it to staff
// before they confirm the refund (it checks no caller: staff's pages
// only).
// Errors: return_not_found, invalid_return_state (not RECEIVED),
// validation_error (the shipping refunded already).
func (s *Service) RefundQuote(ctx context.Context, id string, shipping bool) (RefundPlan, error) {
	r, err := s.store.Return(ctx, id)
	if err != nil {
		return RefundPlan{}, err
	}
	if _, err := nextReturnStatus(r, opRefund); err != nil {
		return RefundPlan{}, err
	}
	o, err := s.store.Order(ctx, r.OrderID)
	if err != nil {
		return RefundPlan{}, err
	}
	returns, err := s.OrderReturns(ctx, o.ID)
	if err != nil {
		return RefundPlan{}, err
	}
	return plan(o, r, returns, shipping, nil)
}

// RefundReturn is return.refund (admin): RECEIVED -> REFUNDED. The amount
// (default: see plan) goes back through the order's payment as
// order.refund's does (never more than captured and not yet refunded,
// counting refunds in progress), the received units count as refunded on
// the order's items, and ORDERS REFUND is emitted with RETURNS REFUND. An
// exchange becomes a new order, checked out from the exchange's cart
// (status PLACED, exchangeOf the order's id; paymentStatus PAID when the
// exchange costs no more than the credit, else the difference is
// authorised with paymentId and paymentData).
//
// It runs as the order's payment operations do (service_payment.go):
// a first transaction checks everything, holds the exchange's units
// (out_of_stock when they can no longer be had: nothing else happens)
// and records the operation as pending on the order; the provider
// authorises the difference and refunds, outside any transaction, under
// the operation's keys; a second transaction applies it all and clears
// the operation. An operation whose provider answer was lost, or whose
// process died, is finished by return.refund asked again or by the
// recovery job, calling the provider again with the same keys (the
// effect of one call): nothing is refunded, charged or placed twice.
// Errors: validation_error, return_not_found, invalid_return_state
// ({status}), invalid_order_state (money to refund and nothing captured),
// refund_exceeds_captured ({available}), payment_required ({amount}),
// out_of_stock, payment_failed, concurrent_modification.
func (s *Service) RefundReturn(ctx context.Context, in ReturnRefundInput) (*Return, error) {
	var p commerce.Problems
	if in.ID == "" {
		p.Add("id", "required")
	}
	var given *money.Decimal
	if in.Amount != nil {
		d, problem := in.Amount.NonNegative()
		if problem != "" {
			p.Add("amount", "%s", problem)
		}
		given = &d
	}
	if b := bytes.TrimSpace(in.PaymentData); !commerce.IsNull(b) && (b[0] != '{' || !json.Valid(b)) {
		p.Add("paymentData", "must be an object")
	}
	if in.PaymentID != nil && s.payments != nil {
		if _, err := s.payments.Provider(*in.PaymentID); err != nil {
			p.AddErr(err)
		}
	}
	if err := p.Err(); err != nil {
		return nil, err
	}
	cur, err := s.store.Return(ctx, in.ID)
	if err != nil {
		return nil, err
	}
	shipping := in.Shipping != nil && *in.Shipping
	var op *Operation
	var orderID string
	err = s.update(ctx, cur.cartID() != "", func(tx Tx, ex ExchangeTx) error {
		op = nil
		now := s.clock()
		r, err := tx.LockReturn(ctx, in.ID)
		if err != nil {
			return err
		}
		o, err := tx.Lock(ctx, r.OrderID)
		if err != nil {
			return err
		}
		orderID = o.ID
		if i := slices.IndexFunc(o.Pending, func(x *Operation) bool { return x.Return == r.ID }); i >= 0 {
			if !s.stalled(o.Pending[i], now) {
				return busy(o)
			}
			op = o.Pending[i] // asked again: finish it
			return nil
		}
		if _, err := nextReturnStatus(r, opRefund); err != nil {
			return err
		}
		var amount *int64
		if given != nil {
			prec, _ := money.Precision(o.Currency)
			a, err := given.Minor(prec)
			if err != nil {
				return commerce.Invalid(fmt.Sprintf("amount: at most %d decimals for %s", prec, o.Currency))
			}
			amount = &a
		}
		returns, err := tx.OrderReturns(ctx, o.ID)
		if err != nil {
			return err
		}
		pl, err := plan(o, r, returns, shipping, amount)
		if err != nil {
			return err
		}
		if pl.Amount.Amount > 0 {
			if err := refundable(o, pl.Amount.Amount); err != nil {
				return err
			}
		}
		var charge *Charge
		if pl.Charge.Amount > 0 {
			if in.PaymentID == nil {
				return &commerce.Error{Code: commerce.EPaymentRequired, Data: map[string]any{"amount": pl.Charge},
					Message: fmt.Sprintf("return %s: the exchange costs %d more than what is returned", r.ID, pl.Charge.Amount)}
			}
			charge = &Charge{Provider: *in.PaymentID, Data: in.PaymentData, Amount: pl.Charge.Amount}
		}
		if id := r.cartID(); id != "" {
			if err := ex.Hold(ctx, id); err != nil {
				return err
			}
		}
		opID := commerce.NewID()
		op = &Operation{ID: opID, Key: "order-" + o.ID + "-" + opID, Created: now, Kind: OpRefund,
			Amount: pl.Amount.Amount, Items: pl.items, Return: r.ID, Shipping: shipping, Charge: charge,
			Reason: "return " + r.Number}
		o.Pending = append(o.Pending, op)
		return tx.Save(ctx, o)
	})
	if err != nil {
		return nil, err
	}
	return s.finishReturn(ctx, orderID, op)
}

// refundable checks that amount can be refunded from the order's payment.
func refundable(o *Order, amount int64) error {
	pay := o.Payment()
	if o.Status == StatusCancelled || pay == nil || pendingKind(o, OpCancel) || pendingKind(o, OpCapture) ||
		(pay.Status != PayCaptured && pay.Status != PayPartiallyRefunded && pay.Status != PayRefunded) {
		return invalidState(o, "refund")
	}
	available := pay.Captured.Amount - pay.Refunded.Amount
	for _, x := range o.Pending {
		if x.Kind == OpRefund {
			available -= x.Amount
		}
	}
	if amount > available {
		return &commerce.Error{Code: ERefundExceedsCaptured, Data: map[string]any{"available": o.money(max(available, 0))},
			Message: fmt.Sprintf("order %s: refund of %d, %d available", o.ID, amount, available)}
	}
	return nil
}

// finishReturn makes the provider calls of the return refund op of the
// order id (the authorisation of its charge, then the refund) and applies
// them, as finish does for the order's own operations: a definite refusal
// clears the operation (an authorisation made for it is voided) and is
// returned; an unknown outcome leaves it pending, Unsettled, for a retry
// or the recovery job.
func (s *Service) finishReturn(ctx context.Context, orderID string, op *Operation) (*Return, error) {
	o, err := s.store.Order(ctx, orderID)
	if err != nil {
		return nil, err
	}
	var rec *payment.Record
	var prov payment.Provider
	callErr := func() error {
		if c := op.Charge; c != nil {
			if prov, err = s.payments.Provider(c.Provider); err != nil {
				return err
			}
			prec, _ := money.Precision(o.Currency)
			a, err := prov.Authorize(ctx, payment.AuthorizeRequest{IdempotencyKey: op.Key + ":exchange", CustomerID: o.CustomerID,
				Amount: c.Amount, Currency: o.Currency, Precision: prec, Data: c.Data})
			if err != nil {
				return err
			}
			r := payment.NewRecord(c.Provider, a)
			rec = &r
		}
		_, err := s.call(ctx, o, op)
		return err
	}()
	unknown := payment.Uncertain(callErr) || (callErr != nil && ctx.Err() != nil)
	wctx := context.WithoutCancel(ctx)
	if callErr != nil && !unknown && rec != nil {
		// The refund was refused after the difference was authorised:
		// that authorisation goes.
		if _, err := prov.Void(wctx, payment.VoidRequest{IdempotencyKey: op.Key + ":exchange:void", Reference: rec.Authorization}); err != nil {
			s.logger().Error("return refund refused and the exchange's authorisation could not be voided: void it with the provider",
				"order", o.ID, "provider", op.Charge.Provider, "reference", rec.Authorization, "err", err)
		}
	}
	var out *Return
	cur, err := s.store.Return(wctx, op.Return)
	if err != nil {
		return nil, err
	}
	err = s.update(wctx, cur.cartID() != "", func(tx Tx, ex ExchangeTx) error {
		out = nil
		now := s.clock()
		// The return first, then its order, as every change of a return
		// locks them (two transactions never wait for each other's).
		r, err := tx.LockReturn(wctx, op.Return)
		if err != nil {
			return err
		}
		o, err := tx.Lock(wctx, orderID)
		if err != nil {
			return err
		}
		pending := o.PendingOp(op.ID)
		if pending == nil {
			return nil // finished meanwhile (by a retry or the recovery job)
		}
		if unknown {
			if pending.Unsettled {
				return nil
			}
			pending.Unsettled = true
			return tx.Save(wctx, o)
		}
		o.Pending = slices.DeleteFunc(o.Pending, func(x *Operation) bool { return x.ID == op.ID })
		if callErr != nil {
			return tx.Save(wctx, o)
		}
		out, err = s.applyReturnRefund(wctx, tx, ex, o, r, pending, rec, now)
		return err
	})
	if callErr != nil {
		if err != nil {
			s.logger().Error("return refund: could not record its outcome", "order", orderID, "operation", op.ID, "err", err)
		}
		return nil, callErr
	}
	if err != nil {
		return nil, err
	}
	if out == nil { // finished by another: the return as it stands
		return s.store.Return(wctx, op.Return)
	}
	return out, nil
}

// applyReturnRefund applies a finished return refund op to the locked
// order o and return r: the payment's refund (ORDERS REFUND, when there
// is money), the exchange's order, the return REFUNDED (RETURNS REFUND).
func (s *Service) applyReturnRefund(ctx context.Context, tx Tx, ex ExchangeTx, o *Order, r *Return, op *Operation,
	rec *payment.Record, now time.Time) (*Return, error) {
	if op.Amount > 0 {
		p := o.Payment()
		p.Refunded = o.money(p.Refunded.Amount + op.Amount)
		p.Status = PayPartiallyRefunded
		if p.Refunded.Amount >= p.Captured.Amount {
			p.Status = PayRefunded
		}
		items := []Quantity{}
		for _, q := range op.Items {
			if it := o.Item(q.ItemID); it != nil {
				it.RefundedQuantity += q.Quantity
				items = append(items, q)
			}
		}
		o.Refunds = append(o.Refunds, &Refund{ID: op.ID, Amount: o.money(op.Amount), Reason: op.Reason, Items: items, CreatedAt: now})
	}
	o.refresh()
	o.Version++
	o.UpdatedAt = now
	if err := tx.Save(ctx, o); err != nil {
		return nil, err
	}
	if op.Amount > 0 {
		if err := emit(tx, EventRefund, now, o); err != nil {
			return nil, err
		}
	}
	if x := r.Exchange; x != nil && x.CartID != "" {
		placed, err := ex.Place(ctx, x.CartID, Placement{ExchangeOf: o.ID, Email: o.Email, SKUs: x.SKUs, Payment: rec, Now: now})
		if err != nil {
			return nil, err
		}
		x.OrderID = placed.ID
	}
	r.Status = ReturnRefunded
	r.Refund = &ReturnRefund{Amount: o.money(op.Amount), Shipping: op.Shipping}
	r.Version++
	r.UpdatedAt = now
	if err := tx.SaveReturn(ctx, r); err != nil {
		return nil, err
	}
	return r, emitReturn(tx, EventReturnRefund, now, r)
}
