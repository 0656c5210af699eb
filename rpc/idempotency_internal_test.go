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
