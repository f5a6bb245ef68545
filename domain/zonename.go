package domain

import "strings"

// MaxZoneNameLen bounds an account's time zone name; the longest IANA
// name (America/Argentina/ComodRivadavia) has 32 characters.
const MaxZoneNameLen = 64

// ZoneNameSyntax reports whether name is spelled as an IANA time zone
// is: segments of letters, digits, '_', '+' and '-' joined by '/', the
// first starting with a letter. A path such as "./Asia/Yerevan" or
// "Asia//Yerevan" names the same zone file, so each would be a new zone
// to every cache keyed by name; only the one spelling is a zone name.
func ZoneNameSyntax(name string) bool {
	if name == "" || len(name) > MaxZoneNameLen {
		return false
	}
	for i, seg := range strings.Split(name, "/") {
		if seg == "" {
			return false
		}
		if first := seg[0]; i == 0 && !('a' <= first && first <= 'z' || 'A' <= first && first <= 'Z') {
			return false
		}
		for j := 0; j < len(seg); j++ {
			switch b := seg[j]; {
			case 'a' <= b && b <= 'z', 'A' <= b && b <= 'Z', '0' <= b && b <= '9', b == '_', b == '+', b == '-':
			default:
				return false
			}
		}
	}
	return true
}
