package order

import (
	"context"
	"errors"
	"fmt"
	"log/slog"
	"slices"
	"time"

	"github.com/commercekit/commerce"
	"github.com/commercekit/commerce/payment"
	"github.com/commercekit/commerce/stock"
)

// Capture is order.capture (admin): the whole authorised amount is
// captured; paymentStatus PAID.
// Errors: order_not_found, invalid_order_state (not AUTHORIZED, cancelled,
// a capture or cancel in progress), payment_failed (nothing changes).
func (s *Service) Capture(ctx context.Context, in CaptureInput) (*Order, error) {
	same := func(_ *Order, x *Operation) bool { return x.Kind == OpCapture }
	return s.paymentOp(ctx, in.ID, same, func(o *Order, op *Operation) error {
		p := o.Payment()
		if o.Status != StatusPlaced || p == nil || o.PaymentStatus != PaymentAuthorized || p.Status != PayAuthorized ||
			pendingKind(o, OpCapture) || pendingKind(o, OpCancel) {
			return invalidState(o, "capture")
		}
		op.Kind, op.Amount = OpCapture, p.Amount.Amount
		return nil
	})
}

// Cancel is order.cancel (admin, the order's customer, or for an ANON
// order any token that may read it): allowed while the order is PLACED
// and nothing is shipped. The unshipped units go back to their
// warehouses, an authorised payment is voided and a captured one refunded
// in full; status CANCELLED.
// Errors: order_not_found, invalid_order_state, concurrent_modification
// (a capture or refund in progress), payment_failed (nothing changes).
func (s *Service) Cancel(ctx context.Context, in CancelInput) (*Order, error) {
	if err := s.readable(ctx, in.ID); err != nil {
		return nil, err
	}
	same := func(_ *Order, x *Operation) bool { return x.Kind == OpCancel }
	return s.paymentOp(ctx, in.ID, same, func(o *Order, op *Operation) error {
		if o.Status != StatusPlaced || o.shipped() || pendingKind(o, OpCancel) {
			return invalidState(o, "cancel")
		}
		if len(o.Pending) > 0 {
			return busy(o)
		}
		op.Kind = OpCancel
		if in.Reason != nil {
			op.Reason = *in.Reason
		}
		if p := o.Payment(); p != nil {
			switch p.Status {
			case PayAuthorized:
				op.Void = true
			case PayCaptured, PayPartiallyRefunded:
				op.Amount = p.Captured.Amount - p.Refunded.Amount
			}
		}
		return nil
	})
}

// Refund is order.refund (admin): refunds amount (major units, > 0) of
// the captured payment, never more than captured and not yet refunded
// (counting refunds in progress); with restock the items' quantities go
// back to stock.
// Errors: order_not_found, validation_error, invalid_order_state (nothing
// captured, cancelled), refund_exceeds_captured ({available}),
// payment_failed (nothing changes).
func (s *Service) Refund(ctx context.Context, in RefundInput) (*Order, error) {
	var p commerce.Problems
	if in.ID == "" {
		p.Add("id", "required")
	}
	d, problem := in.Amount.NonNegative()
	if problem == "" && d.Units == 0 {
		problem = "must be greater than 0"
	}
	if problem != "" {
		p.Add("amount", "%s", problem)
	}
	checkItems(&p, in.Items)
	if err := p.Err(); err != nil {
		return nil, err
	}
	restock := in.Restock != nil && *in.Restock
	items := make([]Quantity, 0, len(in.Items))
	for _, q := range in.Items {
		items = append(items, Quantity(q))
	}
	// The same refund: the same amount of the same items, restocked or
	// not (the reason may differ).
	same := func(o *Order, x *Operation) bool {
		if x.Kind != OpRefund || x.Restock != restock || !slices.Equal(x.Items, items) {
			return false
		}
		prec, err := precision(o)
		if err != nil {
			return false
		}
		amount, err := d.Minor(prec)
		return err == nil && x.Amount == amount
	}
	return s.paymentOp(ctx, in.ID, same, func(o *Order, op *Operation) error {
		prec, err := precision(o)
		if err != nil {
			return err
		}
		amount, err := d.Minor(prec)
		if err != nil {
			return commerce.Invalid(fmt.Sprintf("amount: at most %d decimals for %s", prec, o.Currency))
		}
		var p commerce.Problems
		want := map[string]int64{}
		for i, q := range in.Items {
			it := o.Item(q.ItemID)
			if it == nil {
				p.Add(fmt.Sprintf("items[%d].itemId", i), "no item %s in the order", q.ItemID)
				continue
			}
			want[q.ItemID] += q.Quantity
			if left := it.Quantity - it.RefundedQuantity - pendingRefundQty(o, it.ID); want[q.ItemID] > left {
				p.Add(fmt.Sprintf("items[%d].quantity", i), "at most %d units of item %s are left to refund", left, it.ID)
			}
		}
		if err := p.Err(); err != nil {
			return err
		}
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
		op.Kind, op.Amount = OpRefund, amount
		if len(items) > 0 {
			op.Items = items
		}
		op.Restock = restock
		if in.Reason != nil {
			op.Reason = *in.Reason
		}
		return nil
	})
}

func precision(o *Order) (int, error) {
	if p := o.Payment(); p != nil {
		return p.Amount.Precision, nil
	}
	return o.Totals.Total.Precision, nil
}

func pendingRefundQty(o *Order, itemID string) int64 {
	var n int64
	for _, op := range o.Pending {
		if op.Kind == OpRefund {
			for _, q := range op.Items {
				if q.ItemID == itemID {
					n += q.Quantity
				}
			}
		}
	}
	return n
}

// paymentOp runs a payment operation in two phases: begin (in a
// transaction that locks the order) checks the state and fills the
// operation, which is recorded as pending; then finish calls the provider
// and applies the result.
//
// A pending operation whose outcome is unknown (the provider failed to
// answer, or its request ended; see stalled) for which same is true is
// the operation asked again (an admin retrying after payment_failed with
// code provider_error): it is finished (the provider called again with
// its idempotency key, which has the effect of one call) instead of a
// second operation begun, so that a retry never refunds, captures or
// voids twice.
func (s *Service) paymentOp(ctx context.Context, id string, same func(o *Order, x *Operation) bool,
	begin func(o *Order, op *Operation) error) (*Order, error) {
	if id == "" {
		return nil, commerce.Invalid("id: required")
	}
	var op *Operation
	o, err := s.change(ctx, id, func(_ Tx, o *Order, now time.Time) (string, error) {
		op = nil
		for _, x := range o.Pending {
			if s.stalled(x, now) && x.Return == "" && same(o, x) { // a return's refund is finished by its own
				op = x
				return "", nil
			}
		}
		opID := commerce.NewID()
		op = &Operation{ID: opID, Key: "order-" + o.ID + "-" + opID, Created: now}
		if err := begin(o, op); err != nil {
			return "", err
		}
		o.Pending = append(o.Pending, op)
		return internalChange, nil
	})
	if err != nil {
		return nil, err
	}
	return s.finish(ctx, o, op)
}

// stalled reports whether the pending operation x is known to be in no
// request's hands: its provider call's outcome is unknown (Unsettled), or
// it is older than any request (RecoverAfter: its process died).
func (s *Service) stalled(x *Operation, now time.Time) bool {
	return x.Unsettled || !x.Created.After(now.Add(-s.recoverAfter()))
}

// finish calls the provider for the pending operation op of o and
// applies the result in a transaction, even when ctx ends meanwhile (a
// client that goes away after the provider acted still gets the change
// recorded). A definite answer of the provider clears the operation: a
// success is applied; a refusal (see payment.Uncertain) changes nothing
// else and is returned. An unknown outcome (payment_failed with code
// provider_error: a timeout, a reset connection, a 5xx; or ctx ended
// during the call) leaves the operation pending, marked Unsettled, for
// the same operation asked again (paymentOp) or the recovery job, which
// call the provider again with the same key; its error is returned.
func (s *Service) finish(ctx context.Context, o *Order, op *Operation) (*Order, error) {
	rec, callErr := s.call(ctx, o, op)
	unknown := payment.Uncertain(callErr) || (callErr != nil && ctx.Err() != nil)
	wctx := context.WithoutCancel(ctx)
	out, err := s.change(wctx, o.ID, func(tx Tx, o *Order, now time.Time) (string, error) {
		cur := o.PendingOp(op.ID)
		if cur == nil {
			return "", nil // finished meanwhile (by a retry or the recovery job)
		}
		if unknown {
			if cur.Unsettled {
				return "", nil
			}
			cur.Unsettled = true
			return internalChange, nil
		}
		o.Pending = slices.DeleteFunc(o.Pending, func(x *Operation) bool { return x.ID == op.ID })
		if callErr != nil {
			return internalChange, nil
		}
		return apply(wctx, tx, o, cur, rec, now)
	})
	if callErr != nil {
		if err != nil {
			s.logger().Error("payment operation: could not record its outcome", "order", o.ID, "operation", op.ID, "err", err)
		}
		return nil, callErr
	}
	return out, err
}

// call makes the provider call of op.
func (s *Service) call(ctx context.Context, o *Order, op *Operation) (payment.Receipt, error) {
	p := o.Payment()
	if p == nil {
		return payment.Receipt{}, nil
	}
	prov, err := s.payments.Provider(p.Provider)
	if err != nil {
		return payment.Receipt{}, commerce.Errorf(commerce.EInternal, "order %s: payment provider %s: %w", o.ID, p.Provider, err)
	}
	switch {
	case op.Kind == OpCapture:
		return prov.Capture(ctx, payment.CaptureRequest{IdempotencyKey: op.Key, Reference: p.Reference, Amount: op.Amount, Currency: o.Currency})
	case op.Kind == OpCancel && op.Void:
		return prov.Void(ctx, payment.VoidRequest{IdempotencyKey: op.Key, Reference: p.Reference})
	case op.Amount > 0: // a refund, or the cancel of a captured payment
		return prov.Refund(ctx, payment.RefundRequest{IdempotencyKey: op.Key, Reference: p.Reference, Amount: op.Amount,
			Currency: o.Currency, Reason: op.Reason})
	}
	return payment.Receipt{}, nil
}

// apply applies the finished operation op to o in tx and returns the
// event type.
func apply(ctx context.Context, tx Tx, o *Order, op *Operation, _ payment.Receipt, now time.Time) (string, error) {
	p := o.Payment()
	switch op.Kind {
	case OpCapture:
		p.Status, p.Captured = PayCaptured, o.money(op.Amount)
		return EventCapture, nil
	case OpCancel:
		for _, it := range o.Items {
			if err := restock(ctx, tx.Stock(), it, it.Quantity-it.ShippedQuantity-it.Restocked); err != nil {
				return "", err
			}
		}
		// The uses of coupons and limited promotions come back
		// (docs/api.md section 16).
		if _, err := tx.Promotions().ReleaseRedemptions(ctx, o.CartID); err != nil {
			return "", err
		}
		if p != nil {
			switch {
			case op.Void:
				p.Status = PayVoided
			case op.Amount > 0:
				p.Refunded = o.money(p.Refunded.Amount + op.Amount)
				p.Status = PayRefunded
			}
		}
		o.Status = StatusCancelled
		return EventCancel, nil
	case OpRefund:
		p.Refunded = o.money(p.Refunded.Amount + op.Amount)
		p.Status = PayPartiallyRefunded
		if p.Refunded.Amount >= p.Captured.Amount {
			p.Status = PayRefunded
		}
		items := []Quantity{}
		for _, q := range op.Items {
			it := o.Item(q.ItemID)
			it.RefundedQuantity += q.Quantity
			items = append(items, q)
			if op.Restock {
				if err := restock(ctx, tx.Stock(), it, q.Quantity); err != nil {
					return "", err
				}
			}
		}
		o.Refunds = append(o.Refunds, &Refund{ID: op.ID, Amount: o.money(op.Amount), Reason: op.Reason, Items: items, CreatedAt: now})
		return EventRefund, nil
	}
	return "", commerce.Errorf(commerce.EInternal, "order %s: unknown operation %q", o.ID, op.Kind)
}

// restock gives n units of the item back to the warehouses they were
// taken from (in the order of its allocations, after those already given
// back). Units beyond the allocations (UNLIMITED stock), and units of a
// record removed since (product.remove removes the product's stock), go
// nowhere.
func restock(ctx context.Context, st stock.Tx, it *Item, n int64) error {
	skip := it.Restocked
	for _, a := range it.Allocations {
		if n <= 0 {
			break
		}
		q := a.Quantity
		if skip >= q {
			skip -= q
			continue
		}
		q -= skip
		skip = 0
		k := min(q, n)
		key := stock.Key{ProductID: it.ProductID, WarehouseID: a.WarehouseID}
		rec, err := st.Lock(ctx, key)
		switch {
		case commerce.ErrorCode(err) == commerce.EStockNotFound:
		case err != nil:
			return fmt.Errorf("restock %s in %s: %w", it.ProductID, a.WarehouseID, err)
		default:
			if _, err := st.SetQuantity(ctx, key, rec.Quantity+k); err != nil {
				return fmt.Errorf("restock %s in %s: %w", it.ProductID, a.WarehouseID, err)
			}
		}
		it.Restocked += k
		n -= k
	}
	return nil
}

// recoverBatch is how many orders one recovery round finishes at most.
const recoverBatch = 100

// Recover finishes the payment operations begun at least RecoverAfter
// ago and never finished (their request ended before, the provider's
// answer was lost, or the process died): the provider is called again
// with the operation's key (the effect of one call) and the result
// applied. A refusal clears the operation; an unknown outcome or another
// failure leaves it for the next round. It returns how many operations it
// finished.
func (s *Service) Recover(ctx context.Context) (int, error) {
	after := s.recoverAfter()
	ids, err := s.store.PendingSince(ctx, s.clock().Add(-after), recoverBatch)
	if err != nil {
		return 0, fmt.Errorf("recover payment operations: %w", err)
	}
	done := 0
	var errs []error
	for _, id := range ids {
		o, err := s.store.Order(ctx, id)
		if err != nil {
			errs = append(errs, err)
			continue
		}
		for _, op := range o.Pending {
			if op.Created.After(s.clock().Add(-after)) {
				continue
			}
			var err error
			if op.Return != "" {
				_, err = s.finishReturn(ctx, o.ID, op)
			} else {
				_, err = s.finish(ctx, o, op)
			}
			if err != nil && (payment.Uncertain(err) || commerce.ErrorCode(err) != commerce.EPaymentFailed) {
				errs = append(errs, fmt.Errorf("order %s, operation %s: %w", o.ID, op.ID, err))
				continue
			}
			done++ // applied, or refused and cleared
		}
	}
	return done, errors.Join(errs...)
}

func (s *Service) recoverAfter() time.Duration {
	if s.RecoverAfter == 0 {
		return DefaultRecoverAfter
	}
	return s.RecoverAfter
}

// Run runs Recover and RecoverCheckouts every interval until ctx ends,
// logging failures.
func (s *Service) Run(ctx context.Context, interval time.Duration, logger *slog.Logger) {
	if interval <= 0 {
		interval = 30 * time.Second
	}
	if logger == nil {
		logger = s.logger()
	}
	t := time.NewTicker(interval)
	defer t.Stop()
	for {
		select {
		case <-ctx.Done():
			return
		case <-t.C:
		}
		if n, err := s.Recover(ctx); err != nil && ctx.Err() == nil {
			logger.Error("order payment recovery", "finished", n, "err", err)
		} else if n > 0 {
			logger.Info("order payment recovery", "finished", n)
		}
		if n, err := s.RecoverCheckouts(ctx); err != nil && ctx.Err() == nil {
			logger.Error("checkout recovery", "voided", n, "err", err)
		}
	}
}
