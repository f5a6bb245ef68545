package webhook

import (
	"errors"
	"net/netip"
	"testing"
)

func TestBlockedAddresses(t *testing.T) {
	for _, tc := range []struct {
		ip      string
		blocked bool
	}{
		{"127.0.0.1", true},
		{"127.255.0.9", true},
		{"10.1.2.3", true},
		{"172.16.0.1", true},
		{"172.31.255.255", true},
		{"192.168.1.10", true},
		{"169.254.169.254", true}, // cloud metadata
		{"100.64.0.1", true},      // CGNAT
		{"100.127.255.254", true},
		{"0.0.0.0", true},
		{"0.1.2.3", true},
		{"224.0.0.1", true},
		{"239.255.255.250", true},
		{"255.255.255.255", true},
		{"::", true},
		{"::1", true},
		{"fe80::1", true},
		{"fe80::1%eth0", true},
		{"fc00::1", true},
		{"fd12:3456::1", true}, // ULA
		{"ff02::1", true},
		{"::ffff:127.0.0.1", true}, // IPv4-mapped loopback
		{"::ffff:10.0.0.1", true},
		{"64:ff9b::a00:1", true}, // NAT64 of 10.0.0.1
		{"2002:7f00:1::1", true}, // 6to4 of 127.0.0.1
		{"::127.0.0.1", true},    // IPv4-compatible
		{"8.8.8.8", false},
		{"1.1.1.1", false},
		{"100.63.255.255", false}, // just below CGNAT
		{"100.128.0.0", false},    // just above
		{"172.32.0.1", false},
		{"93.184.216.34", false},
		{"2606:4700:4700::1111", false},
		{"64:ff9b::808:808", false}, // NAT64 of 8.8.8.8
		{"::ffff:8.8.8.8", false},
	} {
		if got := blocked(netip.MustParseAddr(tc.ip)); got != tc.blocked {
			t.Errorf("blocked(%s) = %v, want %v", tc.ip, got, tc.blocked)
		}
	}
}

func TestRefusePrivateAtDialTime(t *testing.T) {
	for _, tc := range []struct {
		address string
		want    string // "" means allowed
	}{
		{"127.0.0.1:8080", "receiver address 127.0.0.1 is private; set HYSCRIBE_WEBHOOK_ALLOW_PRIVATE=true to allow it"},
		{"[::ffff:10.0.0.1]:443", "receiver address 10.0.0.1 is private; set HYSCRIBE_WEBHOOK_ALLOW_PRIVATE=true to allow it"},
		{"[fe80::1%eth0]:443", "receiver address fe80::1 is private; set HYSCRIBE_WEBHOOK_ALLOW_PRIVATE=true to allow it"},
		{"8.8.8.8:443", ""},
	} {
		err := refusePrivate("tcp", tc.address, nil)
		switch {
		case tc.want == "" && err != nil:
			t.Errorf("refusePrivate(%s) = %v, want nil", tc.address, err)
		case tc.want != "" && (err == nil || err.Error() != tc.want || !errors.Is(err, ErrPrivateAddress)):
			t.Errorf("refusePrivate(%s) = %v, want %q", tc.address, err, tc.want)
		}
	}
	// An address that cannot be read is refused: the check fails closed.
	if err := refusePrivate("tcp", "not-an-address", nil); err == nil {
		t.Error("refusePrivate accepted an unreadable address")
	}
}

func TestTargetKeysByReceiver(t *testing.T) {
	s := NewSender(Config{})
	for raw, want := range map[string]string{
		"https://Hooks.Example.com/a?b=c#frag": "https://hooks.example.com:443",
		"HTTP://example.com:8080/x":            "http://example.com:8080",
		"http://example.com/":                  "http://example.com:80",
		"https://[2606:4700::1]/x":             "https://[2606:4700::1]:443",
	} {
		u, key, err := s.target(raw)
		if err != nil || key != want {
			t.Errorf("target(%q) = %q, %v; want %q", raw, key, err, want)
			continue
		}
		if u.Fragment != "" {
			t.Errorf("target(%q) keeps the fragment", raw)
		}
	}
}
