package webhook

import (
	"context"
	"fmt"
	"net"
	"net/netip"
	"net/url"
	"strings"
	"syscall"
	"time"
)

// Forbidden reports whether an address is one a webhook must not reach:
// loopback, private (RFC 1918, RFC 4193), link-local, unspecified, and
// also multicast, the shared address space of carrier-grade NAT
// (100.64.0.0/10) and the IPv4-mapped and NAT64 forms of any of them.
func Forbidden(ip netip.Addr) bool {
	ip = ip.Unmap()
	if ip.Is6() {
		// NAT64 (64:ff9b::/96) embeds an IPv4 address in its last 4 bytes.
		if nat64.Contains(ip) {
			b := ip.As16()
			return Forbidden(netip.AddrFrom4([4]byte{b[12], b[13], b[14], b[15]}))
		}
	}
	return !ip.IsValid() || ip.IsLoopback() || ip.IsPrivate() || ip.IsLinkLocalUnicast() ||
		ip.IsLinkLocalMulticast() || ip.IsInterfaceLocalMulticast() || ip.IsMulticast() ||
		ip.IsUnspecified() || cgnat.Contains(ip) || thisNetwork.Contains(ip)
}

var (
	nat64       = netip.MustParsePrefix("64:ff9b::/96")
	cgnat       = netip.MustParsePrefix("100.64.0.0/10")
	thisNetwork = netip.MustParsePrefix("0.0.0.0/8")
)

// checkURL checks a webhook URL: absolute http or https with a host and
// no user info; unless allowPrivate, a host that is or resolves to a
// forbidden address (Forbidden) is refused. It returns the problem for
// the client, or "".
func checkURL(ctx context.Context, raw string, allowPrivate bool) string {
	u, err := url.Parse(raw)
	if err != nil || (u.Scheme != "http" && u.Scheme != "https") || u.Host == "" || u.Hostname() == "" {
		return "must be an absolute http or https URL"
	}
	if u.User != nil {
		return "must not carry user info"
	}
	if allowPrivate {
		return ""
	}
	host := u.Hostname()
	if ip, err := netip.ParseAddr(host); err == nil {
		if Forbidden(ip) {
			return "must not be a loopback, private, link-local or unspecified address"
		}
		return ""
	}
	if strings.EqualFold(strings.TrimSuffix(host, "."), "localhost") {
		return "must not be a loopback, private, link-local or unspecified address"
	}
	rctx, cancel := context.WithTimeout(ctx, 5*time.Second)
	defer cancel()
	addrs, err := net.DefaultResolver.LookupNetIP(rctx, "ip", host)
	if err != nil || len(addrs) == 0 {
		return "host " + host + " does not resolve"
	}
	for _, a := range addrs {
		if Forbidden(a) {
			return "host " + host + " resolves to a loopback, private, link-local or unspecified address"
		}
	}
	return ""
}

// dialControl refuses, at connection time, an address that is Forbidden:
// the address actually connected to after DNS resolution, so a host that
// re-resolves to 127.0.0.1 after the check at create is refused too.
func dialControl(network, address string, _ syscall.RawConn) error {
	ap, err := netip.ParseAddrPort(address)
	if err != nil {
		return fmt.Errorf("webhook: refusing to connect to %q: %w", address, err)
	}
	if Forbidden(ap.Addr()) {
		return fmt.Errorf("webhook: refusing to connect to %s: a loopback, private, link-local or unspecified address", ap.Addr())
	}
	return nil
}
