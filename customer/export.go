package customer

import (
	"context"
	"time"

	"github.com/commercekit/commerce/cart"
	"github.com/commercekit/commerce/order"
)

// Held is everything the customer area's storage holds about a customer,
// read in one snapshot (Store.Held): the account, its carts (any status)
// and orders, and its sign-ins, reset requests and login failures, each
// without its hash.
type Held struct {
	Customer *Customer
	Carts    []*cart.Cart
	// Orders, newest first.
	Orders        []*order.Order
	RefreshTokens []RefreshToken
	ResetTokens   []ResetToken
	LoginFailures []time.Time
}

// Exporter gives what another area holds about a customer for
// customer.export (the messages sent to them, their returns), as a list of
// records marshaled to JSON.
type Exporter interface {
	Export(ctx context.Context, c *Customer) ([]any, error)
}

// SetExporter makes x give the list name (ExportEmails, ExportReturns) of
// customer.export; until an area does, the list is empty. It is called
// while the service is wired, before it serves. The mail area (docs/api.md
// section 22) gives the emails sent, the returns (section 24) the returns.
func (s *Service) SetExporter(name string, x Exporter) {
	if s.exports == nil {
		s.exports = map[string]Exporter{}
	}
	s.exports[name] = x
}

// Export is the answer of customer.export (docs/api.md section 29, GDPR
// article 15): everything the store holds about a customer. Secrets and
// their hashes (password, refresh and reset tokens) are never in it.
type Export struct {
	ExportedAt time.Time      `json:"exportedAt"`
	Account    Account        `json:"account"`
	Addresses  []Address      `json:"addresses"`
	Orders     []*order.Order `json:"orders"`
	Returns    []any          `json:"returns"`
	Carts      []cart.View    `json:"carts"`
	Emails     []any          `json:"emails"`
	Consents   []any          `json:"consents"`
	SignIns    []SignIn       `json:"signIns"`
	// PasswordResets are the reset requests not yet used or swept.
	PasswordResets []Expiring  `json:"passwordResets"`
	LoginFailures  []time.Time `json:"loginFailures"`
}

// Account is the account's own fields in an export (its addresses come
// beside it).
type Account struct {
	ID           string    `json:"id"`
	Email        string    `json:"email"`
	FirstName    string    `json:"firstName"`
	LastName     string    `json:"lastName"`
	Phone        string    `json:"phone"`
	CustomerType string    `json:"customerType"`
	CreatedAt    time.Time `json:"createdAt"`
}

// SignIn is a refresh token of the customer in an export: when it
// expires and whether it was spent (never the token or its hash).
type SignIn struct {
	ExpiresAt time.Time `json:"expiresAt"`
	Spent     bool      `json:"spent"`
}

// Expiring is a stored reset request in an export: when it expires.
type Expiring struct {
	ExpiresAt time.Time `json:"expiresAt"`
}

// The names of the lists other areas fill in an export (SetExporter).
const (
	ExportEmails  = "emails"
	ExportReturns = "returns"
)

// Export returns everything held about a customer (customer.export): a
// customer token its own account, an admin token any (others get
// customer_not_found, as customer.info). The store's part is read in one
// snapshot; the parts of other areas (SetExporter: emails, returns)
// after it, and are empty lists while no area gives them. The store holds
// no consents yet: an empty list.
func (s *Service) Export(ctx context.Context, in ExportInput) (*Export, error) {
	id, err := target(ctx, in.ID)
	if err != nil {
		return nil, err
	}
	h, err := s.store.Held(ctx, id)
	if err != nil {
		return nil, err
	}
	c := h.Customer
	out := &Export{
		ExportedAt: s.clock(),
		Account: Account{ID: c.ID, Email: c.Email, FirstName: c.FirstName, LastName: c.LastName, Phone: c.Phone,
			CustomerType: c.CustomerType, CreatedAt: c.CreatedAt},
		Addresses: c.Addresses, Orders: h.Orders, Returns: []any{}, Carts: []cart.View{}, Emails: []any{}, Consents: []any{},
		SignIns: []SignIn{}, PasswordResets: []Expiring{}, LoginFailures: h.LoginFailures,
	}
	if out.Addresses == nil {
		out.Addresses = []Address{}
	}
	if out.LoginFailures == nil {
		out.LoginFailures = []time.Time{}
	}
	if out.Orders == nil {
		out.Orders = []*order.Order{}
	}
	for _, ct := range h.Carts {
		out.Carts = append(out.Carts, cart.Render(ct, cart.CalculateForm))
	}
	for _, r := range h.RefreshTokens {
		out.SignIns = append(out.SignIns, SignIn{ExpiresAt: r.ExpiresAt, Spent: r.Spent})
	}
	for _, r := range h.ResetTokens {
		out.PasswordResets = append(out.PasswordResets, Expiring{ExpiresAt: r.ExpiresAt})
	}
	for name, x := range s.exports {
		if x == nil {
			continue
		}
		v, err := x.Export(ctx, c)
		if err != nil {
			return nil, err
		}
		if v == nil {
			v = []any{}
		}
		switch name {
		case ExportEmails:
			out.Emails = v
		case ExportReturns:
			out.Returns = v
		}
	}
	return out, nil
}
