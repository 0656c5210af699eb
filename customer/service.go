package customer

import (
	"context"
	"encoding/json"
	"errors"
	"log/slog"
	"net/mail"
	"slices"
	"strings"
	"time"
	"unicode/utf8"

	"github.com/commercekit/commerce"
	"github.com/commercekit/commerce/auth"
	"github.com/commercekit/commerce/cart"
	"github.com/commercekit/commerce/event"
	"github.com/commercekit/commerce/internal/password"
	commercemail "github.com/commercekit/commerce/mail"
	"github.com/commercekit/commerce/order"
)

// Default lifetimes and lock-out (docs/api.md section 15).
const (
	DefaultAccessTTL  = 15 * time.Minute
	DefaultRefreshTTL = 30 * 24 * time.Hour
	ResetTTL          = time.Hour
	MaxFailures       = 5
	FailureWindow     = 15 * time.Minute
)

// Options configure the service; zero values take the defaults.
type Options struct {
	AccessTTL  time.Duration
	RefreshTTL time.Duration
	// Params are argon2id's parameters for new hashes (DefaultParams).
	Params *Params
	// Mail is the email area: with mail on, a password reset is an
	// email (docs/api.md section 22); nil is mail off.
	Mail *commercemail.Service
	// Locales are the store's languages, the default first (--locales;
	// the zero value is en alone): a customer's locale is one of them.
	Locales commerce.Locales
}

// Service is the customer area's use cases.
type Service struct {
	store Store
	keys  *auth.Keys
	now   func() time.Time
	opts  Options
	// dummyHash is the hash a login for an unknown email is checked
	// against.
	dummyHash func() string
	// exports give customer.export what other areas hold (SetExporter).
	exports map[string]Exporter
}

// NewService returns the service over store, minting access tokens with
// keys.
func NewService(store Store, keys *auth.Keys, now func() time.Time, opts Options) *Service {
	if opts.AccessTTL <= 0 {
		opts.AccessTTL = DefaultAccessTTL
	}
	if opts.RefreshTTL <= 0 {
		opts.RefreshTTL = DefaultRefreshTTL
	}
	if opts.Params == nil {
		p := DefaultParams
		opts.Params = &p
	}
	s := &Service{store: store, keys: keys, now: now, opts: opts, dummyHash: newDummyHash(*opts.Params)}
	go s.dummyHash() // computed once, ahead of the first login for an unknown email
	return s
}

// AccessTTL is the lifetime of the access tokens the service mints.
func (s *Service) AccessTTL() time.Duration { return s.opts.AccessTTL }

func (s *Service) clock() time.Time { return s.now().UTC().Truncate(time.Millisecond) }

// emit queues an event on CUSTOMERS about the customer id (its owner:
// customer.remove erases it).
func emit(tx Tx, typ string, now time.Time, id string, payload any) error {
	return event.EmitOwned(tx, event.Customers, typ, now, id, payload)
}

// checkEmail records the problem of an email (already normalised).
func checkEmail(p *commerce.Problems, path, email string) {
	if email == "" {
		p.Add(path, "required")
		return
	}
	a, err := mail.ParseAddress(email)
	if err != nil || a.Address != email || a.Name != "" || len(email) > 254 || !strings.Contains(email[strings.LastIndexByte(email, '@')+1:], ".") {
		p.Add(path, "must be an email address")
	}
}

// checkText records a problem of an optional free text field: at most 200
// characters.
func checkText(p *commerce.Problems, path, v string, required bool) {
	switch {
	case required && strings.TrimSpace(v) == "":
		p.Add(path, "required")
	case utf8.RuneCountInString(v) > 200:
		p.Add(path, "must be at most 200 characters")
	}
}

// Register creates an account (customer.register).
func (s *Service) Register(ctx context.Context, in RegisterInput) (*Customer, error) {
	var p commerce.Problems
	email := commerce.EmailKey(deref(in.Email))
	checkEmail(&p, "email", email)
	if in.Password == nil {
		p.Add("password", "required")
	} else {
		password.Check(&p, "password", *in.Password, email)
	}
	checkText(&p, "firstName", deref(in.FirstName), true)
	checkText(&p, "lastName", deref(in.LastName), false)
	phone := ""
	if in.Phone != nil {
		phone = string(*in.Phone)
	}
	checkText(&p, "phone", phone, false)
	locale := s.opts.Locales.Default()
	if in.Locale != nil {
		if l, err := s.opts.Locales.Check("locale", *in.Locale); err != nil {
			p.Add("locale", "must be one of %s", strings.Join(s.opts.Locales.All(), ", "))
		} else {
			locale = l
		}
	}
	if err := p.Err(); err != nil {
		return nil, err
	}
	hash, err := HashPassword(*in.Password, *s.opts.Params)
	if err != nil {
		return nil, err
	}
	now := s.clock()
	c := &Customer{ID: commerce.NewID(), Email: email, FirstName: strings.TrimSpace(*in.FirstName),
		LastName: strings.TrimSpace(deref(in.LastName)), Phone: phone, CustomerType: DefaultType,
		Addresses: []Address{}, Groups: []string{}, CreatedAt: now, PasswordHash: hash, Locale: locale}
	err = s.store.Update(ctx, func(tx Tx) error {
		if err := tx.Insert(ctx, c); err != nil {
			return err
		}
		return emit(tx, event.Create, now, c.ID, map[string]any{"customer": c})
	})
	if commerce.ErrorCode(err) == commerce.EDuplicateKey {
		return nil, &commerce.Error{Code: commerce.EDuplicateKey, Data: map[string]any{"index": "email", "email": email},
			Message: "email taken", Err: err}
	}
	if err != nil {
		return nil, err
	}
	return c, nil
}

// target returns the id of the customer the caller may act on: the
// caller's own account (id absent or the same), or anyone for an admin;
// anything else is customer_not_found.
func target(ctx context.Context, id string) (string, error) {
	cl, _ := commerce.ClaimsFrom(ctx)
	switch {
	case cl.IsAdmin() && id != "":
		return id, nil
	case id == "" && cl.CustomerID != "":
		return cl.CustomerID, nil
	case id == "" && cl.IsAdmin():
		return "", commerce.Invalid("id: required")
	case id != "" && id == cl.CustomerID:
		return id, nil
	}
	return "", NotFound(id)
}

// Info returns a customer (customer.info).
func (s *Service) Info(ctx context.Context, in InfoInput) (*Customer, error) {
	id, err := target(ctx, in.ID)
	if err != nil {
		return nil, err
	}
	return s.store.Customer(ctx, id)
}

// Email returns the email of the customer's account, "" when there is
// none (checkout gives it to the order when the shopper names no email).
func (s *Service) Email(ctx context.Context, id string) (string, error) {
	c, err := s.store.Customer(ctx, id)
	if commerce.ErrorCode(err) == commerce.ECustomerNotFound {
		return "", nil
	}
	if err != nil {
		return "", err
	}
	return c.Email, nil
}

// Pricing returns the customerType and groups of the customer's account,
// "" and none when there is none (a draft's and an exchange's prices are
// the customer's: the claims of their tokens).
func (s *Service) Pricing(ctx context.Context, id string) (string, []string, error) {
	c, err := s.store.Customer(ctx, id)
	if commerce.ErrorCode(err) == commerce.ECustomerNotFound {
		return "", nil, nil
	}
	if err != nil {
		return "", nil, err
	}
	return c.CustomerType, c.Groups, nil
}

// IDByEmail returns the id of the account with the email (normalised as
// accounts' are), "" when there is none (draft.create finds the
// customer by email).
func (s *Service) IDByEmail(ctx context.Context, email string) (string, error) {
	c, err := s.store.CustomerByEmail(ctx, commerce.EmailKey(email))
	if commerce.ErrorCode(err) == commerce.ECustomerNotFound {
		return "", nil
	}
	if err != nil {
		return "", err
	}
	return c.ID, nil
}

// change runs fn on the locked customer the caller may act on, in the
// transaction tx, saves it and emits UPDATE {customer}.
func (s *Service) change(ctx context.Context, rawID string, fn func(tx Tx, c *Customer) error) (*Customer, error) {
	id, err := target(ctx, rawID)
	if err != nil {
		return nil, err
	}
	now := s.clock()
	var out *Customer
	err = s.store.Update(ctx, func(tx Tx) error {
		c, err := tx.Lock(ctx, id)
		if err != nil {
			return err
		}
		if err := fn(tx, c); err != nil {
			return err
		}
		if err := tx.Save(ctx, c); err != nil {
			return err
		}
		out = c
		return emit(tx, event.Update, now, c.ID, map[string]any{"customer": c})
	})
	return out, err
}

// Update changes a customer's details or password (customer.update).
func (s *Service) Update(ctx context.Context, in UpdateInput) (*Customer, error) {
	cl, _ := commerce.ClaimsFrom(ctx)
	if in.CustomerType != nil && !cl.IsAdmin() {
		return nil, commerce.Errorf(commerce.EForbidden, "customerType can be set with an admin token only")
	}
	if in.Groups != nil && !cl.IsAdmin() {
		return nil, commerce.Errorf(commerce.EForbidden, "groups can be set with an admin token only")
	}
	var groups []string
	if in.Groups != nil {
		groups = []string{}
		for i, g := range *in.Groups {
			g = strings.TrimSpace(g)
			if !GroupCode.MatchString(g) {
				return nil, commerce.Invalid(commerce.Index("groups", i) + ": must be a group code ([A-Z0-9_-]{1,40})")
			}
			if !slices.Contains(groups, g) {
				groups = append(groups, g)
			}
		}
	}
	var p commerce.Problems
	if in.FirstName != nil {
		checkText(&p, "firstName", *in.FirstName, true)
	}
	if in.LastName != nil {
		checkText(&p, "lastName", *in.LastName, false)
	}
	if in.Phone != nil {
		checkText(&p, "phone", string(*in.Phone), false)
	}
	if in.CustomerType != nil {
		if t := strings.TrimSpace(*in.CustomerType); t == "" || len(t) > 64 {
			p.Add("customerType", "must be a customer type such as VIP, B2B or B2C")
		}
	}
	if in.CurrentPassword != nil && in.Password == nil {
		p.Add("currentPassword", "only with password")
	}
	locale := ""
	if in.Locale != nil {
		if l, err := s.opts.Locales.Check("locale", *in.Locale); err != nil {
			p.Add("locale", "must be one of %s", strings.Join(s.opts.Locales.All(), ", "))
		} else {
			locale = l
		}
	}
	if err := p.Err(); err != nil {
		return nil, err
	}
	newHash, checkedHash := "", ""
	if in.Password != nil {
		// The current password and the new one's rules need the stored
		// account, read before the (slow) hashing, outside the transaction.
		id, err := target(ctx, in.ID)
		if err != nil {
			return nil, err
		}
		c, err := s.store.Customer(ctx, id)
		if err != nil {
			return nil, err
		}
		password.Check(&p, "password", *in.Password, c.Email)
		if in.CurrentPassword != nil && len(*in.CurrentPassword) > 4*MaxPasswordLen {
			p.Add("currentPassword", "must be at most %d characters long", MaxPasswordLen)
		}
		if err := p.Err(); err != nil {
			return nil, err
		}
		if in.CurrentPassword == nil || *in.CurrentPassword == "" {
			return nil, invalidCredentials() // no guess: nothing to count
		}
		// A guess of the current password counts as a login attempt for
		// the email (the same limit: too_many_attempts once locked, even
		// when it is right), so that an access token does not allow
		// guessing it without bound.
		if err := s.attempt(ctx, c.Email, s.clock()); err != nil {
			return nil, err
		}
		ok, err := VerifyPassword(*in.CurrentPassword, c.PasswordHash)
		if err != nil {
			return nil, commerce.Errorf(commerce.EInternal, "customer %s: stored password hash: %w", c.ID, err)
		}
		if !ok {
			return nil, invalidCredentials()
		}
		checkedHash = c.PasswordHash
		if newHash, err = HashPassword(*in.Password, *s.opts.Params); err != nil {
			return nil, err
		}
	}
	return s.change(ctx, in.ID, func(tx Tx, c *Customer) error {
		if in.FirstName != nil {
			c.FirstName = strings.TrimSpace(*in.FirstName)
		}
		if in.LastName != nil {
			c.LastName = strings.TrimSpace(*in.LastName)
		}
		if in.Phone != nil {
			c.Phone = string(*in.Phone)
		}
		if in.CustomerType != nil {
			c.CustomerType = strings.TrimSpace(*in.CustomerType)
		}
		if groups != nil {
			if err := tx.CheckGroups(ctx, groups); err != nil {
				return err
			}
			c.Groups = groups
		}
		if locale != "" {
			c.Locale = locale
		}
		if newHash != "" {
			if c.PasswordHash != checkedHash {
				return invalidCredentials() // changed since currentPassword was checked
			}
			c.PasswordHash = newHash
			// The right current password forgets the failures, as a
			// successful login does.
			if err := tx.SetFailures(ctx, c.Email, nil); err != nil {
				return err
			}
		}
		return nil
	})
}

// MaxAddresses is the most addresses an address book holds.
const MaxAddresses = 50

// AddAddress adds an address to a customer's book (customer.addAddress).
// A default address makes the others not default.
func (s *Service) AddAddress(ctx context.Context, in AddAddressInput) (*Customer, error) {
	var p commerce.Problems
	var addr *cart.Address
	p.CheckArgs("", in) // address
	if in.Address != nil {
		addr = cart.ReadAddress(&p, "address", &in.Address.AddressArg)
	}
	if err := p.Err(); err != nil {
		return nil, err
	}
	if err := addr.CheckPlace("address"); err != nil {
		return nil, err
	}
	return s.change(ctx, in.ID, func(_ Tx, c *Customer) error {
		if len(c.Addresses) >= MaxAddresses {
			return commerce.Invalid("address: an address book holds at most 50 addresses")
		}
		if in.Address.Default {
			for i := range c.Addresses {
				c.Addresses[i].Default = false
			}
		}
		c.Addresses = append(c.Addresses, Address{ID: commerce.NewID(), Address: *addr, Default: in.Address.Default})
		return nil
	})
}

// RemoveAddress removes an address from a customer's book
// (customer.removeAddress). Errors: address_not_found (data: addressId).
func (s *Service) RemoveAddress(ctx context.Context, in RemoveAddressInput) (*Customer, error) {
	if err := commerce.CheckArgs(in); err != nil { // addressId
		return nil, err
	}
	return s.change(ctx, in.ID, func(_ Tx, c *Customer) error {
		i := slices.IndexFunc(c.Addresses, func(a Address) bool { return a.ID == in.AddressID })
		if i < 0 {
			return AddressNotFound(in.AddressID)
		}
		c.Addresses = slices.Delete(c.Addresses, i, i+1)
		return nil
	})
}

// List returns a page of customers (customer.list, admin).
func (s *Service) List(ctx context.Context, in ListInput) (commerce.Page, []Customer, error) {
	page, err := in.Page()
	if err != nil {
		return page, nil, err
	}
	out, err := s.store.Customers(ctx, Filter{Email: in.Email, CustomerTypes: in.CustomerType, Limit: page.Limit, Skip: page.Skip})
	return page, out, err
}

// Remove deletes an account with its addresses and tokens and erases the
// personal data of its orders and carts, of its events in the event log
// and of stored idempotent answers (customer.remove, eraseRecords); it
// emits REMOVE {id}.
//
// Against a concurrent checkout (which locks the cart, then the account's
// row: cart.Tx.LockCustomer) it locks in the same order: the customer's
// carts first (waiting for a checkout holding one), then the account's
// row, and only then reads the orders, so that every order placed before
// is seen (PostgreSQL reads committed data per statement) and erased,
// and a checkout after it finds the account gone and places no order. The
// carts are read once more after the account's row is held: a cart that
// became the customer's meanwhile (a guest cart adopted at sign-in) is not
// locked then, after the account (which could deadlock with its
// checkout), but the transaction is given up and the removal starts again,
// locking it first (at most removeRounds times).
func (s *Service) Remove(ctx context.Context, in RemoveInput) error {
	id, err := target(ctx, in.ID)
	if err != nil {
		return err
	}
	for round := 1; ; round++ {
		err := s.remove(ctx, id)
		if !errors.Is(err, errCartsMoved) {
			return err
		}
		if round == removeRounds {
			return commerce.Errorf(commerce.EConcurrentMod, "customer %s: carts keep changing", id)
		}
	}
}

// removeRounds bounds the rounds of a removal that keeps finding new carts
// of the customer (each one means another sign-in adopted a cart).
const removeRounds = 5

// errCartsMoved tells Remove that the customer gained a cart while its
// removal's transaction ran.
var errCartsMoved = errors.New("the customer's carts changed")

func (s *Service) remove(ctx context.Context, id string) error {
	now := s.clock()
	return s.store.Update(ctx, func(tx Tx) error {
		erased := map[string]bool{}
		if err := eraseCarts(ctx, tx, id, erased); err != nil {
			return err
		}
		c, err := tx.Lock(ctx, id)
		if err != nil {
			return err
		}
		orders, err := tx.Orders().CustomerOrders(ctx, c.ID)
		if err != nil {
			return err
		}
		for _, o := range orders {
			o.Erase(now)
			if err := tx.Orders().Save(ctx, o); err != nil {
				return err
			}
		}
		ids, err := tx.CartIDs(ctx, c.ID)
		if err != nil {
			return err
		}
		for _, cartID := range ids {
			if !erased[cartID] {
				return errCartsMoved
			}
		}
		if err := tx.Delete(ctx, c.ID); err != nil {
			return err
		}
		if err := tx.Mail().EraseCustomer(ctx, c.ID); err != nil { // section 22
			return err
		}
		if err := tx.SetFailures(ctx, c.Email, nil); err != nil {
			return err
		}
		if err := eraseRecords(ctx, tx, c.ID, ids); err != nil {
			return err
		}
		return emit(tx, event.Remove, now, c.ID, map[string]any{"id": c.ID})
	})
}

// eraseCarts erases the addresses of the customer's carts, whatever their
// status, as the orders' are erased: a checked-out cart holds the
// addresses its order had. Carts keep their items and totals, and the
// erasure emits no CARTS event (the orders' emits no ORDERS event either:
// the CUSTOMERS REMOVE tells subscribers to erase what they keep). Each
// cart is locked (and one in done skipped, then added to done), in the
// order of their ids.
func eraseCarts(ctx context.Context, tx Tx, customerID string, done map[string]bool) error {
	ids, err := tx.CartIDs(ctx, customerID)
	if err != nil {
		return err
	}
	for _, id := range ids {
		if done[id] {
			continue
		}
		done[id] = true
		c, err := tx.Cart().Lock(ctx, id)
		if err != nil {
			return err
		}
		if c.ShippingAddress == nil && c.BillingAddress == nil {
			continue
		}
		eraseAddress(c.ShippingAddress)
		eraseAddress(c.BillingAddress)
		if err := tx.Cart().Save(ctx, c, nil); err != nil {
			return err
		}
	}
	return nil
}

// eraseAddress replaces every field of an address but its country and
// state with "[erased]" (order.Erased); a field left empty stays empty.
func eraseAddress(a *cart.Address) {
	if a == nil {
		return
	}
	for _, f := range []*string{&a.FirstName, &a.LastName, &a.Address1, &a.City, &a.Company, &a.Instructions} {
		if *f != "" {
			*f = order.Erased
		}
	}
	for _, f := range []*cart.Text{&a.PostCode, &a.Phone} {
		if *f != "" {
			*f = order.Erased
		}
	}
	if len(a.Address2) > 0 && string(a.Address2) != "null" {
		a.Address2 = json.RawMessage(`"` + order.Erased + `"`)
	}
}

// DefaultSweep is how often Run sweeps when given no interval.
const DefaultSweep = time.Hour

// Sweep deletes what no longer serves: refresh and reset tokens past
// their expiry, and the login failures of emails whose newest failure left
// the lock-out window. It returns how many rows it deleted.
func (s *Service) Sweep(ctx context.Context) (int64, error) {
	now := s.clock()
	return s.store.Sweep(ctx, now, now.Add(-FailureWindow))
}

// Run sweeps every interval (DefaultSweep when 0) until ctx ends.
func (s *Service) Run(ctx context.Context, every time.Duration, logger *slog.Logger) {
	if every <= 0 {
		every = DefaultSweep
	}
	commerce.Sweep(ctx, every, logger, "customer", s.Sweep)
}

func deref(s *string) string {
	if s == nil {
		return ""
	}
	return *s
}

// isNotFound reports a customer_not_found error.
func isNotFound(err error) bool {
	var e *commerce.Error
	return errors.As(err, &e) && e.Code == commerce.ECustomerNotFound
}
