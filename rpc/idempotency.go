package rpc

import (
	"bytes"
	"context"
	"crypto/aes"
	"crypto/cipher"
	"crypto/hmac"
	"crypto/rand"
	"crypto/sha256"
	"encoding/hex"
	"encoding/json"
	"errors"
	"net/http"
	"net/url"
	"slices"
	"time"

	"github.com/commercekit/commerce"
)

// IdempotencyStore keeps the answers of requests made with an
// Idempotency-Key (docs/api.md section 18), per scope (idemScope: who the
// caller is and what its token lets it see) and key. Implemented by
// package sqldb, so that keys hold across processes and restarts.
type IdempotencyStore interface {
	// Begin starts the request with the key, or finds its earlier run. It
	// returns status 0 when this request is to run (the key is now held
	// by it), or the stored answer to replay. Errors:
	// idempotency_key_reused (the key was used with another fingerprint),
	// idempotency_key_in_use (its first request is still running).
	Begin(ctx context.Context, scope, key, fingerprint string, now time.Time) (status int, body []byte, err error)
	// Finish stores the answer of the request that Begin let run.
	Finish(ctx context.Context, scope, key string, status int, body []byte) error
	// Abort forgets the key of a request that Begin let run and whose
	// answer is not stored (a 5xx), so that a retry runs again.
	Abort(ctx context.Context, scope, key string) error
}

// IdempotencyHeader is the request header of idempotency keys;
// ReplayedHeader marks a replayed answer.
const (
	IdempotencyHeader = "Idempotency-Key"
	ReplayedHeader    = "Idempotent-Replayed"
)

// idempotentRunLimit bounds an operation run under an idempotency key,
// which does not end when its client goes away (less than the store's
// hold of the key, sqldb.IdempotencyHold).
const idempotentRunLimit = time.Minute

// SetIdempotency makes POST operations honour Idempotency-Key with the
// store, on the clock now (time.Now when nil): the service's clock, which
// its sweep of old keys uses too. Without it the header is ignored.
func (s *Server) SetIdempotency(store IdempotencyStore, now func() time.Time) {
	if now == nil {
		now = time.Now
	}
	s.idem, s.idemNow = store, now
}

// idempotencyKey returns the request's key: exactly one header value of 1
// to 255 printable ASCII characters, else validation_error.
func idempotencyKey(values []string) (string, error) {
	if len(values) != 1 {
		return "", commerce.Invalid(IdempotencyHeader + ": give exactly one")
	}
	k := values[0]
	if len(k) < 1 || len(k) > 255 {
		return "", commerce.Invalid(IdempotencyHeader + ": must be 1 to 255 printable ASCII characters")
	}
	for i := 0; i < len(k); i++ {
		if k[i] < 0x20 || k[i] > 0x7e {
			return "", commerce.Invalid(IdempotencyHeader + ": must be 1 to 255 printable ASCII characters")
		}
	}
	return k, nil
}

// fingerprint identifies an operation and its arguments as the operation
// gets them: the body's fields with the query parameters of its argument
// type (fields) merged in, converted to their types, by mergeArgs (a body
// field wins; unknown query parameters are left out), as JSON with sorted
// keys, so that key order, the path prefix and `?limit=10` against
// {"limit": 10} do not matter. Arguments that cannot be merged (a body
// that is not a JSON object: the request is answered validation_error)
// take part as they are. It hashes the merged JSON rather than the
// decoded argument value: marshaling a decoded value does not tell all
// arguments apart (types that decode into unexported fields, such as
// promotion.Price, marshal alike).
func fingerprint(op Op, fields argFields, query url.Values, body []byte) string {
	canon, ok := []byte(nil), false
	if merged, _, err := mergeArgs(fields, query, body); err == nil {
		canon, ok = canonicalJSON(merged)
	}
	if !ok {
		canon = append([]byte("\x00raw\x00"+query.Encode()+"\x00"), bytes.TrimSpace(body)...)
	}
	h := sha256.New()
	h.Write([]byte(op.Service + "\x00" + op.Name + "\x00"))
	h.Write(canon)
	return hex.EncodeToString(h.Sum(nil))
}

// canonicalJSON returns one JSON value (empty: an empty object) with the
// keys of every object sorted and no white space; numbers keep their
// literal form.
func canonicalJSON(b []byte) ([]byte, bool) {
	if len(b) == 0 {
		return []byte("{}"), true
	}
	dec := json.NewDecoder(bytes.NewReader(b))
	dec.UseNumber()
	var v any
	if dec.Decode(&v) != nil || dec.More() {
		return nil, false
	}
	out, err := json.Marshal(v)
	return out, err == nil
}

// idemSeal keeps what is stored under a key unreadable without the key:
// answers can carry secrets (client.create's clientSecret, auth.login's
// tokens) and arguments passwords, and the store is a database table. The
// store sees a hash of the key (id), a keyed hash of the fingerprint, and
// the answer sealed with AES-256-GCM under a key derived from the
// idempotency key; only a client presenting the key again can replay.
type idemSeal struct {
	id  string
	key [32]byte
}

func newIdemSeal(scope, key string) idemSeal {
	id := sha256.Sum256([]byte("commerce idempotency id\x00" + scope + "\x00" + key))
	return idemSeal{id: hex.EncodeToString(id[:]),
		key: sha256.Sum256([]byte("commerce idempotency seal\x00" + scope + "\x00" + key))}
}

// idemScope is the scope of a caller's idempotency keys: a hash of every
// claim of its token (commerce.Claims: the subject, the scopes, the
// customer id and type, the country, and any claim added to it later), so
// that a key is replayed only to a caller who sees what its first caller
// saw. The tokens of `commerce token --customer-id X` share the subject
// "api": scoped by the subject alone, customer bob sending alice's key and
// body got alice's cart (issue 27). A token without a subject names no
// caller: its keys are its own (token, the bearer token as sent, is part
// of the scope; "" for a caller in the process, CallOnce).
func idemScope(c commerce.Claims, token string) string {
	c.Scopes = slices.Sorted(slices.Values(c.Scopes)) // a copy: the claims are shared
	claims, err := json.Marshal(c)
	if err != nil {
		panic(err) // strings and lists of strings always marshal
	}
	h := sha256.New()
	h.Write([]byte("commerce idempotency scope\x00"))
	h.Write(claims)
	if c.Subject == "" && token != "" {
		h.Write([]byte("\x00token\x00" + token))
	}
	return hex.EncodeToString(h.Sum(nil))
}

// fingerprint is the keyed hash of a fingerprint.
func (s idemSeal) fingerprint(fp string) string {
	m := hmac.New(sha256.New, s.key[:])
	m.Write([]byte(fp))
	return hex.EncodeToString(m.Sum(nil))
}

func (s idemSeal) aead() cipher.AEAD {
	b, err := aes.NewCipher(s.key[:])
	if err != nil {
		panic(err) // a 32-byte key is always valid
	}
	a, err := cipher.NewGCM(b)
	if err != nil {
		panic(err)
	}
	return a
}

// seal returns nonce || ciphertext of body.
func (s idemSeal) seal(body []byte) []byte {
	a := s.aead()
	nonce := make([]byte, a.NonceSize(), a.NonceSize()+len(body)+a.Overhead())
	rand.Read(nonce)
	return a.Seal(nonce, nonce, body, []byte(s.id))
}

func (s idemSeal) open(sealed []byte) ([]byte, error) {
	a := s.aead()
	if len(sealed) < a.NonceSize() {
		return nil, errors.New("idempotency key: stored answer too short")
	}
	return a.Open(nil, sealed[:a.NonceSize()], sealed[a.NonceSize():], []byte(s.id))
}

// idemRun is a request running under an idempotency key: its answer is
// recorded as it is written, then stored (or the key released for a 5xx).
type idemRun struct {
	store      IdempotencyStore
	scope, key string // key is the sealed id (idemSeal.id)
	seal       idemSeal
	rec        *Recorder
}

// finish stores the answer, or forgets the key when the answer is not to
// be stored (5xx, or a client that went away).
func (r *idemRun) finish(ctx context.Context, s *Server, status int) {
	ctx, cancel := context.WithTimeout(context.WithoutCancel(ctx), 10*time.Second)
	defer cancel()
	var err error
	if status >= 200 && status < 500 && status != StatusClientClosedRequest && r.rec.Status == status {
		err = r.store.Finish(ctx, r.scope, r.key, status, r.seal.seal(r.rec.Body.Bytes()))
	} else {
		err = r.store.Abort(ctx, r.scope, r.key)
	}
	if err != nil {
		s.logger.Error("idempotency key: store the answer", "err", err)
	}
}

// Recorder passes a response on and keeps a copy of its status and body
// (an idempotent run's answer to store; the API tests' document check).
type Recorder struct {
	http.ResponseWriter
	Status int
	Body   bytes.Buffer
}

// WriteHeader implements http.ResponseWriter, keeping the first status.
func (r *Recorder) WriteHeader(status int) {
	if r.Status == 0 {
		r.Status = status
	}
	r.ResponseWriter.WriteHeader(status)
}

// Write implements http.ResponseWriter, keeping a copy of b.
func (r *Recorder) Write(b []byte) (int, error) {
	if r.Status == 0 {
		r.Status = http.StatusOK
	}
	r.Body.Write(b)
	return r.ResponseWriter.Write(b)
}

// Unwrap lets http.ResponseController reach the connection's writer.
func (r *Recorder) Unwrap() http.ResponseWriter { return r.ResponseWriter }

// beginIdempotent handles the key of a POST request of the caller with
// the claims: it answers a replay or an error itself (handled true, with
// the status), or returns the run to finish once the operation has
// answered (nil when there is no key).
func (s *Server) beginIdempotent(w http.ResponseWriter, r *http.Request, rt *route, claims commerce.Claims, body []byte) (run *idemRun, handled bool, status int) {
	op := rt.op
	values, ok := r.Header[IdempotencyHeader]
	if !ok || s.idem == nil || r.Method != http.MethodPost {
		return nil, false, 0
	}
	key, err := idempotencyKey(values)
	if err != nil {
		return nil, true, s.writeError(w, r, op.Name, err)
	}
	scope := idemScope(claims, bearerToken(r))
	seal := newIdemSeal(scope, key)
	st, stored, err := s.idem.Begin(r.Context(), scope, seal.id, seal.fingerprint(fingerprint(op, rt.fields, r.URL.Query(), body)), s.idemNow())
	if err != nil {
		return nil, true, s.writeError(w, r, op.Name, err)
	}
	if st != 0 {
		if stored, err = seal.open(stored); err != nil {
			return nil, true, s.writeError(w, r, op.Name, err)
		}
		w.Header().Set(ReplayedHeader, "true")
		writeJSON(w, st, stored)
		return nil, true, st
	}
	return &idemRun{store: s.idem, scope: scope, key: seal.id, seal: seal, rec: &Recorder{ResponseWriter: w}}, false, 0
}
