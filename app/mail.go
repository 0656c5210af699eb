package app

import (
	"context"
	"crypto/rand"

	"github.com/commercekit/commerce/customer"
	"github.com/commercekit/commerce/mail"
	"github.com/commercekit/commerce/order"
	"github.com/commercekit/commerce/rpc"
	"github.com/commercekit/commerce/sqldb"
	"github.com/commercekit/commerce/webhook"
)

// mailArea assembles the email area (docs/api.md section 22): before the
// customer area, which queues the password-reset message through it.
func mailArea(a *App) error {
	key := a.opts.WebhookKey
	if len(key) == 0 {
		key = make([]byte, 32)
		rand.Read(key)
	}
	// The key sealing reset tokens in stored messages is derived from
	// the JWT secret as the webhooks' is, from another input, so that
	// the two keys differ.
	sealer, err := webhook.NewSealer(append([]byte("commerce mail secrets v1\x00"), key...))
	if err != nil {
		return err
	}
	r, err := mail.NewRenderer(a.opts.MailTemplates)
	if err != nil {
		return err
	}
	retry := a.opts.MailRetry
	if retry == nil {
		retry = webhook.DefaultRetry
	}
	a.Mail, err = mail.NewService(sqldb.NewMailStore(a.db), sqldb.NewOrderStore(a.db), recipients{sqldb.NewCustomerStore(a.db)}, a.now,
		mail.Config{Sender: a.opts.MailSender, From: a.opts.MailFrom, Renderer: r, Sealer: sealer, Retry: retry,
			Shop: mail.Shop{Name: a.opts.ShopName, URL: a.opts.StorefrontURL}, Lease: a.opts.MailLease, Poll: a.opts.MailPoll})
	if err != nil {
		return err
	}
	rpc.RegisterMail(a.srv, a.Mail)
	return nil
}

// recipients reads customers for the mail area.
type recipients struct{ store customer.Store }

// Recipient implements mail.Customers.
func (r recipients) Recipient(ctx context.Context, id string) (mail.Recipient, error) {
	c, err := r.store.Customer(ctx, id) // customer_not_found, data the id
	if err != nil {
		return mail.Recipient{}, err
	}
	return mail.Recipient{ID: c.ID, Email: c.Email, FirstName: c.FirstName, Locale: c.Locale}, nil
}

// runMail queues and sends email until ctx ends.
func (a *App) runMail(ctx context.Context) {
	if a.Mail != nil {
		a.Mail.Run(ctx, a.db.Notify(), a.logger)
	}
}

// mailExport gives customer.export the messages sent to a customer.
type mailExport struct{ mail *mail.Service }

// Export implements customer.Exporter.
func (x mailExport) Export(ctx context.Context, c *customer.Customer) ([]any, error) {
	ms, err := x.mail.Customer(ctx, c.ID, c.Email)
	if err != nil {
		return nil, err
	}
	out := make([]any, len(ms))
	for i := range ms {
		out[i] = ms[i]
	}
	return out, nil
}

// returnsExport gives customer.export a customer's returns.
type returnsExport struct{ orders *order.Service }

// Export implements customer.Exporter.
func (x returnsExport) Export(ctx context.Context, c *customer.Customer) ([]any, error) {
	rs, err := x.orders.CustomerReturns(ctx, c.ID)
	if err != nil {
		return nil, err
	}
	out := make([]any, len(rs))
	for i, r := range rs {
		out[i] = r
	}
	return out, nil
}
