package rpc

import (
	"net/url"
	"strings"
	"testing"
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

func TestFingerprint(t *testing.T) {
	op := Op{Service: "cart", Name: "cart.checkout"}
	a := fingerprint(op, url.Values{"cartId": {"c1"}}, []byte(`{"b": 1, "a": {"y": 2, "x": 1.50}}`))
	b := fingerprint(op, nil, []byte(` {"a": {"x": 1.50, "y": 2}, "cartId": "c1", "b": 1}`))
	if a != b {
		t.Fatal("same merged arguments, different fingerprints")
	}
	for name, other := range map[string]string{
		"another value":     fingerprint(op, nil, []byte(`{"a": {"x": 1.5, "y": 2}, "cartId": "c1", "b": 2}`)),
		"another operation": fingerprint(Op{Service: "cart", Name: "cart.create"}, url.Values{"cartId": {"c1"}}, []byte(`{"b": 1, "a": {"y": 2, "x": 1.50}}`)),
		"not an object":     fingerprint(op, nil, []byte(`[1]`)),
		"not JSON":          fingerprint(op, nil, []byte(`{`)),
	} {
		if other == a {
			t.Errorf("%s: same fingerprint", name)
		}
	}
	// A body field wins over a query parameter of the same name.
	if fingerprint(op, url.Values{"b": {"9"}}, []byte(`{"b": 1}`)) != fingerprint(op, nil, []byte(`{"b": 1}`)) {
		t.Error("body field did not win over the query parameter")
	}
}
