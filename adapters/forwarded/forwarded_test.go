package forwarded

import (
	"net/netip"
	"testing"
)

func TestClient(t *testing.T) {
	p, err := Parse([]string{"10.0.0.0/8", " 192.168.1.7 ", "fd00::/8"})
	if err != nil {
		t.Fatal(err)
	}
	addr := netip.MustParseAddr
	for _, tc := range []struct {
		name string
		peer string
		xff  []string
		want string
	}{
		{"no proxy: the peer", "203.0.113.9", nil, "203.0.113.9"},
		{"an untrusted peer's header is ignored", "203.0.113.9", []string{"198.51.100.1"}, "203.0.113.9"},
		{"the ingress vouches for its client", "10.1.2.3", []string{"198.51.100.1"}, "198.51.100.1"},
		{"what the client wrote to the left is not read", "10.1.2.3", []string{"1.2.3.4, 198.51.100.1"}, "198.51.100.1"},
		{"two trusted hops", "10.1.2.3", []string{"198.51.100.1, 192.168.1.7"}, "198.51.100.1"},
		{"header lines in order", "10.1.2.3", []string{"1.2.3.4", "198.51.100.1"}, "198.51.100.1"},
		{"trusted proxy without a header", "10.1.2.3", nil, "10.1.2.3"},
		{"garbage ends the walk at the last proxy", "10.1.2.3", []string{"198.51.100.1, nonsense"}, "10.1.2.3"},
		{"IPv4 in IPv6", "::ffff:10.1.2.3", []string{"198.51.100.1"}, "198.51.100.1"},
		{"IPv6 proxy", "fd00::1", []string{"2001:db8::5"}, "2001:db8::5"},
		{"all trusted: the furthest", "10.1.2.3", []string{"10.9.9.9"}, "10.9.9.9"},
	} {
		if got := p.Client(addr(tc.peer), tc.xff); got != addr(tc.want) {
			t.Errorf("%s: %s, want %s", tc.name, got, tc.want)
		}
	}
	if got := Proxies(nil).Client(addr("10.1.2.3"), []string{"198.51.100.1"}); got != addr("10.1.2.3") {
		t.Errorf("no trusted proxies: %s", got)
	}
	for _, bad := range []string{"10.0.0.0/33", "ten", "10.0.0.0/8/8", "fe80::1%eth0"} {
		if _, err := Parse([]string{bad}); err == nil {
			t.Errorf("Parse(%q) accepted", bad)
		}
	}
}
