package customer

import (
	"context"
	"crypto/subtle"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/commercekit/commerce"
	"github.com/commercekit/commerce/staff"
)

// CreateClient creates an OAuth client (client.create, admin) and returns
// it with its secret, which is not kept (only its SHA-256) and so is shown
// only here.
func (s *Service) CreateClient(ctx context.Context, in ClientCreateInput) (*Client, string, error) {
	var p commerce.Problems
	name := strings.TrimSpace(deref(in.Name))
	switch {
	case name == "":
		p.Add("name", "required")
	case utf8.RuneCountInString(name) > 200:
		p.Add("name", "must be at most 200 characters")
	}
	scope := deref(in.Scope)
	if scope != commerce.ScopeAPI && scope != commerce.ScopeAdmin {
		p.Add("scope", "must be %q or %q", commerce.ScopeAPI, commerce.ScopeAdmin)
	}
	role := deref(in.Role)
	if _, ok := staff.ParseRole(role); !ok {
		p.Add("role", "must be one of owner, admin, catalog, orders, support")
	} else if role != "" && scope != commerce.ScopeAdmin {
		p.Add("role", "only a client of scope admin has a role")
	}
	if err := p.Err(); err != nil {
		return nil, "", err
	}
	secret := NewSecret()
	c := Client{ID: commerce.NewID(), Name: name, Scope: scope, Role: role, CreatedAt: s.clock(), SecretHash: HashSecret(secret)}
	if err := s.store.Update(ctx, func(tx Tx) error { return tx.InsertClient(ctx, c) }); err != nil {
		return nil, "", err
	}
	return &c, secret, nil
}

// ListClients returns a page of OAuth clients (client.list, admin).
func (s *Service) ListClients(ctx context.Context, in ClientListInput) (commerce.Page, []Client, error) {
	page, err := in.Page()
	if err != nil {
		return page, nil, err
	}
	out, err := s.store.Clients(ctx, page.Limit, page.Skip)
	return page, out, err
}

// RemoveClient deletes an OAuth client (client.remove, admin); the access
// tokens it got live on until they expire.
func (s *Service) RemoveClient(ctx context.Context, in ClientRemoveInput) (*Client, error) {
	if err := commerce.CheckArgs(in); err != nil { // id
		return nil, err
	}
	var out *Client
	err := s.store.Update(ctx, func(tx Tx) error {
		c, err := tx.RemoveClient(ctx, in.ID)
		out = c
		return err
	})
	return out, err
}

// dummySecretHash is compared against when the client id is unknown, so
// that an unknown id and a wrong secret take the same time.
var dummySecretHash = HashSecret(NewSecret())

// ClientToken authenticates a client by id and secret (constant-time) and
// mints its access token: sub the client's id, scope the client's. It
// returns the token and its lifetime; false for an unknown client or a
// wrong secret.
func (s *Service) ClientToken(ctx context.Context, id, secret string) (string, time.Duration, bool, error) {
	c, err := s.store.Client(ctx, id)
	want := dummySecretHash
	switch {
	case err == nil:
		want = c.SecretHash
	case commerce.ErrorCode(err) != commerce.EClientNotFound:
		return "", 0, false, err
	}
	got := HashSecret(secret)
	if subtle.ConstantTimeCompare([]byte(got), []byte(want)) != 1 || c == nil {
		return "", 0, false, nil
	}
	tok, err := s.keys.Issue(commerce.Claims{Subject: c.ID, Scopes: []string{c.Scope}, Role: c.Role}, s.now(), s.opts.AccessTTL)
	if err != nil {
		return "", 0, false, commerce.Errorf(commerce.EInternal, "issue a client token: %w", err)
	}
	return tok, s.opts.AccessTTL, true, nil
}

// Client returns an OAuth client. Errors: client_not_found.
func (s *Service) Client(ctx context.Context, id string) (*Client, error) {
	return s.store.Client(ctx, id)
}
