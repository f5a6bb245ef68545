// Package forwarded finds the address of the client of an HTTP request
// that came through proxies the operator trusts (HYSCRIBE_TRUSTED_PROXIES:
// the ingress in front of the service). Every per-address limit (sign-in,
// sign-up, forgot password, uploads in progress) counts that address;
// behind an ingress the peer of every connection is the ingress, so
// without it all clients would share one count and one client could lock
// everyone out.
//
// X-Forwarded-For is written by each proxy appending the address it saw,
// so only its right end is vouched for: the header is walked from the
// right, skipping addresses of trusted proxies, and the first untrusted
// one is the client. Whatever a client wrote to the left is never read,
// and the header of a peer that is not a trusted proxy is ignored.
package forwarded

import (
	"fmt"
	"net/netip"
	"strings"

	"github.com/gofiber/fiber/v2"
)

// Proxies are the networks whose X-Forwarded-For is believed.
type Proxies []netip.Prefix

// Parse reads a list of CIDRs ("10.0.0.0/8") or single addresses; an
// empty list trusts no proxy.
func Parse(list []string) (Proxies, error) {
	var p Proxies
	for _, s := range list {
		s = strings.TrimSpace(s)
		if s == "" {
			continue
		}
		if pre, err := netip.ParsePrefix(s); err == nil {
			p = append(p, pre.Masked())
			continue
		}
		a, err := netip.ParseAddr(s)
		if err != nil || a.Zone() != "" {
			return nil, fmt.Errorf("forwarded.Parse: %q is not a CIDR such as 10.0.0.0/8 or an address", s)
		}
		a = a.Unmap()
		p = append(p, netip.PrefixFrom(a, a.BitLen()))
	}
	return p, nil
}

// trusts reports whether a is the address of a trusted proxy.
func (p Proxies) trusts(a netip.Addr) bool {
	a = a.Unmap()
	for _, pre := range p {
		if pre.Contains(a) {
			return true
		}
	}
	return false
}

// Client is the address of the client of a request whose connection came
// from peer with these X-Forwarded-For header lines (in order). The
// peer's own address unless it is a trusted proxy; then the rightmost
// address of the header that is not a trusted proxy. An entry that is
// not an address ends the walk at the last proxy reached: what lies left
// of it is not vouched for.
func (p Proxies) Client(peer netip.Addr, xff []string) netip.Addr {
	client := peer.Unmap()
	if len(p) == 0 || !p.trusts(client) {
		return client
	}
	var hops []string
	for _, line := range xff {
		hops = append(hops, strings.Split(line, ",")...)
	}
	for i := len(hops) - 1; i >= 0; i-- {
		a, err := netip.ParseAddr(strings.TrimSpace(hops[i]))
		if err != nil || a.Zone() != "" {
			return client
		}
		client = a.Unmap()
		if !p.trusts(client) {
			return client
		}
	}
	return client
}

// localsKey is where Middleware leaves a request's client address.
const localsKey = "hyscribe.forwarded.client"

// Middleware finds each request's client address once (Client), for
// ClientIP.
func Middleware(p Proxies) fiber.Handler {
	return func(c *fiber.Ctx) error {
		if len(p) > 0 {
			peer, _ := netip.AddrFromSlice(c.Context().RemoteIP())
			var xff []string
			for _, v := range c.Request().Header.PeekAll(fiber.HeaderXForwardedFor) {
				xff = append(xff, string(v))
			}
			c.Locals(localsKey, p.Client(peer, xff).String())
		}
		return c.Next()
	}
}

// ClientIP is the request's client address as Middleware found it; the
// connection's peer where no proxy is trusted.
func ClientIP(c *fiber.Ctx) string {
	if ip, ok := c.Locals(localsKey).(string); ok {
		return ip
	}
	return c.IP()
}
