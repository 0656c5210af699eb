package staff

import (
	"context"
	"strings"
	"time"

	"github.com/commercekit/commerce"
	"github.com/commercekit/commerce/internal/password"
	"github.com/commercekit/commerce/mail"
)

// List returns every account, by email.
func (s *Service) List(ctx context.Context) ([]Staff, error) { return s.store.List(ctx) }

// ByID returns an account. Errors: staff_not_found.
func (s *Service) ByID(ctx context.Context, id string) (Staff, error) { return s.store.ByID(ctx, id) }

// ByEmail returns an account. Errors: staff_not_found.
func (s *Service) ByEmail(ctx context.Context, email string) (Staff, error) {
	st, _, err := s.store.ByEmail(ctx, commerce.EmailKey(email))
	if commerce.ErrorCode(err) == commerce.EInvalidCredentials {
		return Staff{}, NotFound(commerce.EmailKey(email))
	}
	return st, err
}

// Invite creates an account without a password and emails its address a
// link, valid InviteTTL, to set one (staff_invite): link is the page's
// address, the token is appended as ?token=. Errors: validation_error,
// duplicate_key, unavailable (mail is off: nobody would get the link).
func (s *Service) Invite(ctx context.Context, email, role, link, locale string) (Staff, error) {
	var p commerce.Problems
	if msg := commerce.TextProblem(email); msg != "" {
		p.Add("email", "%s", msg)
		return Staff{}, p.Err()
	}
	email = checkEmail(&p, email)
	r := checkRole(&p, role)
	if err := p.Err(); err != nil {
		return Staff{}, err
	}
	if s.Mail == nil || !s.Mail.On() {
		return Staff{}, commerce.Errorf(commerce.EUnavailable, "email is off (--mail none): an invitation cannot be sent")
	}
	now := s.now().UTC()
	st := Staff{ID: commerce.NewID(), Email: email, Role: r, Invited: true, CreatedAt: now.Truncate(time.Millisecond)}
	token := newToken()
	sep := "?"
	if strings.Contains(link, "?") {
		sep = "&"
	}
	in := mail.Invite{To: email, URL: link + sep + "token=" + token, Token: token, ExpiresAt: now.Add(InviteTTL), Locale: locale}
	err := s.store.Invite(ctx, st, HashSession(token), now.Add(InviteTTL), func(tx mail.Tx) error {
		return s.Mail.QueueInvite(ctx, tx, in)
	})
	return st, err
}

// Accept sets the password of an invited account from its invitation's
// token. Errors: validation_error (the password's rules), invalid_invite.
func (s *Service) Accept(ctx context.Context, token, pw string) (Staff, error) {
	if token == "" || len(token) > 100 {
		return Staff{}, commerce.NewError(EInvalidInvite, nil)
	}
	var p commerce.Problems
	if msg := commerce.TextProblem(pw); msg != "" {
		p.Add("password", "%s", msg)
		return Staff{}, p.Err()
	}
	password.Check(&p, "password", pw, "")
	if err := p.Err(); err != nil {
		return Staff{}, err
	}
	hash, err := password.Hash(pw, s.Params)
	if err != nil {
		return Staff{}, commerce.Errorf(commerce.EInternal, "hash the password: %w", err)
	}
	return s.store.Accept(ctx, HashSession(token), s.now().UTC(), hash)
}

// SetRole changes a member's role. Errors: validation_error,
// staff_not_found, last_owner.
func (s *Service) SetRole(ctx context.Context, id, role string) (Staff, error) {
	var p commerce.Problems
	r := checkRole(&p, role)
	if err := p.Err(); err != nil {
		return Staff{}, err
	}
	return s.store.SetRole(ctx, id, r)
}

// Disable disables (or with false enables) a member: their sessions end
// at once, in every process (sessions are read from the database on each
// request). Errors: staff_not_found, last_owner.
func (s *Service) Disable(ctx context.Context, id string, disabled bool) (Staff, error) {
	return s.store.SetDisabled(ctx, id, disabled)
}

// Remove deletes a member and their sessions. Errors: staff_not_found,
// last_owner.
func (s *Service) Remove(ctx context.Context, id string) (Staff, error) {
	return s.store.Remove(ctx, id)
}

// SetPassword replaces a member's password (the same rules as Add) and
// ends their sessions but the one whose id is keep ("" for none).
// Errors: validation_error, staff_not_found.
func (s *Service) SetPassword(ctx context.Context, id, pw, keep string) error {
	st, err := s.store.ByID(ctx, id)
	if err != nil {
		return err
	}
	var p commerce.Problems
	if msg := commerce.TextProblem(pw); msg != "" {
		p.Add("password", "%s", msg)
		return p.Err()
	}
	password.Check(&p, "password", pw, st.Email)
	if err := p.Err(); err != nil {
		return err
	}
	hash, err := password.Hash(pw, s.Params)
	if err != nil {
		return commerce.Errorf(commerce.EInternal, "hash the password: %w", err)
	}
	k := ""
	if keep != "" {
		k = HashSession(keep)
	}
	return s.store.SetPassword(ctx, id, hash, k)
}

// ChangePassword is a member's change of their own password: the current
// one must be right. Errors: validation_error, invalid_credentials.
func (s *Service) ChangePassword(ctx context.Context, st Staff, current, pw, session string) error {
	_, hash, err := s.store.ByEmail(ctx, st.Email)
	if err != nil {
		return err
	}
	if ok, verr := password.Verify(current, hash); verr != nil || !ok {
		return commerce.NewError(commerce.EInvalidCredentials, nil)
	}
	return s.SetPassword(ctx, st.ID, pw, session)
}
