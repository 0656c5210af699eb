package webhook

import (
	"context"
	"net/netip"
	"testing"
)

func TestForbidden(t *testing.T) {
	for addr, want := range map[string]bool{
		"127.0.0.1": true, "127.9.9.9": true, "::1": true, "::ffff:127.0.0.1": true,
		"10.0.0.1": true, "172.16.0.1": true, "192.168.1.1": true, "fd00::1": true, "::ffff:192.168.0.1": true,
		"169.254.169.254": true, "fe80::1": true, "0.0.0.0": true, "::": true, "0.1.2.3": true,
		"100.64.0.1": true, "64:ff9b::7f00:1": true, "224.0.0.1": true, "ff02::1": true,
		"8.8.8.8": false, "1.1.1.1": false, "2001:4860:4860::8888": false, "::ffff:8.8.8.8": false,
		"64:ff9b::808:808": false, "172.32.0.1": false,
	} {
		if got := Forbidden(netip.MustParseAddr(addr)); got != want {
			t.Errorf("Forbidden(%s) = %v, want %v", addr, got, want)
		}
	}
}

func TestCheckURL(t *testing.T) {
	ctx := context.Background()
	for _, u := range []string{
		"http://127.0.0.1:8080/x", "http://[::1]/", "http://[::ffff:127.0.0.1]/", "http://10.1.2.3/",
		"http://169.254.169.254/latest/meta-data", "http://0.0.0.0/", "http://localhost/", "http://LOCALHOST./",
		"https://[fe80::1]/", "ftp://example.com/", "http://user:pw@example.com/", "/relative", "http:///x",
	} {
		if msg := checkURL(ctx, u, false); msg == "" {
			t.Errorf("%s accepted", u)
		}
	}
	// With --webhook-allow-private only the form is checked.
	if msg := checkURL(ctx, "http://127.0.0.1:8080/x", true); msg != "" {
		t.Errorf("allow private: %s", msg)
	}
	if msg := checkURL(ctx, "http://8.8.8.8/hook", false); msg != "" {
		t.Errorf("public address refused: %s", msg)
	}
}

func TestDialControl(t *testing.T) {
	for addr, ok := range map[string]bool{"127.0.0.1:80": false, "[::1]:443": false, "[::ffff:10.0.0.1]:80": false, "8.8.8.8:443": true} {
		if err := dialControl("tcp", addr, nil); (err == nil) != ok {
			t.Errorf("%s: %v", addr, err)
		}
	}
}
