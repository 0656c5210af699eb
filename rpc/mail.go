package rpc

import (
	"context"

	"github.com/commercekit/commerce"
	"github.com/commercekit/commerce/mail"
)

// mailList is the answer of mail.list, for /openapi.json.
type mailList struct {
	Page commerce.Page `json:"page"`
	Data []mail.Mail   `json:"data"`
}

type mailResult struct {
	Mail mail.Mail `json:"mail"`
}

type mailFullResult struct {
	Mail mail.Full `json:"mail"`
}

type previewResult struct {
	Subject string `json:"subject"`
	Text    string `json:"text"`
	HTML    string `json:"html"`
}

// RegisterMail registers the email operations under /mail/v1/, all admin
// only (docs/api.md section 22): mail.list and mail.info (read: GET or
// POST), mail.resend and mail.preview.
func RegisterMail(s *Server, svc *mail.Service) {
	Handle(s, Op{Service: "mail", Name: "mail.list", Read: true, Admin: true, Result: mailList{},
		Doc: "Messages in creation order, of one address, template and status when given, a page at a time (no bodies)."},
		func(ctx context.Context, a *mail.ListInput) (any, error) {
			return svc.List(ctx, *a)
		})
	Handle(s, Op{Service: "mail", Name: "mail.info", Read: true, Admin: true, Result: mailFullResult{},
		Doc:    "A message with its text and HTML (a password-reset or invitation token in them shows as [redacted]).",
		Errors: []string{commerce.EMailNotFound}},
		func(ctx context.Context, a *mail.InfoInput) (any, error) {
			m, err := svc.Info(ctx, *a)
			if err != nil {
				return nil, err
			}
			return mailFullResult{m}, nil
		})
	Handle(s, Op{Service: "mail", Name: "mail.resend", Admin: true, Result: mailResult{},
		Doc: "Queues a new message to the same address with the same content.", Errors: []string{commerce.EMailNotFound}},
		func(ctx context.Context, a *mail.ResendInput) (any, error) {
			m, err := svc.Resend(ctx, *a)
			if err != nil {
				return nil, err
			}
			return mailResult{m}, nil
		})
	Handle(s, Op{Service: "mail", Name: "mail.preview", Admin: true, Result: previewResult{},
		Doc:    "Renders a template with a real order (orderId) or customer (customerId) and sends nothing.",
		Errors: []string{commerce.EOrderNotFound, commerce.ECustomerNotFound}},
		func(ctx context.Context, a *mail.PreviewInput) (any, error) {
			r, err := svc.Preview(ctx, *a)
			if err != nil {
				return nil, err
			}
			return previewResult{Subject: r.Subject, Text: r.Text, HTML: r.HTML}, nil
		})
}
