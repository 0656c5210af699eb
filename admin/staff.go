package admin

import (
	"context"
	"net/http"
	"net/url"
	"strings"

	"github.com/commercekit/commerce"
	"github.com/commercekit/commerce/audit"
	"github.com/commercekit/commerce/staff"
)

// staffRoutes are the pages of staff (owners: invite, change roles,
// disable, remove), of every member's own account (password, second
// factor), of the audit log (owners and admins), and of an invitation's
// link (no session: the link's token).
func (h *Handler) staffRoutes() {
	a := h.authed
	h.mux.HandleFunc("GET /admin/staff", a(h.staffList))
	h.mux.HandleFunc("POST /admin/staff", a(h.staffInvite))
	h.mux.HandleFunc("POST /admin/staff/{id}/{action}", a(h.staffAction))
	h.mux.HandleFunc("GET /admin/account", a(h.account))
	h.mux.HandleFunc("POST /admin/account/password", a(h.accountPassword))
	h.mux.HandleFunc("POST /admin/account/totp", a(h.accountTOTP))
	h.mux.HandleFunc("POST /admin/account/totp/confirm", a(h.accountTOTPConfirm))
	h.mux.HandleFunc("GET /admin/audit", a(h.auditLog))
	h.mux.HandleFunc("GET /admin/invite", h.invitePage)
	h.mux.HandleFunc("POST /admin/invite", h.inviteAccept)
	h.mux.HandleFunc("GET /admin/signin/code", h.codePage)
	h.mux.HandleFunc("POST /admin/signin/code", h.codeSubmit)
}

// audited is the context of a page action of the signed-in member: its
// change writes its audit entry (the staff store's transactions).
func audited(r *http.Request, action string) context.Context {
	s := who(r)
	return audit.With(r.Context(), &audit.Scope{Actor: s.staff.Email, Role: string(s.staff.Role), Action: action, IP: clientIP(r)})
}

var (
	inviteSpec  = formSpec{ID: "invite-form", Fields: fieldsOf("email:Email", "role:Role")}
	staffSpec   = formSpec{ID: "staff-form"}
	passwordSpc = formSpec{ID: "password-form", Fields: fieldsOf("current:Current password", "password:New password")}
	totpSpec    = formSpec{ID: "totp-form", Fields: fieldsOf("code:Code")}
)

func (h *Handler) renderStaff(w http.ResponseWriter, r *http.Request, form url.Values, spec formSpec, err error) {
	list, lerr := h.opts.Staff.List(r.Context())
	if lerr != nil && err == nil {
		err = lerr
	}
	p := page{Title: "Staff", Nav: "staff", Form: form, Data: map[string]any{"staff": list, "roles": staff.Roles,
		"done": r.URL.Query().Get("done")}}
	if err != nil {
		h.fail(w, r, "staff", p, spec, err)
		return
	}
	h.render(w, r, http.StatusOK, "staff", p)
}

func (h *Handler) staffList(w http.ResponseWriter, r *http.Request) {
	h.renderStaff(w, r, nil, formSpec{}, nil)
}

// inviteLink is the address of the invitation page, as the browser
// reached this app.
func inviteLink(r *http.Request) string {
	scheme := "http"
	if secure(r) {
		scheme = "https"
	}
	return scheme + "://" + r.Host + "/admin/invite"
}

func (h *Handler) staffInvite(w http.ResponseWriter, r *http.Request) {
	_, err := h.opts.Staff.Invite(audited(r, "staff.invite"), r.PostForm.Get("email"), r.PostForm.Get("role"), inviteLink(r), "")
	if err != nil {
		h.renderStaff(w, r, r.PostForm, inviteSpec, err)
		return
	}
	seeOther(w, r, "/admin/staff?done=invited")
}

func (h *Handler) staffAction(w http.ResponseWriter, r *http.Request) {
	id, action := r.PathValue("id"), r.PathValue("action")
	var err error
	switch action {
	case "role":
		_, err = h.opts.Staff.SetRole(audited(r, "staff.role"), id, r.PostForm.Get("role"))
	case "disable", "enable":
		if action == "disable" && !h.confirmFirst(w, r, confirmation{Title: "Disable a staff member", Nav: "staff",
			Question: "Disable " + r.PostForm.Get("email") + "? Their sessions end at once.", Yes: "Disable", Back: "/admin/staff"}) {
			return
		}
		_, err = h.opts.Staff.Disable(audited(r, "staff."+action), id, action == "disable")
	case "remove":
		if !h.confirmFirst(w, r, confirmation{Title: "Remove a staff member", Nav: "staff",
			Question: "Remove " + r.PostForm.Get("email") + "? Their account and sessions are deleted.", Yes: "Remove", Back: "/admin/staff"}) {
			return
		}
		_, err = h.opts.Staff.Remove(audited(r, "staff.remove"), id)
	default:
		http.NotFound(w, r)
		return
	}
	if err != nil {
		h.renderStaff(w, r, nil, staffSpec, err)
		return
	}
	seeOther(w, r, "/admin/staff?done="+action)
}

func (h *Handler) renderAccount(w http.ResponseWriter, r *http.Request, status int, data map[string]any, spec formSpec, err error) {
	if data == nil {
		data = map[string]any{}
	}
	data["done"] = r.URL.Query().Get("done")
	data["setup"] = r.URL.Query().Get("setup2fa") != "" || h.opts.Staff.Require2FA
	p := page{Title: "Your account", Nav: "account", Data: data}
	if err != nil {
		h.fail(w, r, "account", p, spec, err)
		return
	}
	h.render(w, r, status, "account", p)
}

func (h *Handler) account(w http.ResponseWriter, r *http.Request) {
	h.renderAccount(w, r, http.StatusOK, nil, formSpec{}, nil)
}

func (h *Handler) accountPassword(w http.ResponseWriter, r *http.Request) {
	s := who(r)
	err := h.opts.Staff.ChangePassword(audited(r, "account.password"), s.staff, r.PostForm.Get("current"), r.PostForm.Get("password"), s.sessionID)
	if err != nil {
		h.renderAccount(w, r, statusOf(err), nil, passwordSpc, err)
		return
	}
	seeOther(w, r, "/admin/account?done=password")
}

// accountTOTP offers a new second factor: its secret, to be confirmed
// with a code (accountTOTPConfirm); or, with remove, removes it.
func (h *Handler) accountTOTP(w http.ResponseWriter, r *http.Request) {
	s := who(r)
	if r.PostForm.Get("remove") != "" {
		if err := h.opts.Staff.RemoveTOTP(audited(r, "account.totp"), s.staff.ID); err != nil {
			h.renderAccount(w, r, statusOf(err), nil, totpSpec, err)
			return
		}
		seeOther(w, r, "/admin/account?done=totp-removed")
		return
	}
	secret, uri, err := h.opts.Staff.BeginTOTP(r.Context(), s.staff)
	if err != nil {
		h.renderAccount(w, r, statusOf(err), nil, totpSpec, err)
		return
	}
	h.renderAccount(w, r, http.StatusOK, map[string]any{"secret": secret, "uri": uri}, formSpec{}, nil)
}

func (h *Handler) accountTOTPConfirm(w http.ResponseWriter, r *http.Request) {
	s := who(r)
	codes, err := h.opts.Staff.ConfirmTOTP(audited(r, "account.totp"), s.staff.ID, r.PostForm.Get("code"))
	if err != nil {
		h.renderAccount(w, r, statusOf(err), nil, totpSpec, err)
		return
	}
	h.renderAccount(w, r, http.StatusOK, map[string]any{"recovery": codes}, formSpec{}, nil)
}

func (h *Handler) auditLog(w http.ResponseWriter, r *http.Request) {
	q := r.URL.Query()
	limit, skip := pageArgs(q)
	args := map[string]any{"limit": limit, "skip": skip}
	for _, k := range []string{"actor", "target", "action", "from", "to"} {
		if v := strings.TrimSpace(q.Get(k)); v != "" {
			args[k] = v
		}
	}
	form := url.Values{}
	for _, k := range []string{"actor", "target", "action", "from", "to"} {
		form.Set(k, q.Get(k))
	}
	p := page{Title: "Audit log", Nav: "audit", Form: form, Data: map[string]any{}}
	res, err := h.call(r, "audit/v1/audit.list", args)
	if err != nil {
		h.fail(w, r, "audit", p, formSpec{ID: "audit-filter", Fields: fieldsOf("actor:Actor", "target:Target", "action:Action", "from:From", "to:To")}, err)
		return
	}
	h.nameTargets(r, list(res))
	p.Data["entries"] = list(res)
	p.Data["pager"] = newPager(q, limit, skip, len(list(res)))
	h.render(w, r, http.StatusOK, "audit", p)
}

// invitePage and inviteAccept are the invitation's link: the invited
// member sets their password (no session; the token is the proof).
func (h *Handler) invitePage(w http.ResponseWriter, r *http.Request) {
	h.renderInvite(w, r, http.StatusOK, r.URL.Query().Get("token"), nil)
}

func (h *Handler) renderInvite(w http.ResponseWriter, r *http.Request, status int, token string, err error) {
	tok := randomToken()
	setCookie(w, r, preCookie, tok, 3600)
	p := page{Title: "Set your password", Form: url.Values{"token": {token}}, Error: explain(err, inviteAcceptSpec)}
	p.CSRF = tok
	h.renderBare(w, r, status, "invite", &p)
}

// renderBare draws a page of signing in (sign-in, second factor,
// invitation: no session yet, the caller sets its CSRF token) with the
// status.
func (h *Handler) renderBare(w http.ResponseWriter, r *http.Request, status int, name string, p *page) {
	out, err := execute(h.pages[name], r, p)
	if err != nil {
		h.opts.Logger.Error("admin: render "+name, "err", err)
		http.Error(w, "the page could not be rendered", http.StatusInternalServerError)
		return
	}
	w.Header().Set("Content-Type", "text/html; charset=utf-8")
	w.WriteHeader(status)
	_, _ = w.Write([]byte(out))
}

var inviteAcceptSpec = formSpec{ID: "invite-accept", Fields: fieldsOf("password:Password")}

func (h *Handler) inviteAccept(w http.ResponseWriter, r *http.Request) {
	if err := parseForm(r); err != nil {
		h.renderInvite(w, r, http.StatusBadRequest, "", err)
		return
	}
	c, _ := r.Cookie(preCookie)
	if c == nil || !sameToken(c.Value, submittedToken(r)) {
		h.forbidden(w, r)
		return
	}
	token := r.PostFormValue("token")
	if _, err := h.opts.Staff.Accept(r.Context(), token, r.PostFormValue("password")); err != nil {
		h.renderInvite(w, r, statusOf(err), token, err)
		return
	}
	setCookie(w, r, preCookie, "", -1)
	http.Redirect(w, r, "/admin/signin?invited=1", http.StatusSeeOther)
}

var codeSpec = formSpec{ID: "code-form", Fields: fieldsOf("code:Code")}

// codePage and codeSubmit are the second step of a sign-in with a second
// factor: the code of the member's app, or a recovery code.
func (h *Handler) codePage(w http.ResponseWriter, r *http.Request) {
	h.renderCode(w, r, http.StatusOK, nil)
}

func (h *Handler) renderCode(w http.ResponseWriter, r *http.Request, status int, err error) {
	c, _ := r.Cookie(SessionCookie)
	if c == nil {
		http.Redirect(w, r, "/admin/signin", http.StatusSeeOther)
		return
	}
	p := page{Title: "Your code", Form: url.Values{"next": {r.URL.Query().Get("next")}}, Error: explain(err, codeSpec)}
	p.CSRF = staff.CSRFToken(c.Value)
	h.renderBare(w, r, status, "code", &p)
}

func (h *Handler) codeSubmit(w http.ResponseWriter, r *http.Request) {
	c, _ := r.Cookie(SessionCookie)
	if err := parseForm(r); err != nil || c == nil || !sameToken(staff.CSRFToken(c.Value), submittedToken(r)) {
		h.forbidden(w, r)
		return
	}
	if _, err := h.opts.Staff.SecondFactor(r.Context(), c.Value, r.PostFormValue("code"), clientIP(r)); err != nil {
		if commerce.ErrorCode(err) == commerce.EInvalidToken {
			http.Redirect(w, r, "/admin/signin", http.StatusSeeOther)
			return
		}
		h.renderCode(w, r, statusOf(err), err)
		return
	}
	http.Redirect(w, r, safeNext(r.PostFormValue("next")), http.StatusSeeOther)
}
