package rpc

import (
	"net/url"
	"reflect"
	"strings"
	"testing"

	"github.com/commercekit/commerce"
)

func TestIdempotencyKeyValues(t *testing.T) {
	for _, tc := range []struct {
		name   string
		values []string
		ok     bool
	}{
		{"one character", []string{"a"}, true},
		{"255 printable", []string{strings.Repeat("~", 255)}, true},
		{"spaces inside", []string{"a b"}, true},
		{"empty", []string{""}, false},
		{"256", []string{strings.Repeat("a", 256)}, false},
		{"tab", []string{"a\tb"}, false},
		{"control", []string{"a\x01"}, false},
		{"DEL", []string{"a\x7f"}, false},
		{"non-ASCII", []string{"caf\u00e9"}, false},
		{"two values", []string{"a", "b"}, false},
	} {
		t.Run(tc.name, func(t *testing.T) {
			_, err := idempotencyKey(tc.values)
			if (err == nil) != tc.ok {
				t.Fatalf("got %v, want ok %v", err, tc.ok)
			}
		})
	}
}

// fingerprintArgs is an argument type for TestFingerprint.
type fingerprintArgs struct {
	CartID string              `json:"cartId"`
	A      map[string]any      `json:"a"`
	B      int                 `json:"b"`
	Active *bool               `json:"active"`
	Tags   commerce.StringList `json:"tags"`
}

func TestFingerprint(t *testing.T) {
	op := Op{Service: "cart", Name: "cart.checkout"}
	f := fieldsOf(reflect.TypeFor[fingerprintArgs]())
	fp := func(q url.Values, body string) string { return fingerprint(op, f, q, []byte(body)) }
	a := fp(url.Values{"cartId": {"c1"}}, `{"b": 1, "a": {"y": 2, "x": 1.50}}`)
	for name, same := range map[string]string{
		"keys in another order, cartId in the body": fp(nil, ` {"a": {"x": 1.50, "y": 2}, "cartId": "c1", "b": 1}`),
		"b in the query string, typed as a number":  fp(url.Values{"cartId": {"c1"}, "b": {"1"}}, `{"a": {"y": 2, "x": 1.50}}`),
		"an unknown query parameter":                fp(url.Values{"cartId": {"c1"}, "utm_source": {"x"}}, `{"b": 1, "a": {"y": 2, "x": 1.50}}`),
		"a query parameter the body overrides":      fp(url.Values{"cartId": {"c9"}}, `{"b": 1, "a": {"y": 2, "x": 1.50}, "cartId": "c1"}`),
	} {
		if same != a {
			t.Errorf("%s: another fingerprint", name)
		}
	}
	for name, other := range map[string]string{
		"another value":           fp(nil, `{"a": {"x": 1.5, "y": 2}, "cartId": "c1", "b": 2}`),
		"another value, in query": fp(url.Values{"cartId": {"c1"}, "b": {"2"}}, `{"a": {"y": 2, "x": 1.50}}`),
		"a string, not a number":  fp(url.Values{"cartId": {"c1"}}, `{"b": "1", "a": {"y": 2, "x": 1.50}}`),
		"another operation":       fingerprint(Op{Service: "cart", Name: "cart.create"}, f, url.Values{"cartId": {"c1"}}, []byte(`{"b": 1, "a": {"y": 2, "x": 1.50}}`)),
		"not an object":           fp(nil, `[1]`),
		"not JSON":                fp(nil, `{`),
	} {
		if other == a {
			t.Errorf("%s: same fingerprint", name)
		}
	}
	// Booleans and lists in the query string are typed too.
	if fp(url.Values{"active": {"true"}, "tags": {"x,y"}}, "") != fp(nil, `{"active": true, "tags": ["x", "y"]}`) {
		t.Error("?active=true&tags=x,y: another fingerprint than the same in the body")
	}
	if fp(nil, "") != fp(url.Values{"unknown": {"1"}}, " {} ") {
		t.Error("no arguments: the empty body and {} differ")
	}
	// Two bodies that cannot be merged differ by their text.
	if fp(nil, `[1]`) == fp(nil, `[2]`) {
		t.Error("bodies that are not objects: same fingerprint")
	}
}

// TestIdemScopeCoversEveryClaim: every field of commerce.Claims, those
// added later too (groups, a role), changes the scope of idempotency
// keys; the order of the scopes does not; a token without a subject is a
// scope of its own, one with a subject is its claims whatever the token.
func TestIdemScopeCoversEveryClaim(t *testing.T) {
	base := commerce.Claims{Subject: "api", Scopes: []string{commerce.ScopeAPI}}
	seen := map[string]string{idemScope(base, "t1"): "base"}
	ct := reflect.TypeFor[commerce.Claims]()
	for i := range ct.NumField() {
		f := ct.Field(i)
		c := base
		v := reflect.ValueOf(&c).Elem().Field(i)
		switch v.Kind() {
		case reflect.String:
			v.SetString("changed")
		case reflect.Slice:
			if v.Type().Elem().Kind() != reflect.String {
				t.Fatalf("claim %s: a list of %s, which this test cannot fill", f.Name, v.Type().Elem())
			}
			v.Set(reflect.ValueOf([]string{"changed"}).Convert(v.Type()))
		case reflect.Bool:
			v.SetBool(!v.Bool())
		case reflect.Int, reflect.Int64:
			v.SetInt(v.Int() + 1)
		default:
			t.Fatalf("claim %s: a %s, which this test cannot fill", f.Name, v.Kind())
		}
		s := idemScope(c, "t1")
		if other, dup := seen[s]; dup {
			t.Errorf("changing claim %s leaves the scope of %s", f.Name, other)
		}
		seen[s] = f.Name
	}
	both := commerce.Claims{Subject: "a", Scopes: []string{commerce.ScopeAPI, commerce.ScopeAdmin}}
	swapped := commerce.Claims{Subject: "a", Scopes: []string{commerce.ScopeAdmin, commerce.ScopeAPI}}
	if idemScope(both, "t1") != idemScope(swapped, "t2") {
		t.Errorf("the order of the scopes, or the token of a caller with a subject, changes the scope")
	}
	if !reflect.DeepEqual(swapped.Scopes, []string{commerce.ScopeAdmin, commerce.ScopeAPI}) {
		t.Errorf("idemScope changed the caller's claims: %v", swapped.Scopes)
	}
	anon := commerce.Claims{Scopes: []string{commerce.ScopeAPI}}
	if idemScope(anon, "t1") == idemScope(anon, "t2") {
		t.Errorf("two tokens without a subject share a scope")
	}
}
