package mail

import (
	"context"
	"encoding/json"
	"fmt"
	"slices"
	"strings"
	"time"

	"github.com/commercekit/commerce"
	"github.com/commercekit/commerce/event"
	"github.com/commercekit/commerce/money"
	"github.com/commercekit/commerce/order"
)

// Order event types that send mail (the order area's own types).
var orderTemplates = map[string]string{
	event.Create: OrderConfirmation,
	"FULFILL":    OrderShipped,
	"REFUND":     OrderRefunded,
	"CANCEL":     OrderCancelled,
}

// FollowedChannels are the channels whose events may cause a message
// (the follower reads their payloads); the events of RETURNS (REQUEST,
// RECEIVE, REFUND, REJECT, CANCEL, payload {return}) send return_update.
var FollowedChannels = []string{event.Orders, event.Customers, event.Returns}

// orderPayload is what the follower reads of an ORDERS event: {order},
// with the order's locale once section 27 gives orders one.
type orderPayload struct {
	Order *order.Order `json:"order"`
}

type localePayload struct {
	Order struct {
		Locale string `json:"locale"`
	} `json:"order"`
}

// Build returns the messages an event causes (the outbox follower calls
// it for every event, in log order, and stores what it returns). Each
// message's id is EventMessageID(event, template), so that building an
// event again gives the same message. An event whose recipient is unknown
// or erased causes none.
func (s *Service) Build(ctx context.Context, e event.Event) ([]Message, error) {
	switch e.Channel {
	case event.Orders:
		t, ok := orderTemplates[e.Type]
		if !ok {
			return nil, nil
		}
		var p orderPayload
		var lp localePayload
		if err := json.Unmarshal(e.Payload, &p); err != nil || p.Order == nil {
			return nil, nil // not an order event as this version knows them
		}
		_ = json.Unmarshal(e.Payload, &lp)
		d, locale, ok := s.orderData(p.Order, t, lp.Order.Locale)
		if !ok {
			return nil, nil
		}
		return s.built(e, t, locale, customerOf(p.Order), d)
	case event.Customers:
		if e.Type != event.Create {
			return nil, nil
		}
		var p struct {
			Customer struct {
				ID, Email, FirstName, Locale string
			} `json:"customer"`
		}
		if err := json.Unmarshal(e.Payload, &p); err != nil || !deliverable(p.Customer.Email) {
			return nil, nil
		}
		c := p.Customer
		locale := s.cfg.Renderer.Locale(c.Locale)
		d := &Data{Shop: s.cfg.Shop, To: commerce.EmailKey(c.Email), Name: c.FirstName}
		return s.built(e, Welcome, locale, c.ID, d)
	case event.Returns:
		var p struct {
			Return *ReturnRecord `json:"return"`
		}
		if err := json.Unmarshal(e.Payload, &p); err != nil || p.Return == nil {
			return nil, nil
		}
		o, err := s.orders.Order(ctx, p.Return.OrderID)
		if commerce.ErrorCode(err) == commerce.EOrderNotFound {
			return nil, nil
		}
		if err != nil {
			return nil, err
		}
		d, locale, ok := s.orderData(o, ReturnUpdate, "")
		if !ok {
			return nil, nil
		}
		d.Return = returnView(o, p.Return, locale)
		return s.built(e, ReturnUpdate, locale, customerOf(o), d)
	}
	return nil, nil
}

// built renders the template of an event's message. A template that
// fails with this event's data gives a FAILED message saying why (shown
// by mail.list and the admin app), rather than an error that would stop
// the follower at this event for good.
func (s *Service) built(e event.Event, template, locale, customerID string, d *Data) ([]Message, error) {
	id := EventMessageID(e.ID, template)
	out, err := s.cfg.Renderer.Render(template, locale, d)
	if err != nil {
		m := s.message(id, d.To, template, locale, e.ID, customerID, Rendered{Subject: template}, s.clock())
		msg := err.Error()
		m.Status, m.LastError = Failed, &msg
		return []Message{m}, nil
	}
	return []Message{s.message(id, d.To, template, locale, e.ID, customerID, out, s.clock())}, nil
}

// deliverable reports whether an address can be mailed (not absent, not
// erased).
func deliverable(to string) bool { return to != "" && to != Erased && strings.Contains(to, "@") }

// customerOf returns the customer an order is about, "" for a guest.
func customerOf(o *order.Order) string {
	if o.CustomerID == "ANON" {
		return ""
	}
	return o.CustomerID
}

// orderData is the data of an order's template; ok is false when the
// order has no address to mail.
func (s *Service) orderData(o *order.Order, template, locale string) (*Data, string, bool) {
	if !deliverable(o.Email) {
		return nil, "", false
	}
	locale = s.cfg.Renderer.Locale(locale)
	d := &Data{Shop: s.cfg.Shop, To: commerce.EmailKey(o.Email), Order: orderView(o, locale, s.cfg.Shop.URL)}
	if a := addressView(o.BillingAddress); a != nil && a.Name != "" {
		d.Name = strings.Fields(a.Name)[0]
	}
	switch template {
	case OrderShipped:
		if len(o.Fulfillments) > 0 {
			d.Fulfillment = fulfillmentView(o, o.Fulfillments[len(o.Fulfillments)-1])
		} else {
			d.Fulfillment = &FulfillmentView{}
		}
	case OrderRefunded:
		d.Refund = &RefundView{}
		if len(o.Refunds) > 0 {
			r := o.Refunds[len(o.Refunds)-1]
			d.Refund = &RefundView{Amount: Money(r.Amount, locale), Reason: r.Reason}
		}
	}
	return d, locale, true
}

// ReturnRecord is what return_update reads of a return (docs/api.md
// section 24's record, as its RETURNS events carry it).
type ReturnRecord struct {
	ID      string `json:"id"`
	Number  string `json:"number"`
	OrderID string `json:"orderId"`
	Status  string `json:"status"`
	Items   []struct {
		ItemID   string `json:"itemId"`
		Quantity int64  `json:"quantity"`
		Reason   string `json:"reason"`
	} `json:"items"`
	Refund *struct {
		Amount json.RawMessage `json:"amount"`
	} `json:"refund"`
}

// returnView is the view of a return of the order.
func returnView(o *order.Order, r *ReturnRecord, locale string) *ReturnView {
	v := &ReturnView{Number: r.Number, Status: r.Status}
	for _, it := range r.Items {
		v.Lines = append(v.Lines, ReturnLine{Title: itemTitle(o, it.ItemID), Quantity: it.Quantity, Reason: it.Reason})
	}
	if r.Refund != nil && r.Status == "REFUNDED" {
		var m money.Money
		if json.Unmarshal(r.Refund.Amount, &m) == nil && m.Currency != "" {
			v.Refund = Money(m, locale)
		}
	}
	return v
}

// Preview renders a template with a real order or customer and sends
// nothing (mail.preview). A password-reset or invitation link shows
// Redacted in place of its token.
func (s *Service) Preview(ctx context.Context, in PreviewInput) (Rendered, error) {
	var p commerce.Problems
	if in.Template == "" {
		p.Add("template", "required")
	} else if !slices.Contains(Templates, in.Template) {
		p.Add("template", "must be one of %s", strings.Join(Templates, ", "))
	}
	if in.Locale != "" && !slices.Contains(s.cfg.Renderer.Locales(), in.Locale) {
		p.Add("locale", "must be one of %s", strings.Join(s.cfg.Renderer.Locales(), ", "))
	}
	orderTemplate := in.Template != "" && in.Template != Welcome && in.Template != PasswordReset && in.Template != StaffInvite
	if orderTemplate && in.OrderID == "" {
		p.Add("orderId", "required for %s", in.Template)
	}
	if (in.Template == Welcome || in.Template == PasswordReset) && in.OrderID == "" && in.CustomerID == "" {
		p.Add("customerId", "required for %s (or orderId)", in.Template)
	}
	if err := p.Err(); err != nil {
		return Rendered{}, err
	}
	locale := in.Locale
	var d *Data
	switch {
	case in.Template == StaffInvite:
		locale = s.cfg.Renderer.Locale(locale)
		d = &Data{Shop: s.cfg.Shop, To: "new.staff@example.com",
			Link: &LinkView{URL: s.cfg.Shop.URL + "/admin/invite?token=" + Redacted, Expires: DateTime(s.clock().Add(72*time.Hour), locale)}}
	case in.OrderID != "":
		o, err := s.orders.Order(ctx, in.OrderID)
		if err != nil {
			return Rendered{}, err
		}
		var ok bool
		if d, locale, ok = s.orderData(o, in.Template, locale); !ok {
			d = &Data{Shop: s.cfg.Shop, To: commerce.EmailKey(o.Email), Order: orderView(o, s.cfg.Renderer.Locale(locale), s.cfg.Shop.URL)}
			locale = s.cfg.Renderer.Locale(locale)
		}
		if in.Template == ReturnUpdate {
			d.Return = sampleReturn(o)
		}
	default:
		c, err := s.customers.Recipient(ctx, in.CustomerID)
		if err != nil {
			return Rendered{}, err
		}
		if locale == "" {
			locale = c.Locale
		}
		locale = s.cfg.Renderer.Locale(locale)
		d = &Data{Shop: s.cfg.Shop, To: c.Email, Name: c.FirstName}
	}
	if in.Template == PasswordReset {
		d.Link = &LinkView{URL: s.cfg.Shop.URL + "/reset-password?token=" + Redacted, Expires: DateTime(s.clock().Add(time.Hour), locale)}
	}
	out, err := s.cfg.Renderer.Render(in.Template, locale, d)
	if err != nil {
		return Rendered{}, fmt.Errorf("preview: %w", err)
	}
	return out, nil
}

// sampleReturn is a return of the order's first item, for a preview of
// return_update before the order has one.
func sampleReturn(o *order.Order) *ReturnView {
	v := &ReturnView{Number: "R1001", Status: "RECEIVED"}
	if len(o.Items) > 0 {
		v.Lines = []ReturnLine{{Title: o.Items[0].Title, Quantity: 1, Reason: "NO_LONGER_NEEDED"}}
	}
	return v
}
