package rpc

import (
	"context"
	"encoding/json"
	"errors"
	"net/http"
	"net/url"
	"time"

	"github.com/commercekit/commerce"
	"github.com/commercekit/commerce/customer"
)

// The results of the customer area's operations, for /openapi.json.
type (
	customerResult struct {
		Customer customer.Customer `json:"customer"`
	}
	customerList struct {
		Page commerce.Page       `json:"page"`
		Data []customer.Customer `json:"data"`
	}
	customerExport struct {
		Data customer.Export `json:"data"`
	}
	clientCreated struct {
		Client       customer.Client `json:"client"`
		ClientSecret string          `json:"clientSecret"`
	}
	clientList struct {
		Page commerce.Page     `json:"page"`
		Data []customer.Client `json:"data"`
	}
)

// RegisterCustomer registers the customer area (docs/api.md section 15):
//
//   - under /customer/v1/: customer.register (any valid token),
//     customer.info (GET or POST), customer.update, customer.addAddress,
//     customer.removeAddress, customer.remove (any valid token: a customer
//     token acts on its own account, an admin token on any, others get
//     customer_not_found), customer.export (the same rules; docs/api.md
//     section 29), customer.list (admin, GET or POST), and
//     client.create, client.list (GET or POST), client.remove (admin);
//   - under /auth/v1/: auth.login, auth.refresh, auth.logout,
//     auth.requestPasswordReset, auth.resetPassword (any valid token);
//   - POST /oauth/token (no bearer token: the client's own credentials),
//     RFC 6749 section 4.4.
func RegisterCustomer(s *Server, svc *customer.Service) {
	const cs, as = "customer", "auth"
	Handle(s, Op{Service: cs, Name: "customer.register", Result: customerResult{},
		Doc: "Registers a customer account (email, password, names, phone).", Errors: []string{commerce.EDuplicateKey}}, func(ctx context.Context, a *customer.RegisterInput) (any, error) {
		c, err := svc.Register(ctx, *a)
		return recordAnswer("customer", c, err)
	})
	Handle(s, Op{Service: cs, Name: "customer.info", Read: true, Result: customerResult{},
		Doc: "A customer: a customer token its own account (id may be omitted), an admin token any.", Errors: []string{commerce.ECustomerNotFound}}, func(ctx context.Context, a *customer.InfoInput) (any, error) {
		c, err := svc.Info(ctx, *a)
		return recordAnswer("customer", c, err)
	})
	Handle(s, Op{Service: cs, Name: "customer.update", Result: customerResult{},
		Doc:    "Changes the fields given of a customer (customerType and groups: admin only; password: with currentPassword, whose wrong guesses count in the email's login failures).",
		Errors: []string{commerce.ECustomerNotFound, commerce.EInvalidCredentials, commerce.ETooManyAttempts, commerce.EGroupNotFound}}, func(ctx context.Context, a *customer.UpdateInput) (any, error) {
		c, err := svc.Update(ctx, *a)
		return recordAnswer("customer", c, err)
	})
	Handle(s, Op{Service: cs, Name: "customer.addAddress", Result: customerResult{},
		Doc:    "Adds an address (optionally the default) to a customer.",
		Errors: []string{commerce.ECustomerNotFound, commerce.EInvalidCountry, commerce.EInvalidState}}, func(ctx context.Context, a *customer.AddAddressInput) (any, error) {
		c, err := svc.AddAddress(ctx, *a)
		return recordAnswer("customer", c, err)
	})
	Handle(s, Op{Service: cs, Name: "customer.removeAddress", Result: customerResult{},
		Doc: "Removes an address of a customer.", Errors: []string{commerce.ECustomerNotFound, commerce.EAddressNotFound}}, func(ctx context.Context, a *customer.RemoveAddressInput) (any, error) {
		c, err := svc.RemoveAddress(ctx, *a)
		return recordAnswer("customer", c, err)
	})
	Handle(s, Op{Service: cs, Name: "customer.remove", Result: struct{}{},
		Doc:    "Erases a customer: the account, its addresses and tokens; its orders keep items and totals with personal data erased.",
		Errors: []string{commerce.ECustomerNotFound}}, func(ctx context.Context, a *customer.RemoveInput) (any, error) {
		return nil, svc.Remove(ctx, *a)
	})
	Handle(s, Op{Service: cs, Name: "customer.export", Result: customerExport{},
		Doc:    "Everything the store holds about a customer (GDPR article 15): account, addresses, orders, returns, carts, emails sent, consents, sign-ins; never a password, token or hash. A customer token its own account (id may be omitted), an admin token any.",
		Errors: []string{commerce.ECustomerNotFound}}, func(ctx context.Context, a *customer.ExportInput) (any, error) {
		x, err := svc.Export(ctx, *a)
		if err != nil {
			return nil, err
		}
		return map[string]any{"data": x}, nil
	})
	Handle(s, Op{Service: cs, Name: "customer.list", Read: true, Admin: true, Result: customerList{},
		Doc: "Customers matching the filters (email a regular expression, customerType), a page at a time."}, func(ctx context.Context, a *customer.ListInput) (any, error) {
		page, list, err := svc.List(ctx, *a)
		if err != nil {
			return nil, err
		}
		return listAnswer(page, list, nil)
	})

	Handle(s, Op{Service: cs, Name: "client.create", Admin: true, Result: clientCreated{},
		Doc: "Creates a server-to-server client (OAuth 2.0 client credentials at POST /oauth/token); its secret is shown only here."}, func(ctx context.Context, a *customer.ClientCreateInput) (any, error) {
		c, secret, err := svc.CreateClient(ctx, *a)
		if err != nil {
			return nil, err
		}
		return map[string]any{"client": c, "clientSecret": secret}, nil
	})
	Handle(s, Op{Service: cs, Name: "client.list", Read: true, Admin: true, Result: clientList{},
		Doc: "Clients, a page at a time."}, func(ctx context.Context, a *customer.ClientListInput) (any, error) {
		page, list, err := svc.ListClients(ctx, *a)
		if err != nil {
			return nil, err
		}
		return listAnswer(page, list, nil)
	})
	Handle(s, Op{Service: cs, Name: "client.remove", Admin: true, Result: struct{}{},
		Doc: "Removes a client.", Errors: []string{commerce.EClientNotFound}}, func(ctx context.Context, a *customer.ClientRemoveInput) (any, error) {
		_, err := svc.RemoveClient(ctx, *a)
		return nil, err
	})

	Handle(s, Op{Service: as, Name: "auth.login", Result: customer.Session{},
		Doc:    "Signs a customer in (adopting an ACTIVE ANON cart when cartId names one): an access token and a refresh token.",
		Errors: []string{commerce.EInvalidCredentials, commerce.ETooManyAttempts}}, func(ctx context.Context, a *customer.LoginInput) (any, error) {
		return session(svc.Login(ctx, *a))
	})
	Handle(s, Op{Service: as, Name: "auth.refresh", Result: customer.Session{},
		Doc: "Spends a refresh token for a new pair; a spent one revokes the whole sign-in.", Errors: []string{commerce.EInvalidToken}}, func(ctx context.Context, a *customer.RefreshInput) (any, error) {
		return session(svc.Refresh(ctx, *a))
	})
	Handle(s, Op{Service: as, Name: "auth.logout", Result: struct{}{},
		Doc: "Revokes the refresh tokens of the sign-in the token belongs to."}, func(ctx context.Context, a *customer.RefreshInput) (any, error) {
		return nil, svc.Logout(ctx, *a)
	})
	Handle(s, Op{Service: as, Name: "auth.requestPasswordReset", Result: struct{}{},
		Doc: "Emits CUSTOMERS PASSWORD_RESET with a reset token for an existing account; always answers {ok: true}."}, func(ctx context.Context, a *customer.RequestResetInput) (any, error) {
		return nil, svc.RequestPasswordReset(ctx, *a)
	})
	Handle(s, Op{Service: as, Name: "auth.resetPassword", Result: struct{}{},
		Doc:    "Sets a new password with a reset token (single use, 1 hour) and revokes the customer's refresh tokens.",
		Errors: []string{commerce.EInvalidResetToken}}, func(ctx context.Context, a *customer.ResetInput) (any, error) {
		_, err := svc.ResetPassword(ctx, *a)
		return nil, err
	})

	s.HandlePath("/oauth/token", "oauth", "oauth.token", &tokenEndpoint{s: s, svc: svc})
}

func session(v *customer.Session, err error) (any, error) {
	if err != nil {
		return nil, err
	}
	return v, nil
}

// tokenEndpoint is POST /oauth/token: the client credentials grant of RFC
// 6749 section 4.4, answered as section 5.1 (success) and 5.2 (errors),
// every answer with Cache-Control: no-store.
type tokenEndpoint struct {
	s   *Server
	svc *customer.Service
}

// Fail implements PathHandler: 500 server_error (RFC 6749 section 5.2
// names no code for it; server_error is the one of section 4.1.2.1).
func (t *tokenEndpoint) Fail(w http.ResponseWriter, _ *http.Request) int {
	w.Header().Set("Cache-Control", "no-store")
	w.Header().Set("Pragma", "no-cache")
	writeJSON(w, http.StatusInternalServerError, []byte(`{"error":"server_error","error_description":""}`))
	return http.StatusInternalServerError
}

// Serve implements PathHandler. No form value is logged: it holds the
// secret.
func (t *tokenEndpoint) Serve(w http.ResponseWriter, r *http.Request) int {
	h := w.Header()
	h.Set("Cache-Control", "no-store")
	h.Set("Pragma", "no-cache")
	fail := func(status int, code, desc string) int {
		if status == http.StatusUnauthorized {
			h.Set("WWW-Authenticate", `Basic realm="commerce"`)
		}
		b, _ := json.Marshal(map[string]string{"error": code, "error_description": desc})
		writeJSON(w, status, b)
		return status
	}
	if r.Method != http.MethodPost {
		h.Set("Allow", "POST")
		return fail(http.StatusMethodNotAllowed, "invalid_request", "the token endpoint takes POST")
	}
	// A body over MaxBody is 413, as for every operation (the code is
	// RFC 6749's invalid_request: the API's request_too_large is no code
	// of its section 5.2).
	const tooLarge = "the body is larger than 1 MiB"
	if r.ContentLength > MaxBody {
		return fail(http.StatusRequestEntityTooLarge, "invalid_request", tooLarge)
	}
	r.Body = http.MaxBytesReader(w, r.Body, MaxBody)
	if err := r.ParseForm(); err != nil {
		if mbe := (*http.MaxBytesError)(nil); errors.As(err, &mbe) {
			return fail(http.StatusRequestEntityTooLarge, "invalid_request", tooLarge)
		}
		return fail(http.StatusBadRequest, "invalid_request", "the body must be application/x-www-form-urlencoded")
	}
	form := r.PostForm
	for k, v := range form {
		// A NUL byte or invalid UTF-8 never reaches the store (PostgreSQL
		// refuses both): the request is malformed.
		if msg := commerce.TextProblem(k); msg != "" {
			return fail(http.StatusBadRequest, "invalid_request", "a parameter name "+msg)
		}
		if len(v) > 1 {
			return fail(http.StatusBadRequest, "invalid_request", "parameter "+k+" is repeated")
		}
		if msg := commerce.TextProblem(v[0]); msg != "" {
			return fail(http.StatusBadRequest, "invalid_request", "parameter "+k+" "+msg)
		}
	}
	switch gt := form.Get("grant_type"); {
	case gt == "":
		return fail(http.StatusBadRequest, "invalid_request", "grant_type is required")
	case gt != "client_credentials":
		return fail(http.StatusBadRequest, "unsupported_grant_type", "only client_credentials is supported")
	}
	id, secret, basic := r.BasicAuth()
	if basic {
		// RFC 6749 section 2.3.1: both are form-encoded before Basic.
		var err1, err2 error
		id, err1 = url.QueryUnescape(id)
		secret, err2 = url.QueryUnescape(secret)
		if err1 != nil || err2 != nil {
			return fail(http.StatusUnauthorized, "invalid_client", "client authentication failed")
		}
		for _, c := range []struct{ name, v string }{{"the client id", id}, {"the client secret", secret}} {
			if msg := commerce.TextProblem(c.v); msg != "" {
				return fail(http.StatusBadRequest, "invalid_request", c.name+" of HTTP Basic "+msg)
			}
		}
		if form.Has("client_id") || form.Has("client_secret") {
			return fail(http.StatusBadRequest, "invalid_request", "use one way of client authentication")
		}
	} else {
		id, secret = form.Get("client_id"), form.Get("client_secret")
	}
	if id == "" || secret == "" {
		return fail(http.StatusUnauthorized, "invalid_client", "client authentication failed")
	}
	tok, ttl, ok, err := t.svc.ClientToken(r.Context(), id, secret)
	if err != nil {
		t.s.logger.Error("token endpoint", "err", err)
		return t.Fail(w, r)
	}
	if !ok {
		return fail(http.StatusUnauthorized, "invalid_client", "client authentication failed")
	}
	if sc := form.Get("scope"); sc != "" {
		c, err := t.svc.Client(r.Context(), id)
		if err != nil || sc != c.Scope {
			return fail(http.StatusBadRequest, "invalid_scope", "the client may ask for its own scope only")
		}
	}
	b, _ := json.Marshal(map[string]any{"access_token": tok, "token_type": "Bearer", "expires_in": int64(ttl / time.Second)})
	writeJSON(w, http.StatusOK, b)
	return http.StatusOK
}
