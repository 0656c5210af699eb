package order

import (
	"context"
	"fmt"
	"time"

	"github.com/commercekit/commerce/payment"
)

var _ payment.Notifications = (*Service)(nil)

// EventUpdate is the type of the ORDERS event of a payment change a
// provider reported (voided or failed) that none of the operations'
// types names.
const EventUpdate = "UPDATE"

// Apply implements payment.Notifications: a provider's report of a
// payment change is applied to the order whose payment has the
// reference, once per event id (recorded in the same transaction). The
// payment's status follows (CAPTURED, VOIDED, FAILED, REFUNDED or
// PARTIALLY_REFUNDED), the order's paymentStatus with it (unchanged after
// a failure), its status never. A reference no order has is ignored; so
// is a report of what a payment operation of the service still in
// progress does (that operation records it). The outcome tells which:
// Applied, Duplicate (the event id was seen before) or Ignored.
func (s *Service) Apply(ctx context.Context, n payment.Notification) (payment.Outcome, error) {
	id, err := s.store.OrderIDByPayment(ctx, n.Provider, n.Reference)
	if err != nil {
		return 0, fmt.Errorf("payment notification %s: %w", n.EventID, err)
	}
	if id == "" {
		return payment.Ignored, nil
	}
	var seen bool
	typ := ""
	_, err = s.change(ctx, id, func(tx Tx, o *Order, _ time.Time) (string, error) {
		var err error
		if seen, err = tx.SeeNotification(ctx, n.Provider, n.EventID); err != nil || seen {
			return "", err
		}
		typ = notified(o, n)
		return typ, nil
	})
	switch {
	case err != nil:
		return 0, fmt.Errorf("payment notification %s: %w", n.EventID, err)
	case seen:
		return payment.Duplicate, nil
	case typ == "":
		return payment.Ignored, nil
	}
	return payment.Applied, nil
}

// notified applies n, a notification not seen before, to o and returns
// the type of the event of the change ("" when nothing changes).
func notified(o *Order, n payment.Notification) string {
	p := o.Payment()
	if p == nil {
		return ""
	}
	o.keepStatus = true
	// A report of what an operation of ours in progress is doing is
	// left to that operation, which records it when it finishes
	// (applying both would count a refund twice).
	switch {
	case n.Kind == payment.NotifyCaptured && pendingKind(o, OpCapture),
		n.Kind == payment.NotifyVoided && pendingKind(o, OpCancel),
		n.Kind == payment.NotifyRefunded && (pendingKind(o, OpRefund) || pendingKind(o, OpCancel)):
		return ""
	}
	switch n.Kind {
	case payment.NotifyCaptured:
		if p.Status != PayAuthorized && p.Status != PayFailed {
			return ""
		}
		amount := n.Amount
		if amount <= 0 {
			amount = p.Amount.Amount
		}
		p.Status, p.Captured = PayCaptured, o.money(amount)
		return EventCapture
	case payment.NotifyVoided:
		if p.Status != PayAuthorized && p.Status != PayFailed {
			return ""
		}
		p.Status = PayVoided
		return EventUpdate
	case payment.NotifyFailed:
		if p.Status == PayFailed {
			return ""
		}
		p.Status = PayFailed
		return EventUpdate
	case payment.NotifyRefunded:
		if n.Amount <= p.Refunded.Amount {
			return ""
		}
		if p.Captured.Amount == 0 {
			p.Captured = p.Amount
		}
		p.Refunded = o.money(min(n.Amount, p.Captured.Amount))
		p.Status = PayPartiallyRefunded
		if p.Refunded.Amount >= p.Captured.Amount {
			p.Status = PayRefunded
		}
		return EventRefund
	}
	return ""
}
