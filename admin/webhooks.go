package admin

import (
	"net/http"
	"net/url"
	"strings"
)

// webhookRoutes serves the webhooks' pages when the webhook area is
// assembled.
func (h *Handler) webhookRoutes() {
	if !h.opts.RPC.Has("event/v1/webhook.list") {
		return
	}
	h.features["webhooks"] = true
	a := h.authed
	h.mux.HandleFunc("GET /admin/webhooks", a(h.webhooks))
	h.mux.HandleFunc("POST /admin/webhooks", a(h.webhookCreate))
	h.mux.HandleFunc("GET /admin/webhooks/{id}", a(h.webhookPage))
	h.mux.HandleFunc("POST /admin/webhooks/{id}", a(h.webhookUpdate))
	h.mux.HandleFunc("POST /admin/webhooks/{id}/remove", a(h.webhookRemove))
	h.mux.HandleFunc("POST /admin/webhooks/{id}/redeliver", a(h.webhookRedeliver))
}

func (h *Handler) webhooks(w http.ResponseWriter, r *http.Request) {
	h.renderWebhooks(w, r, url.Values{"active": {"on"}}, nil, "")
}

func (h *Handler) renderWebhooks(w http.ResponseWriter, r *http.Request, f url.Values, err error, secret string) {
	p := page{Title: "Webhooks", Nav: "webhooks", Form: f, Data: map[string]any{"channels": Channels, "secret": secret}}
	rows, pg, lerr := h.listRows(r, "event/v1/webhook.list", nil)
	if err == nil {
		err = lerr
	}
	p.Data["webhooks"], p.Data["pager"] = rows, pg
	p.failed(webhookSpec, err)
	h.render(w, r, statusOf(err), "webhooks", p)
}

func webhookArgs(f url.Values) map[string]any {
	a := map[string]any{"url": strings.TrimSpace(f.Get("url")), "channels": f["channels"], "description": f.Get("description"),
		"active": f.Get("active") == "on"}
	if f["channels"] == nil {
		a["channels"] = []string{}
	}
	// Always sent: empty is every type (on update too, where absent would
	// keep the types the webhook had).
	a["types"] = strings.TrimSpace(f.Get("types"))
	return a
}

// webhookCreate creates a webhook and shows its secret, once: it is in
// this answer only, never stored in the clear nor shown again.
func (h *Handler) webhookCreate(w http.ResponseWriter, r *http.Request) {
	res, err := h.callOnce(r, "event/v1/webhook.create", webhookArgs(r.PostForm))
	if err != nil {
		h.renderWebhooks(w, r, r.PostForm, err, "")
		return
	}
	secret, _ := res["secret"].(string)
	p := page{Title: "Webhook created", Nav: "webhooks", Data: map[string]any{"webhook": res["webhook"], "secret": secret}}
	h.render(w, r, http.StatusOK, "webhooksecret", p)
}

func (h *Handler) webhookPage(w http.ResponseWriter, r *http.Request) {
	h.renderWebhook(w, r, r.PathValue("id"), nil, formSpec{}, nil)
}

// webhookSpec describes the webhook forms (new, settings) for their
// errors; the other forms of a webhook's page are its removal and the
// deliveries' (filter, redeliver).
var (
	webhookSpec       = formSpec{ID: "webhook-form", Fields: fieldsOf("url:URL", "channels:Channels", "types:Types", "description:Description", "active:Active")}
	webhookRemoveSpec = formSpec{ID: "webhook-remove"}
	deliveriesSpec    = formSpec{ID: "deliveries-form", Fields: map[string]field{"status": {"f-status", "Status"}}}
)

func (h *Handler) renderWebhook(w http.ResponseWriter, r *http.Request, id string, f url.Values, spec formSpec, actionErr error) {
	wh, ok := h.record(w, r, "event/v1/webhook.info", "webhook", id, page{Title: "Webhook", Nav: "webhooks"})
	if !ok {
		return
	}
	if f == nil {
		f = url.Values{"url": {str(wh["url"])}, "description": {str(wh["description"])}, "types": {joinAny(wh["types"])}}
		if wh["active"] == true {
			f.Set("active", "on")
		}
		if cs, ok := wh["channels"].([]any); ok {
			for _, c := range cs {
				f.Add("channels", str(c))
			}
		}
	}
	q := r.URL.Query()
	p := page{Title: "Webhook " + str(wh["url"]), Nav: "webhooks", Form: f,
		Data: map[string]any{"webhook": wh, "channels": Channels, "filter": q, "statuses": []string{"PENDING", "DELIVERED", "FAILED"}}}
	rows, pg, derr := h.listRows(r, "event/v1/webhook.deliveries", map[string]any{"webhookId": id}, "status")
	if actionErr == nil && derr != nil {
		actionErr, spec = derr, deliveriesSpec
	}
	p.Data["deliveries"], p.Data["pager"] = rows, pg
	if d := q.Get("done"); d != "" {
		p.Notice = "Done: " + d + "."
	}
	p.failed(spec, actionErr)
	h.render(w, r, statusOf(actionErr), "webhook", p)
}

func joinAny(v any) string {
	l, _ := v.([]any)
	s := make([]string, 0, len(l))
	for _, x := range l {
		s = append(s, str(x))
	}
	return strings.Join(s, ",")
}

func (h *Handler) webhookUpdate(w http.ResponseWriter, r *http.Request) {
	id := r.PathValue("id")
	args := webhookArgs(r.PostForm)
	args["id"] = id
	if _, err := h.call(r, "event/v1/webhook.update", args); err != nil {
		h.renderWebhook(w, r, id, r.PostForm, webhookSpec, err)
		return
	}
	seeOther(w, r, "/admin/webhooks/"+url.PathEscape(id)+"?done=saved")
}

func (h *Handler) webhookRemove(w http.ResponseWriter, r *http.Request) {
	id := r.PathValue("id")
	if !h.confirmFirst(w, r, confirmation{Title: "Remove a webhook", Nav: "webhooks",
		Question: "Remove this webhook? Its deliveries stop and its secret is lost.", Yes: "Remove the webhook",
		Back: "/admin/webhooks/" + url.PathEscape(id)}) {
		return
	}
	if _, err := h.call(r, "event/v1/webhook.remove", map[string]any{"id": id}); err != nil {
		h.renderWebhook(w, r, id, nil, webhookRemoveSpec, err)
		return
	}
	seeOther(w, r, "/admin/webhooks?removed=1")
}

func (h *Handler) webhookRedeliver(w http.ResponseWriter, r *http.Request) {
	id := r.PathValue("id")
	if _, err := h.callOnce(r, "event/v1/webhook.redeliver", map[string]any{"deliveryId": r.PostForm.Get("deliveryId")}); err != nil {
		h.renderWebhook(w, r, id, nil, deliveriesSpec, err)
		return
	}
	seeOther(w, r, "/admin/webhooks/"+url.PathEscape(id)+"?done=redeliver")
}
