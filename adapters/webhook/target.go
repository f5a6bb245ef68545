package webhook

import (
	"errors"
	"fmt"
	"net"
	"net/netip"
	"net/url"
	"strings"
	"syscall"
)

// privateAddrError refuses a receiver on one of the service's own networks:
// webhooks would otherwise let any customer probe and call internal services
// (SSRF).
type privateAddrError struct{ ip netip.Addr }

func (e *privateAddrError) Error() string {
	return fmt.Sprintf("receiver address %s is private; set HYSCRIBE_WEBHOOK_ALLOW_PRIVATE=true to allow it", e.ip)
}

func (e *privateAddrError) Is(target error) bool { return target == ErrPrivateAddress }

// target validates a receiver URL and returns it with its breaker key,
// scheme://host:port. Literal addresses are checked here so they fail before
// any dial; host names are checked when dialled (refusePrivate).
func (s *Sender) target(raw string) (*url.URL, string, error) {
	u, err := url.Parse(strings.TrimSpace(raw))
	if err != nil {
		var ue *url.Error
		if errors.As(err, &ue) {
			err = ue.Err
		}
		return nil, "", fmt.Errorf("receiver URL is not valid: %w", err)
	}
	scheme := strings.ToLower(u.Scheme)
	if scheme != "http" && scheme != "https" {
		return nil, "", fmt.Errorf("receiver URL scheme %q is not allowed: use http or https", clip(u.Scheme, 20))
	}
	if u.User != nil {
		// Credentials in the URL would travel in every request and end up in
		// logs and delivery records; the webhook secret authenticates instead.
		return nil, "", errors.New("receiver URL must not contain a user name or password; check the webhook signature instead")
	}
	host := strings.ToLower(u.Hostname())
	if host == "" {
		return nil, "", errors.New("receiver URL has no host")
	}
	port := u.Port()
	if port == "" {
		port = map[string]string{"http": "80", "https": "443"}[scheme]
	}
	key := scheme + "://" + net.JoinHostPort(host, port)
	if !s.cfg.AllowPrivate {
		if ip, err := netip.ParseAddr(host); err == nil && blocked(ip) {
			return nil, key, &privateAddrError{ip: ip.Unmap().WithZone("")}
		}
	}
	u.Scheme, u.Fragment, u.RawFragment = scheme, "", ""
	return u, key, nil
}

// refusePrivate is the net.Dialer Control hook: address is the resolved
// ip:port about to be connected to. An address it cannot read is refused,
// so the check fails closed.
func refusePrivate(_, address string, _ syscall.RawConn) error {
	ap, err := netip.ParseAddrPort(address)
	if err != nil {
		return fmt.Errorf("receiver address %q cannot be checked: %w", address, err)
	}
	if blocked(ap.Addr()) {
		return &privateAddrError{ip: ap.Addr().Unmap().WithZone("")}
	}
	return nil
}

// blockedPrefixes are the special-purpose ranges netip has no predicate for.
var blockedPrefixes = []netip.Prefix{
	netip.MustParsePrefix("0.0.0.0/8"),       // "this network": 0.x reaches the local host on Linux
	netip.MustParsePrefix("100.64.0.0/10"),   // carrier-grade NAT, used inside clouds
	netip.MustParsePrefix("192.0.0.0/24"),    // IETF protocol assignments
	netip.MustParsePrefix("198.18.0.0/15"),   // benchmarking, used by some VPNs
	netip.MustParsePrefix("240.0.0.0/4"),     // reserved, and the broadcast address
	netip.MustParsePrefix("::/96"),           // IPv4-compatible IPv6 (deprecated), ::1 and ::
	netip.MustParsePrefix("fec0::/10"),       // site-local (deprecated), still routed by some stacks
	netip.MustParsePrefix("64:ff9b:1::/48"),  // local-use NAT64
	netip.MustParsePrefix("2001:db8::/32"),   // documentation: never a real receiver
	netip.MustParsePrefix("192.0.2.0/24"),    // documentation
	netip.MustParsePrefix("198.51.100.0/24"), // documentation
	netip.MustParsePrefix("203.0.113.0/24"),  // documentation
}

// embeddingPrefixes carry an IPv4 address that a translator on the path
// would connect to, so the embedded address is checked too.
var (
	nat64Prefix = netip.MustParsePrefix("64:ff9b::/96")
	sixToFour   = netip.MustParsePrefix("2002::/16")
)

// blocked reports whether ip belongs to a private, loopback, link-local,
// unspecified, multicast or otherwise non-public network.
func blocked(ip netip.Addr) bool {
	ip = ip.Unmap().WithZone("")
	if !ip.IsValid() || ip.IsLoopback() || ip.IsPrivate() || ip.IsUnspecified() ||
		ip.IsLinkLocalUnicast() || ip.IsLinkLocalMulticast() || ip.IsInterfaceLocalMulticast() || ip.IsMulticast() {
		return true
	}
	for _, p := range blockedPrefixes {
		if p.Contains(ip) {
			return true
		}
	}
	b := ip.As16()
	switch {
	case nat64Prefix.Contains(ip):
		return blocked(netip.AddrFrom4([4]byte{b[12], b[13], b[14], b[15]}))
	case sixToFour.Contains(ip):
		return blocked(netip.AddrFrom4([4]byte{b[2], b[3], b[4], b[5]}))
	}
	return false
}
