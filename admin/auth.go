package admin

import (
	"context"
	"crypto/rand"
	"crypto/subtle"
	"encoding/base64"
	"net/http"
	"net/url"
	"strings"

	"github.com/commercekit/commerce"
	"github.com/commercekit/commerce/staff"
)

// Cookie names: the session, and the anti-forgery token of the sign-in
// form (before there is a session).
const (
	SessionCookie = "commerce_admin"
	preCookie     = "commerce_admin_signin"
	// CSRFField is the form field (and CSRFHeader the header, for htmx
	// requests) that carries the anti-forgery token.
	CSRFField  = "csrf"
	CSRFHeader = "X-CSRF-Token"
)

// secure reports whether the request came over TLS: to this server, or to
// a proxy in front of it that says so (X-Forwarded-Proto: https, or
// Forwarded: proto=https; the service itself serves plain HTTP). A client
// that sends the header over plain HTTP only gets cookies its browser
// will not send back over plain HTTP: trusting it weakens nothing.
func secure(r *http.Request) bool {
	if r.TLS != nil {
		return true
	}
	if p, _, _ := strings.Cut(r.Header.Get("X-Forwarded-Proto"), ","); strings.EqualFold(strings.TrimSpace(p), "https") {
		return true
	}
	first, _, _ := strings.Cut(r.Header.Get("Forwarded"), ",")
	for pair := range strings.SplitSeq(first, ";") {
		k, v, _ := strings.Cut(strings.TrimSpace(pair), "=")
		if strings.EqualFold(k, "proto") && strings.EqualFold(strings.Trim(v, `"`), "https") {
			return true
		}
	}
	return false
}

func setCookie(w http.ResponseWriter, r *http.Request, name, value string, maxAge int) {
	http.SetCookie(w, &http.Cookie{Name: name, Value: value, Path: "/admin/", MaxAge: maxAge,
		HttpOnly: true, SameSite: http.SameSiteLaxMode, Secure: secure(r)})
}

func randomToken() string {
	var b [32]byte
	_, _ = rand.Read(b[:])
	return base64.RawURLEncoding.EncodeToString(b[:])
}

func sameToken(a, b string) bool {
	return a != "" && b != "" && subtle.ConstantTimeCompare([]byte(a), []byte(b)) == 1
}

// submittedToken is the anti-forgery token of a request: the form field,
// or the header htmx sends.
func submittedToken(r *http.Request) string {
	if t := r.Header.Get(CSRFHeader); t != "" {
		return t
	}
	return r.PostFormValue(CSRFField)
}

// safeNext is where to go after sign-in: a path of the app, else the
// dashboard.
func safeNext(next string) string {
	if strings.HasPrefix(next, "/admin/") && !strings.HasPrefix(next, "//") && !strings.Contains(next, "\\") {
		return next
	}
	return "/admin/"
}

func (h *Handler) signInPage(w http.ResponseWriter, r *http.Request) {
	h.renderSignIn(w, r, http.StatusOK, url.Values{"next": {r.URL.Query().Get("next")}}, nil)
}

func (h *Handler) renderSignIn(w http.ResponseWriter, r *http.Request, status int, form url.Values, err error) {
	tok := randomToken()
	setCookie(w, r, preCookie, tok, 3600)
	form.Del("password")
	p := page{Title: "Sign in", Form: form, Error: explain(err, signInSpec)}
	p.CSRF = tok
	h.renderBare(w, r, status, "signin", &p)
}

// signInSpec describes the sign-in form for its errors.
var signInSpec = formSpec{ID: "signin-form", Fields: fieldsOf("email:Email", "password:Password")}

func (h *Handler) signIn(w http.ResponseWriter, r *http.Request) {
	if err := parseForm(r); err != nil {
		h.renderSignIn(w, r, http.StatusBadRequest, url.Values{}, err)
		return
	}
	c, _ := r.Cookie(preCookie)
	if c == nil || !sameToken(c.Value, submittedToken(r)) {
		h.forbidden(w, r)
		return
	}
	form := url.Values{"email": {r.PostFormValue("email")}, "next": {r.PostFormValue("next")}}
	id, _, pending, err := h.opts.Staff.SignIn(r.Context(), r.PostFormValue("email"), r.PostFormValue("password"), clientIP(r))
	if err != nil {
		status := http.StatusUnauthorized
		if commerce.ErrorCode(err) == commerce.ETooManyAttempts {
			status = http.StatusTooManyRequests
		} else if commerce.ErrorCode(err) != commerce.EInvalidCredentials {
			status = statusOf(err)
		}
		h.renderSignIn(w, r, status, form, err)
		return
	}
	setCookie(w, r, preCookie, "", -1)
	setCookie(w, r, SessionCookie, id, int(staff.SessionTTL.Seconds()))
	if pending {
		http.Redirect(w, r, "/admin/signin/code?next="+url.QueryEscape(safeNext(r.PostFormValue("next"))), http.StatusSeeOther)
		return
	}
	http.Redirect(w, r, safeNext(r.PostFormValue("next")), http.StatusSeeOther)
}

func (h *Handler) signOut(w http.ResponseWriter, r *http.Request) {
	if err := h.opts.Staff.SignOut(r.Context(), who(r).sessionID); err != nil {
		h.opts.Logger.Error("admin: sign out", "err", err)
	}
	setCookie(w, r, SessionCookie, "", -1)
	http.Redirect(w, r, "/admin/signin", http.StatusSeeOther)
}

func (h *Handler) forbidden(w http.ResponseWriter, r *http.Request) {
	w.Header().Set("Content-Type", "text/plain; charset=utf-8")
	w.WriteHeader(http.StatusForbidden)
	_, _ = w.Write([]byte("forbidden: the form's anti-forgery token is missing or wrong; reload the page and try again\n"))
}

// authed wraps a page: it needs a session (else the sign-in page, and
// back afterwards), and a request that changes anything (not GET or HEAD)
// needs the session's anti-forgery token.
func (h *Handler) authed(next http.HandlerFunc) http.HandlerFunc {
	return func(w http.ResponseWriter, r *http.Request) {
		c, _ := r.Cookie(SessionCookie)
		var st staff.Staff
		var pending bool
		var err error = commerce.NewError(commerce.EInvalidToken, nil)
		if c != nil {
			st, pending, err = h.opts.Staff.Session(r.Context(), c.Value)
		}
		if err == nil && pending {
			// The password was right; the second factor is still to
			// be given: no page but the code's.
			http.Redirect(w, r, "/admin/signin/code", http.StatusSeeOther)
			return
		}
		if err != nil {
			if commerce.ErrorCode(err) != commerce.EInvalidToken {
				h.opts.Logger.Error("admin: session", "err", err)
				http.Error(w, "the session could not be read", statusOf(err))
				return
			}
			to := "/admin/signin"
			if r.Method == http.MethodGet && r.URL.Path != "/admin/" {
				to += "?next=" + url.QueryEscape(r.URL.RequestURI())
			}
			if r.Header.Get("HX-Request") == "true" {
				w.Header().Set("HX-Redirect", to)
				w.WriteHeader(http.StatusUnauthorized)
				return
			}
			http.Redirect(w, r, to, http.StatusSeeOther)
			return
		}
		if r.Method != http.MethodGet && r.Method != http.MethodHead {
			if err := parseForm(r); err != nil || !sameToken(staff.CSRFToken(c.Value), submittedToken(r)) {
				h.forbidden(w, r)
				return
			}
		}
		ctx := context.WithValue(r.Context(), signedInKey{}, signedIn{staff: st, sessionID: c.Value})
		r = r.WithContext(ctx)
		if h.opts.Staff.Require2FA && !st.TOTP && !strings.HasPrefix(r.URL.Path, "/admin/account") && r.URL.Path != "/admin/signout" {
			// --admin-require-2fa: a member without a second factor
			// sets one up before anything else.
			http.Redirect(w, r, "/admin/account?setup2fa=1", http.StatusSeeOther)
			return
		}
		if !permitted(st, r) {
			h.denied(w, r)
			return
		}
		next(w, r)
	}
}
