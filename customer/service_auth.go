package customer

import (
	"context"
	commercemail "github.com/commercekit/commerce/mail"
	"math"
	"slices"
	"time"

	"github.com/commercekit/commerce"
	"github.com/commercekit/commerce/cart"
	"github.com/commercekit/commerce/event"
	"github.com/commercekit/commerce/internal/password"
)

// Session is the answer of auth.login and auth.refresh.
type Session struct {
	AccessToken  string    `json:"accessToken"`
	TokenType    string    `json:"tokenType"`
	ExpiresIn    int64     `json:"expiresIn"`
	RefreshToken string    `json:"refreshToken"`
	Customer     *Customer `json:"customer"`
}

// accessToken mints the customer's access token (docs/api.md section 3
// claims: scope api, sub and customerId its id, customerType, and the
// country of its default address).
func (s *Service) accessToken(c *Customer, now time.Time) (string, error) {
	cl := commerce.Claims{Subject: c.ID, Scopes: []string{commerce.ScopeAPI}, CustomerID: c.ID, CustomerType: c.CustomerType, Groups: c.Groups}
	if a := c.DefaultAddress(); a != nil {
		cl.Country = a.Country
	}
	tok, err := s.keys.Issue(cl, now, s.opts.AccessTTL)
	if err != nil {
		return "", commerce.Errorf(commerce.EInternal, "issue an access token: %w", err)
	}
	return tok, nil
}

// newRefresh returns a new refresh token of the family and its record.
func (s *Service) newRefresh(customerID, family string, now time.Time) (string, RefreshToken) {
	tok := NewSecret()
	return tok, RefreshToken{Hash: HashSecret(tok), Family: family, CustomerID: customerID, ExpiresAt: now.Add(s.opts.RefreshTTL)}
}

// liveFailures returns the failures within the window before now, oldest
// first.
func liveFailures(at []time.Time, now time.Time) []time.Time {
	out := make([]time.Time, 0, len(at))
	for _, t := range at {
		if now.Sub(t) < FailureWindow {
			out = append(out, t)
		}
	}
	slices.SortFunc(out, func(a, b time.Time) int { return a.Compare(b) })
	return out
}

// tooManyAttempts is 429 too_many_attempts with the seconds until the
// oldest of the last MaxFailures failures leaves the window.
func tooManyAttempts(live []time.Time, now time.Time) *commerce.Error {
	until := live[len(live)-MaxFailures].Add(FailureWindow).Sub(now)
	secs := max(1, int64(math.Ceil(until.Seconds())))
	return &commerce.Error{Code: commerce.ETooManyAttempts, Data: map[string]any{"retryAfter": secs},
		Message: "too many failed password attempts for the email"}
}

// attempt decides, before a password of the email is checked, whether it
// may be: in one transaction it locks the email's failures and either
// refuses (too_many_attempts, once MaxFailures failures are recorded
// within FailureWindow) or records this attempt as a failure in advance,
// which a success forgets (SetFailures with none, in the transaction that
// acts on it). auth.login and customer.update's currentPassword share it,
// so the two count in one limit per email.
func (s *Service) attempt(ctx context.Context, email string, now time.Time) error {
	var refused *commerce.Error
	err := s.store.Update(ctx, func(tx Tx) error {
		refused = nil
		at, err := tx.LockFailures(ctx, email)
		if err != nil {
			return err
		}
		live := liveFailures(at, now)
		if len(live) >= MaxFailures {
			refused = tooManyAttempts(live, now)
			return nil
		}
		return tx.SetFailures(ctx, email, append(live, now))
	})
	if err != nil {
		return err
	}
	if refused != nil {
		return refused
	}
	return nil
}

// Login signs a customer in (auth.login).
//
// The lock-out is decided before the password is checked, in the database
// and once per attempt (attempt): a first transaction locks the email's
// failures and either refuses (too_many_attempts) or records this attempt
// as a failure in advance; only then is the password checked (argon2id, also
// for an unknown email, against a dummy hash, so both take the same
// time). A success forgets the email's failures in the transaction that
// opens the sign-in. So of any number of concurrent attempts, in any
// number of processes sharing the database, at most MaxFailures are
// judged within a window.
func (s *Service) Login(ctx context.Context, in LoginInput) (*Session, error) {
	email := commerce.EmailKey(in.Email)
	if email == "" || in.Password == "" || len(email) > 254 || len(in.Password) > 4*MaxPasswordLen {
		// Malformed requests are not attempts: nothing to count or hash.
		var p commerce.Problems
		if email == "" {
			p.Add("email", "required")
		} else if len(email) > 254 {
			p.Add("email", "must be an email address")
		}
		if in.Password == "" {
			p.Add("password", "required")
		} else if len(in.Password) > 4*MaxPasswordLen {
			p.Add("password", "must be at most %d characters long", MaxPasswordLen)
		}
		return nil, p.Err()
	}
	now := s.clock()
	if err := s.attempt(ctx, email, now); err != nil {
		return nil, err
	}

	c, err := s.store.CustomerByEmail(ctx, email)
	hash := ""
	switch {
	case err == nil:
		hash = c.PasswordHash
	case isNotFound(err):
		hash = s.dummyHash()
	default:
		return nil, err
	}
	ok, verr := VerifyPassword(in.Password, hash)
	if verr != nil {
		return nil, commerce.Errorf(commerce.EInternal, "login: stored password hash: %w", verr)
	}
	if c == nil || !ok {
		return nil, invalidCredentials()
	}

	rehash := ""
	if NeedsRehash(c.PasswordHash, *s.opts.Params) {
		// Parameters raised since it was stored: upgrade it now that the
		// password is known.
		if rehash, err = HashPassword(in.Password, *s.opts.Params); err != nil {
			return nil, err
		}
	}
	refresh, rec := s.newRefresh(c.ID, commerce.NewID(), now)
	var signedIn *Customer
	err = s.store.Update(ctx, func(tx Tx) error {
		// The cart before the account, in the order a checkout locks them
		// (cart.Tx.LockCustomer): a sign-in naming the customer's own cart
		// while it checks out waits for it rather than deadlocking.
		if in.CartID != "" {
			if err := adoptCart(ctx, tx, in.CartID, c.ID, now); err != nil {
				return err
			}
		}
		cur, err := tx.Lock(ctx, c.ID)
		if err != nil {
			return err
		}
		if cur.PasswordHash != c.PasswordHash {
			// The password changed while it was checked.
			return invalidCredentials()
		}
		if err := tx.SetFailures(ctx, email, nil); err != nil {
			return err
		}
		if rehash != "" {
			cur.PasswordHash = rehash
			if err := tx.Save(ctx, cur); err != nil {
				return err
			}
		}
		if err := tx.InsertRefresh(ctx, rec); err != nil {
			return err
		}
		signedIn = cur
		return nil
	})
	if commerce.ErrorCode(err) == commerce.ECustomerNotFound {
		return nil, invalidCredentials() // removed while it was checked
	}
	if err != nil {
		return nil, err
	}
	access, err := s.accessToken(signedIn, now)
	if err != nil {
		return nil, err
	}
	return &Session{AccessToken: access, TokenType: "Bearer", ExpiresIn: int64(s.opts.AccessTTL / time.Second),
		RefreshToken: refresh, Customer: signedIn}, nil
}

// adoptCart makes an ACTIVE, unexpired ANON cart the customer's and emits
// CARTS UPDATE {operation: "auth.login", data: {cartId}, new} (data is not
// the login's input: that holds the password); any other cart (unknown,
// someone's, not active) is left alone, and it is no error.
func adoptCart(ctx context.Context, tx Tx, cartID, customerID string, now time.Time) error {
	ct := tx.Cart()
	c, err := ct.Lock(ctx, cartID)
	if commerce.ErrorCode(err) == commerce.ECartNotFound {
		return nil
	}
	if err != nil {
		return err
	}
	if c.Status != cart.StatusActive || c.CustomerID != cart.Anonymous || !c.ExpirationTime.After(now) {
		return nil
	}
	c.CustomerID = customerID
	if err := ct.Save(ctx, c, nil); err != nil {
		return err
	}
	e, err := event.New(event.Carts, event.Update, now, map[string]any{
		"operation": "auth.login", "data": map[string]any{"cartId": cartID}, "new": cart.Render(c, cart.CalculateForm)})
	if err != nil {
		return err
	}
	tx.Emit(e.Owned(cartID))
	return nil
}

// Refresh spends a refresh token for a new pair (auth.refresh). A spent
// token presented again revokes its whole sign-in.
func (s *Service) Refresh(ctx context.Context, in RefreshInput) (*Session, error) {
	if err := commerce.CheckArgs(in); err != nil { // refreshToken
		return nil, err
	}
	now := s.clock()
	hash := HashSecret(in.RefreshToken)
	var refused bool
	var out *Session
	err := s.store.Update(ctx, func(tx Tx) error {
		refused, out = false, nil
		old, err := tx.LockRefresh(ctx, hash)
		if err != nil {
			return err
		}
		if old.Spent {
			// Reuse: someone else has (had) this token. End the sign-in.
			refused = true
			return tx.RevokeFamily(ctx, old.Family)
		}
		if !old.ExpiresAt.After(now) {
			return invalidToken()
		}
		c, err := tx.Lock(ctx, old.CustomerID)
		if err != nil {
			return err
		}
		if err := tx.SpendRefresh(ctx, hash); err != nil {
			return err
		}
		tok, rec := s.newRefresh(c.ID, old.Family, now)
		if err := tx.InsertRefresh(ctx, rec); err != nil {
			return err
		}
		access, err := s.accessToken(c, now)
		if err != nil {
			return err
		}
		out = &Session{AccessToken: access, TokenType: "Bearer", ExpiresIn: int64(s.opts.AccessTTL / time.Second),
			RefreshToken: tok, Customer: c}
		return nil
	})
	switch code := commerce.ErrorCode(err); {
	case code == commerce.ECustomerNotFound:
		return nil, invalidToken()
	case err != nil:
		return nil, err
	case refused:
		return nil, invalidToken()
	}
	return out, nil
}

// Logout ends the sign-in of a refresh token (auth.logout). An unknown
// token is no error: there is nothing left to end.
func (s *Service) Logout(ctx context.Context, in RefreshInput) error {
	if err := commerce.CheckArgs(in); err != nil { // refreshToken
		return err
	}
	hash := HashSecret(in.RefreshToken)
	err := s.store.Update(ctx, func(tx Tx) error {
		t, err := tx.LockRefresh(ctx, hash)
		if err != nil {
			return err
		}
		return tx.RevokeFamily(ctx, t.Family)
	})
	if commerce.ErrorCode(err) == commerce.EInvalidToken {
		return nil
	}
	return err
}

// RequestPasswordReset makes a reset token for an existing account
// (auth.requestPasswordReset); it answers the same for an unknown email.
// With mail off it emits PASSWORD_RESET with the token (part two); with
// mail on the token goes only into the password_reset email, queued in
// the same transaction, and the event carries {customerId} only; past
// the address's throttle (mail.ResetLimit an hour) nothing happens.
func (s *Service) RequestPasswordReset(ctx context.Context, in RequestResetInput) error {
	if err := commerce.CheckArgs(in); err != nil { // email (blank: EmailKey trims it)
		return err
	}
	email := commerce.EmailKey(in.Email)
	c, err := s.store.CustomerByEmail(ctx, email)
	if isNotFound(err) {
		return nil
	}
	if err != nil {
		return err
	}
	now := s.clock()
	tok := NewSecret()
	rec := ResetToken{Hash: HashSecret(tok), CustomerID: c.ID, ExpiresAt: now.Add(ResetTTL)}
	err = s.store.Update(ctx, func(tx Tx) error {
		if _, err := tx.Lock(ctx, c.ID); err != nil {
			return err
		}
		if m := s.opts.Mail; m != nil && m.On() {
			e, err := event.New(event.Customers, PasswordReset, now, map[string]any{"customerId": c.ID})
			if err != nil {
				return err
			}
			queued, err := m.QueueReset(ctx, tx.Mail(), commercemail.Reset{EventID: e.ID, Token: tok, ExpiresAt: rec.ExpiresAt,
				Customer: commercemail.Recipient{ID: c.ID, Email: c.Email, FirstName: c.FirstName, Locale: c.Locale}})
			if err != nil || !queued {
				return err
			}
			tx.Emit(e)
			return tx.InsertReset(ctx, rec)
		}
		if err := tx.InsertReset(ctx, rec); err != nil {
			return err
		}
		return emit(tx, PasswordReset, now, c.ID, map[string]any{
			"customerId": c.ID, "email": c.Email, "token": tok, "expiresAt": rec.ExpiresAt})
	})
	if commerce.ErrorCode(err) == commerce.ECustomerNotFound {
		return nil // removed meanwhile
	}
	return err
}

// ResetPassword sets a new password with a reset token (auth.resetPassword):
// the token works once, within an hour, and the customer's sign-ins end.
func (s *Service) ResetPassword(ctx context.Context, in ResetInput) (*Customer, error) {
	if in.Token == "" {
		return nil, invalidResetToken()
	}
	now := s.clock()
	hash := HashSecret(in.Token)
	rt, err := s.store.ResetToken(ctx, hash)
	if err != nil {
		return nil, err
	}
	if !rt.ExpiresAt.After(now) {
		return nil, invalidResetToken()
	}
	c, err := s.store.Customer(ctx, rt.CustomerID)
	if isNotFound(err) {
		return nil, invalidResetToken()
	}
	if err != nil {
		return nil, err
	}
	var p commerce.Problems
	password.Check(&p, "password", in.Password, c.Email)
	if err := p.Err(); err != nil {
		return nil, err
	}
	newHash, err := HashPassword(in.Password, *s.opts.Params)
	if err != nil {
		return nil, err
	}
	var out *Customer
	err = s.store.Update(ctx, func(tx Tx) error {
		t, err := tx.TakeReset(ctx, hash, now)
		if err != nil {
			return err
		}
		c, err := tx.Lock(ctx, t.CustomerID)
		if err != nil {
			return err
		}
		c.PasswordHash = newHash
		if err := tx.Save(ctx, c); err != nil {
			return err
		}
		if err := tx.RevokeCustomer(ctx, c.ID); err != nil {
			return err
		}
		if err := tx.DeleteResets(ctx, c.ID); err != nil {
			return err
		}
		if err := tx.SetFailures(ctx, c.Email, nil); err != nil {
			return err
		}
		out = c
		return emit(tx, event.Update, now, c.ID, map[string]any{"customer": c})
	})
	if commerce.ErrorCode(err) == commerce.ECustomerNotFound {
		return nil, invalidResetToken()
	}
	return out, err
}
