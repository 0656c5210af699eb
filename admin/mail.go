package admin

import (
	"net/http"
	"net/url"

	"github.com/commercekit/commerce"
	"github.com/commercekit/commerce/mail"
)

// mailRoutes serves the email pages when the mail area is assembled:
// the messages with their status (filters, paging), a message with its
// text and HTML and a resend button, and a preview of each template with
// a real order or customer.
func (h *Handler) mailRoutes() {
	if !h.opts.RPC.Has("mail/v1/mail.list") {
		return
	}
	h.features["mail"] = true
	a := h.authed
	h.mux.HandleFunc("GET /admin/mail", a(h.mails))
	h.mux.HandleFunc("GET /admin/mail/preview", a(h.mailPreview))
	h.mux.HandleFunc("GET /admin/mail/preview/html", a(h.mailPreviewHTML))
	h.mux.HandleFunc("GET /admin/mail/{id}", a(h.mailPage))
	h.mux.HandleFunc("GET /admin/mail/{id}/html", a(h.mailHTML))
	h.mux.HandleFunc("POST /admin/mail/{id}/resend", a(h.mailResend))
}

func (h *Handler) mails(w http.ResponseWriter, r *http.Request) {
	p := page{Title: "Mail", Nav: "mail", Data: map[string]any{"filter": r.URL.Query(), "statuses": mail.Statuses, "templates": mail.Templates}}
	rows, pg, err := h.listRows(r, "mail/v1/mail.list", nil, "to", "template", "status")
	p.Data["mails"], p.Data["pager"] = rows, pg
	p.failed(formSpec{ID: "filters", Fields: map[string]field{"to": {"f-to", "To"}, "template": {"f-template", "Template"}, "status": {"f-status", "Status"}}}, err)
	h.render(w, r, statusOf(err), "mails", p)
}

func (h *Handler) mailPage(w http.ResponseWriter, r *http.Request) {
	h.renderMail(w, r, r.PathValue("id"), nil)
}

func (h *Handler) renderMail(w http.ResponseWriter, r *http.Request, id string, actionErr error) {
	m, ok := h.record(w, r, "mail/v1/mail.info", "mail", id, page{Title: "Mail", Nav: "mail"})
	if !ok {
		return
	}
	p := page{Title: "Mail: " + str(m["subject"]), Nav: "mail", Data: map[string]any{"mail": m,
		"htmlURL": "/admin/mail/" + url.PathEscape(id) + "/html"}}
	if r.URL.Query().Get("done") == "resend" {
		p.Notice = "Queued again as this new message."
	}
	p.failed(formSpec{ID: "resend-form"}, actionErr)
	h.render(w, r, statusOf(actionErr), "mail", p)
}

// mailResend queues the message again and shows the new one.
func (h *Handler) mailResend(w http.ResponseWriter, r *http.Request) {
	id := r.PathValue("id")
	res, err := h.callOnce(r, "mail/v1/mail.resend", map[string]any{"id": id})
	if err != nil {
		h.renderMail(w, r, id, err)
		return
	}
	m, _ := res["mail"].(map[string]any)
	seeOther(w, r, "/admin/mail/"+url.PathEscape(str(m["id"]))+"?done=resend")
}

// mailHTML serves a message's HTML for the frame of its page.
func (h *Handler) mailHTML(w http.ResponseWriter, r *http.Request) {
	res, err := h.call(r, "mail/v1/mail.info", map[string]any{"id": r.PathValue("id")})
	if err != nil {
		http.Error(w, commerce.ErrorCode(err), statusOf(err))
		return
	}
	m, _ := res["mail"].(map[string]any)
	serveMailHTML(w, str(m["html"]))
}

// serveMailHTML serves an email's HTML to be shown in a frame of the
// app's own pages: a sandboxed document that may use its inline styles
// and nothing else (no script, no request anywhere).
func serveMailHTML(w http.ResponseWriter, html string) {
	hd := w.Header()
	hd.Set("Content-Security-Policy", "default-src 'none'; style-src 'unsafe-inline'; img-src data:; frame-ancestors 'self'; sandbox")
	hd.Set("X-Frame-Options", "SAMEORIGIN")
	hd.Set("Content-Type", "text/html; charset=utf-8")
	_, _ = w.Write([]byte(html))
}

// previewArgs are mail.preview's arguments from the page's query: the
// template (default order_confirmation), the locale, and the order or
// customer (default: the newest order, and the first customer).
func (h *Handler) previewArgs(r *http.Request) (map[string]any, url.Values) {
	q := r.URL.Query()
	f := url.Values{"template": {q.Get("template")}, "locale": {q.Get("locale")}, "orderId": {q.Get("orderId")}, "customerId": {q.Get("customerId")}}
	if f.Get("template") == "" {
		f.Set("template", mail.OrderConfirmation)
	}
	if f.Get("locale") == "" {
		f.Set("locale", mail.DefaultLocale)
	}
	if f.Get("orderId") == "" {
		if res, err := h.call(r, "order/v1/order.list", map[string]any{"limit": 1}); err == nil {
			if rows := list(res); len(rows) > 0 {
				o, _ := rows[0].(map[string]any)
				f.Set("orderId", str(o["id"]))
			}
		}
	}
	if f.Get("customerId") == "" {
		if res, err := h.call(r, "customer/v1/customer.list", map[string]any{"limit": 1}); err == nil {
			if rows := list(res); len(rows) > 0 {
				c, _ := rows[0].(map[string]any)
				f.Set("customerId", str(c["id"]))
			}
		}
	}
	args := map[string]any{"template": f.Get("template"), "locale": f.Get("locale")}
	switch f.Get("template") {
	case mail.Welcome, mail.PasswordReset:
		if v := f.Get("customerId"); v != "" {
			args["customerId"] = v
		} else if v := f.Get("orderId"); v != "" {
			args["orderId"] = v
		}
	case mail.StaffInvite:
	default:
		if v := f.Get("orderId"); v != "" {
			args["orderId"] = v
		}
	}
	return args, f
}

// mailPreview shows a template rendered with a real order or customer.
func (h *Handler) mailPreview(w http.ResponseWriter, r *http.Request) {
	args, f := h.previewArgs(r)
	p := page{Title: "Mail preview", Nav: "mail", Form: f, Data: map[string]any{"templates": mail.Templates, "locales": mail.BuiltinLocales}}
	res, err := h.call(r, "mail/v1/mail.preview", args)
	if err == nil {
		p.Data["preview"] = res
		p.Data["htmlURL"] = "/admin/mail/preview/html?" + f.Encode()
	}
	p.failed(formSpec{ID: "filters", Fields: map[string]field{"template": {"p-template", "Template"}, "locale": {"p-locale", "Locale"}, "orderId": {"p-order", "Order id"}, "customerId": {"p-customer", "Customer id"}}}, err)
	h.render(w, r, statusOf(err), "mailpreview", p)
}

// mailPreviewHTML serves a preview's HTML for the frame of its page.
func (h *Handler) mailPreviewHTML(w http.ResponseWriter, r *http.Request) {
	args, _ := h.previewArgs(r)
	res, err := h.call(r, "mail/v1/mail.preview", args)
	if err != nil {
		http.Error(w, commerce.ErrorCode(err), statusOf(err))
		return
	}
	serveMailHTML(w, str(res["html"]))
}
