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
// progress does (that operation records it).
func (s *Service) Apply(ctx context.Context, n payment.Notification) error {
	id, err := s.store.OrderIDByPayment(ctx, n.Provider, n.Reference)
	if err != nil {
		return fmt.Errorf("payment notification %s: %w", n.EventID, err)
	}
	if id == "" {
		return nil
	}
	_, err = s.change(ctx, id, func(tx Tx, o *Order, _ time.Time) (string, error) {
		seen, err := tx.SeeNotification(ctx, n.Provider, n.EventID)
		if err != nil || seen {
			return "", err
		}
		p := o.Payment()
		if p == nil {
			return "", nil
		}
		o.keepStatus = true
		// A report of what an operation of ours in progress is doing is
		// left to that operation, which records it when it finishes
		// (applying both would count a refund twice).
		switch {
		case n.Kind == payment.NotifyCaptured && pendingKind(o, OpCapture),
			n.Kind == payment.NotifyVoided && pendingKind(o, OpCancel),
			n.Kind == payment.NotifyRefunded && (pendingKind(o, OpRefund) || pendingKind(o, OpCancel)):
			return "", nil
		}
		switch n.Kind {
		case payment.NotifyCaptured:
			if p.Status != PayAuthorized && p.Status != PayFailed {
				return "", nil
			}
			amount := n.Amount
			if amount <= 0 {
				amount = p.Amount.Amount
			}
			p.Status, p.Captured = PayCaptured, o.money(amount)
			return EventCapture, nil
		case payment.NotifyVoided:
			if p.Status != PayAuthorized && p.Status != PayFailed {
				return "", nil
			}
			p.Status = PayVoided
			return EventUpdate, nil
		case payment.NotifyFailed:
			if p.Status == PayFailed {
				return "", nil
			}
			p.Status = PayFailed
			return EventUpdate, nil
		case payment.NotifyRefunded:
			if n.Amount <= p.Refunded.Amount {
				return "", nil
			}
			if p.Captured.Amount == 0 {
				p.Captured = p.Amount
			}
			p.Refunded = o.money(min(n.Amount, p.Captured.Amount))
			p.Status = PayPartiallyRefunded
			if p.Refunded.Amount >= p.Captured.Amount {
				p.Status = PayRefunded
			}
			return EventRefund, nil
		}
		return "", nil
	})
	if err != nil {
		return fmt.Errorf("payment notification %s: %w", n.EventID, err)
	}
	return nil
}
