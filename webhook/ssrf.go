package webhook

import (
	"context"
	"errors"
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

// Resolver looks host names up (*net.Resolver; tests give their own, to
// answer another address the second time).
type Resolver interface {
	LookupNetIP(ctx context.Context, network, host string) ([]netip.Addr, error)
}

// checkURL checks a webhook URL: absolute http or https with a host and
// no user info; unless allowPrivate, a host that is or resolves (with res)
// to a forbidden address (Forbidden) is refused. It returns the problem
// for the client, or "".
func checkURL(ctx context.Context, raw string, allowPrivate bool, res Resolver) string {
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
	addrs, err := res.LookupNetIP(rctx, "ip", host)
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

// guardedDial returns the DialContext of the attempts: it resolves the
// host with res at connection time, refuses every Forbidden address it
// resolves to, and connects to the first other one that answers (the
// dialer's Control, dialControl, checks the address connected to once
// more). So a host that resolved to a public address when the webhook was
// created and re-resolves to 127.0.0.1 at delivery is not called.
func guardedDial(d *net.Dialer, res Resolver) func(ctx context.Context, network, addr string) (net.Conn, error) {
	return func(ctx context.Context, network, addr string) (net.Conn, error) {
		host, port, err := net.SplitHostPort(addr)
		if err != nil {
			return nil, err
		}
		var ips []netip.Addr
		if ip, err := netip.ParseAddr(host); err == nil {
			ips = []netip.Addr{ip}
		} else if ips, err = res.LookupNetIP(ctx, "ip", host); err != nil {
			return nil, err
		}
		var problems []string
		for _, ip := range ips {
			if Forbidden(ip) {
				problems = append(problems, fmt.Sprintf("webhook: refusing to connect to %s (%s): a loopback, private, link-local or unspecified address", ip, host))
				continue
			}
			c, err := d.DialContext(ctx, network, net.JoinHostPort(ip.Unmap().String(), port))
			if err == nil {
				return c, nil
			}
			problems = append(problems, err.Error())
		}
		if len(problems) == 0 {
			return nil, fmt.Errorf("webhook: host %s has no address", host)
		}
		return nil, errors.New(strings.Join(problems, "; "))
	}
}
