package rpc_test

import (
	"context"
	"log/slog"
	"net/url"
	"testing"

	"github.com/commercekit/commerce/auth"
	"github.com/commercekit/commerce/rpc"
)

// TestArguments: Server.Arguments is the argument object the transport
// makes of a request (query parameters that name arguments, converted to
// their types, merged into the body, the body winning), which the API
// tests check against the document's POST body.
func TestArguments(t *testing.T) {
	keys, err := auth.New([]byte(testSecret))
	if err != nil {
		t.Fatal(err)
	}
	s := rpc.NewServer(keys, slog.New(slog.DiscardHandler), func(context.Context) error { return nil })
	rpc.Handle(s, rpc.Op{Service: "test", Name: "echo.info", Read: true},
		func(ctx context.Context, a *echoArgs) (any, error) { return nil, nil })
	for _, tc := range []struct {
		name, path, query, body string
		want                    string
		ok                      bool
	}{
		{"query and body merged, the body wins", "/test/v1/echo.info", "id=q&count=10&flag=true&tags=a,b&unknown=1", `{"id":"b"}`,
			`{"count":10,"flag":true,"id":"b","tags":["a","b"]}`, true},
		{"the /services alias", "/services/test/v1/echo.info", "id=q", "", `{"id":"q"}`, true},
		{"a body alone, as it is", "/test/v1/echo.info", "", ` {"id": "b"} `, `{"id": "b"}`, true},
		{"no arguments", "/test/v1/echo.info", "", "", `{}`, true},
		{"unknown parameters alone", "/test/v1/echo.info", "unknown=1", "", `{}`, true},
		{"not an operation", "/test/v2/echo.info", "id=q", "", "", false},
		{"a body that is not an object", "/test/v1/echo.info", "id=q", `[1]`, "", false},
		{"a body that is not JSON", "/test/v1/echo.info", "id=q", `{"id":`, "", false},
	} {
		q, err := url.ParseQuery(tc.query)
		if err != nil {
			t.Fatal(err)
		}
		got, ok := s.Arguments(tc.path, q, []byte(tc.body))
		if ok != tc.ok || string(got) != tc.want {
			t.Errorf("%s: got %s %v, want %s %v", tc.name, got, ok, tc.want, tc.ok)
		}
	}
}
