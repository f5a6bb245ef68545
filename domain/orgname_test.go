package domain

import (
	"errors"
	"strings"
	"testing"
)

func TestOrgName(t *testing.T) {
	for raw, want := range map[string]string{"  Acme LLC ": "Acme LLC", "«Արմենիա» ՍՊԸ": "«Արմենիա» ՍՊԸ", strings.Repeat("Ա", MaxOrgName): strings.Repeat("Ա", MaxOrgName)} {
		if got, err := OrgName(raw); err != nil || got != want {
			t.Errorf("OrgName(%q) = %q, %v; want %q", raw, got, err, want)
		}
	}
	for name, raw := range map[string]string{
		"empty": " ", "CRLF": "Acme\r\nSECURITY NOTICE: unlock at http://phish.example/unlock", "LF": "Acme\nx", "tab": "Acme\tx",
		"NUL": "Acme\x00", "line separator": "Acme\u2028x", "paragraph separator": "Acme\u2029x", "bidi override": "Acme\u202Egnp.exe",
		"bidi isolate": "Acme\u2066x", "invalid UTF-8": "Acme\xff", "too long": strings.Repeat("a", MaxOrgName+1), "DEL": "Acme\x7f",
	} {
		var ve *ValidationError
		if _, err := OrgName(raw); !errors.As(err, &ve) || ve.Code != "invalid_name" {
			t.Errorf("%s: %v, want invalid_name", name, err)
		}
	}
}

func TestOneLine(t *testing.T) {
	for in, want := range map[string]string{
		"Acme\r\nSECURITY NOTICE: x": "Acme SECURITY NOTICE: x", "a\u2028\u2029b": "a b", "a\u202Eb\x00c": "a b c",
		"  Acme  LLC ": "Acme LLC", "Acme\xffx": "Acme x",
	} {
		if got := OneLine(in); got != want || strings.ContainsAny(got, "\r\n") {
			t.Errorf("OneLine(%q) = %q, want %q", in, got, want)
		}
	}
}
