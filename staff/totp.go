package staff

import (
	"context"
	"crypto/rand"
	"encoding/base32"
	"math"
	"strings"
	"time"

	"github.com/pquerna/otp"
	"github.com/pquerna/otp/totp"

	"github.com/commercekit/commerce"
)

// Issuer names the shop in authenticator apps.
const Issuer = "Commerce admin"

// RecoveryCodes is how many recovery codes a second factor comes with;
// each works once instead of a code.
const RecoveryCodes = 10

// totpOpts are RFC 6238's defaults: 30-second steps, 6 digits, SHA-1,
// one step of skew either way.
var totpOpts = totp.ValidateOpts{Period: 30, Skew: 1, Digits: otp.DigitsSix, Algorithm: otp.AlgorithmSHA1}

// BeginTOTP offers a member a new second factor: a secret (base32, for
// typing) and its otpauth:// URI (for a QR code), kept pending until a
// code of it confirms it (ConfirmTOTP).
func (s *Service) BeginTOTP(ctx context.Context, st Staff) (secret, uri string, err error) {
	key, err := totp.Generate(totp.GenerateOpts{Issuer: Issuer, AccountName: st.Email})
	if err != nil {
		return "", "", commerce.Errorf(commerce.EInternal, "generate a TOTP secret: %w", err)
	}
	if err := s.store.SetTOTP(ctx, st.ID, key.Secret(), false, nil); err != nil {
		return "", "", err
	}
	return key.Secret(), key.URL(), nil
}

// ConfirmTOTP makes the pending secret the member's second factor when
// code is its current code, and returns the recovery codes (shown once;
// stored hashed). Errors: validation_error (no pending secret, or a wrong
// code).
func (s *Service) ConfirmTOTP(ctx context.Context, id, code string) ([]string, error) {
	_, pending, err := s.store.TOTP(ctx, id)
	if err != nil {
		return nil, err
	}
	var p commerce.Problems
	if pending == "" {
		p.Add("code", "start again: no second factor is being set up")
		return nil, p.Err()
	}
	if ok, _ := totp.ValidateCustom(strings.TrimSpace(code), pending, s.now().UTC(), totpOpts); !ok {
		p.Add("code", "is not the code your app shows now")
		return nil, p.Err()
	}
	codes := make([]string, RecoveryCodes)
	hashes := make([]string, RecoveryCodes)
	for i := range codes {
		var b [10]byte
		_, _ = rand.Read(b[:])
		c := strings.ToLower(base32.StdEncoding.WithPadding(base32.NoPadding).EncodeToString(b[:]))
		codes[i] = c[:8] + "-" + c[8:]
		hashes[i] = HashSession(codes[i])
	}
	if err := s.store.SetTOTP(ctx, id, pending, true, hashes); err != nil {
		return nil, err
	}
	return codes, nil
}

// RemoveTOTP removes a member's second factor and recovery codes.
func (s *Service) RemoveTOTP(ctx context.Context, id string) error {
	return s.store.SetTOTP(ctx, id, "", true, nil)
}

// SecondFactor completes a sign-in waiting for its second factor: code
// is the current TOTP code or an unused recovery code (used up). Wrong
// codes count towards the lock-out as wrong passwords do, under the
// email's second factor. Errors: invalid_token (no pending session),
// invalid_credentials, too_many_attempts.
func (s *Service) SecondFactor(ctx context.Context, sessionID, code, ip string) (Staff, error) {
	st, pending, err := s.Session(ctx, sessionID)
	if err != nil {
		return Staff{}, err
	}
	if !pending {
		return st, nil
	}
	now := s.now().UTC()
	attempt := commerce.NewID()
	oldest, ok, err := s.store.BeginAttempt(ctx, attempt, "totp:"+st.Email, ip, now, now.Add(-Window), MaxFailures, MaxAddressFailures)
	if err != nil {
		return Staff{}, err
	}
	if !ok {
		retry := max(int64(math.Ceil(oldest.Add(Window).Sub(now).Seconds())), 1)
		return Staff{}, commerce.NewError(commerce.ETooManyAttempts, map[string]any{"retryAfter": retry})
	}
	secret, _, err := s.store.TOTP(ctx, st.ID)
	if err != nil {
		return Staff{}, err
	}
	code = strings.TrimSpace(code)
	good, _ := totp.ValidateCustom(code, secret, now, totpOpts)
	if !good && strings.Contains(code, "-") {
		good, err = s.store.UseRecovery(ctx, st.ID, HashSession(strings.ToLower(code)))
		if err != nil {
			return Staff{}, err
		}
	}
	if !good {
		return Staff{}, commerce.NewError(commerce.EInvalidCredentials, nil)
	}
	if err := s.store.ForgetAttempt(ctx, attempt); err != nil {
		return Staff{}, err
	}
	if err := s.store.PromoteSession(ctx, HashSession(sessionID), now.Add(SessionTTL)); err != nil {
		return Staff{}, err
	}
	return st, nil
}

// TOTPCode returns the current code of a secret (tests, and the command
// line's checks).
func TOTPCode(secret string, at time.Time) (string, error) {
	return totp.GenerateCodeCustom(secret, at, totp.ValidateOpts{Period: 30, Digits: otp.DigitsSix, Algorithm: otp.AlgorithmSHA1})
}
