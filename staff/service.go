package staff

import (
	"context"
	"crypto/rand"
	"crypto/sha256"
	"encoding/base64"
	"encoding/hex"
	"math"
	"strings"
	"sync"
	"time"

	"github.com/commercekit/commerce"
	"github.com/commercekit/commerce/internal/password"
	"github.com/commercekit/commerce/mail"
)

// Service manages staff accounts and their sessions.
type Service struct {
	store Store
	now   func() time.Time
	// Params are the argon2id parameters of new hashes.
	Params password.Params
	// Mail queues invitations (nil: Invite refuses).
	Mail *mail.Service
	// Require2FA makes the second factor mandatory (--admin-require-2fa):
	// a member without one signs in only to set it up.
	Require2FA bool
	// dummy is a hash to check passwords of unknown emails against, so
	// that they take as long as known ones.
	dummy     string
	dummyOnce sync.Once
}

// NewService returns the service over store.
func NewService(store Store, now func() time.Time) *Service {
	return &Service{store: store, now: now, Params: password.Default}
}

// checkEmail normalises an email and adds its problems to p.
func checkEmail(p *commerce.Problems, email string) string {
	email = commerce.EmailKey(email)
	if at := strings.IndexByte(email, '@'); at < 1 || at == len(email)-1 || len(email) > 254 || strings.ContainsAny(email, " \t\r\n") {
		p.Add("email", "must be an email address")
	}
	return email
}

func checkRole(p *commerce.Problems, role string) Role {
	r, ok := ParseRole(role)
	if !ok || role == "" {
		names := make([]string, len(Roles))
		for i, r := range Roles {
			names[i] = string(r)
		}
		p.Add("role", "must be one of %s", strings.Join(names, ", "))
	}
	return r
}

// Add creates an account with a role (the first account is an owner
// whatever role says). The password follows customers' rules
// (internal/password.Check): 10 to 128 characters, not the email, not in
// the list of common passwords. Errors: validation_error, duplicate_key.
func (s *Service) Add(ctx context.Context, email, pw, role string) (Staff, error) {
	p := textProblems(email, pw)
	if !p.Empty() {
		return Staff{}, p.Err()
	}
	email = checkEmail(&p, email)
	r := checkRole(&p, role)
	password.Check(&p, "password", pw, email)
	if err := p.Err(); err != nil {
		return Staff{}, err
	}
	hash, err := password.Hash(pw, s.Params)
	if err != nil {
		return Staff{}, commerce.Errorf(commerce.EInternal, "hash the password: %w", err)
	}
	st := Staff{ID: commerce.NewID(), Email: email, Role: r, CreatedAt: s.now().UTC().Truncate(time.Millisecond)}
	return s.store.Create(ctx, st, hash)
}

// SignIn checks an email and password from the source address ip and
// opens a session, returning its id (the cookie's value, never stored),
// the account, and whether the session still waits for the second factor
// (SecondFactor). Errors: validation_error (an email or password with a
// NUL byte or invalid UTF-8), invalid_credentials (wrong password, unknown
// email, disabled account or one not set up from its invitation yet: the
// same answer in about the same time), too_many_attempts with data
// {retryAfter} (seconds) after MaxFailures failures of the email from ip,
// or MaxAddressFailures from ip, within Window, even with the right
// password.
func (s *Service) SignIn(ctx context.Context, email, pw, ip string) (string, Staff, bool, error) {
	// Malformed text (a NUL byte, invalid UTF-8: the store would refuse
	// it) is validation_error, before anything is looked up or counted.
	if p := textProblems(email, pw); !p.Empty() {
		return "", Staff{}, false, p.Err()
	}
	email = commerce.EmailKey(email)
	now := s.now().UTC()
	attempt := commerce.NewID()
	oldest, ok, err := s.store.BeginAttempt(ctx, attempt, email, ip, now, now.Add(-Window), MaxFailures, MaxAddressFailures)
	if err != nil {
		return "", Staff{}, false, err
	}
	if !ok {
		retry := int64(math.Ceil(oldest.Add(Window).Sub(now).Seconds()))
		if retry < 1 {
			retry = 1
		}
		return "", Staff{}, false, commerce.NewError(commerce.ETooManyAttempts, map[string]any{"retryAfter": retry})
	}
	st, hash, err := s.store.ByEmail(ctx, email)
	if commerce.ErrorCode(err) == commerce.EInvalidCredentials || (err == nil && hash == "") {
		hash = s.dummyHash()
		if err == nil {
			err = commerce.NewError(commerce.EInvalidCredentials, nil)
		}
	} else if err != nil {
		return "", Staff{}, false, err
	}
	match, verr := password.Verify(pw, hash)
	if err != nil || verr != nil || !match || st.Disabled {
		return "", Staff{}, false, commerce.NewError(commerce.EInvalidCredentials, nil)
	}
	if err := s.store.ForgetAttempt(ctx, attempt); err != nil {
		return "", Staff{}, false, err
	}
	pending := st.TOTP
	id := newToken()
	ttl := SessionTTL
	if pending {
		ttl = PendingTTL
	}
	if err := s.store.CreateSession(ctx, HashSession(id), st.ID, now, now.Add(ttl), pending); err != nil {
		return "", Staff{}, false, err
	}
	return id, st, pending, nil
}

// newToken returns 32 random bytes, URL-safe base64.
func newToken() string {
	var b [32]byte
	_, _ = rand.Read(b[:])
	return base64.RawURLEncoding.EncodeToString(b[:])
}

// textProblems lists the problems of an email and a password as text
// (commerce.TextProblem), before they are normalised.
func textProblems(email, pw string) commerce.Problems {
	var p commerce.Problems
	if msg := commerce.TextProblem(email); msg != "" {
		p.Add("email", "%s", msg)
	}
	if msg := commerce.TextProblem(pw); msg != "" {
		p.Add("password", "%s", msg)
	}
	return p
}

func (s *Service) dummyHash() string {
	s.dummyOnce.Do(func() { s.dummy, _ = password.Hash("not a password of anyone", s.Params) })
	return s.dummy
}

// Session returns the account of a session id, and whether the session
// waits for the second factor. It reads the database each time: a
// member disabled or removed by another process has no session from the
// next request on. Errors: invalid_token.
func (s *Service) Session(ctx context.Context, id string) (Staff, bool, error) {
	if id == "" || len(id) > 100 {
		return Staff{}, false, commerce.NewError(commerce.EInvalidToken, nil)
	}
	return s.store.Session(ctx, HashSession(id), s.now().UTC())
}

// SignOut ends a session.
func (s *Service) SignOut(ctx context.Context, id string) error {
	return s.store.DeleteSession(ctx, HashSession(id))
}

// HashSession is how a session id is stored: hex SHA-256.
func HashSession(id string) string {
	h := sha256.Sum256([]byte(id))
	return hex.EncodeToString(h[:])
}

// CSRFToken returns the anti-forgery token of a session: derived from its
// id, so it is tied to the session, and not the id itself nor its stored
// hash.
func CSRFToken(sessionID string) string {
	h := sha256.Sum256([]byte("csrf\x00" + sessionID))
	return base64.RawURLEncoding.EncodeToString(h[:])
}
