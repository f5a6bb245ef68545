package blob

import (
	"bytes"
	"errors"
	"net/url"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/hyscribe/hyscribe/domain"
)

var testSecret = []byte("0123456789abcdef0123456789abcdef")

// parseUpload splits an upload URL as the HTTP adapter does.
func parseUpload(t *testing.T, raw string) (domain.DocID, time.Time, string) {
	t.Helper()
	u, err := url.Parse(raw)
	if err != nil {
		t.Fatal(err)
	}
	id, ok := strings.CutPrefix(u.Path, "/upload/")
	if !ok {
		t.Fatalf("path %q is not under /upload/", u.Path)
	}
	secs, err := strconv.ParseInt(u.Query().Get("expires"), 10, 64)
	if err != nil {
		t.Fatal(err)
	}
	return domain.DocID(id), time.Unix(secs, 0), u.Query().Get("signature")
}

func TestSignerRoundTrip(t *testing.T) {
	s := NewSigner("http://127.0.0.1:8080/", testSecret)
	now := time.Date(2025, 3, 1, 12, 0, 0, 0, time.UTC)
	expires := now.Add(time.Hour)

	raw := s.Sign("Doc_-1", expires)
	if !strings.HasPrefix(raw, "http://127.0.0.1:8080/upload/Doc_-1?expires="+strconv.FormatInt(expires.Unix(), 10)+"&signature=") {
		t.Fatalf("URL = %s", raw)
	}
	id, exp, sig := parseUpload(t, raw)
	if len(sig) != 64 {
		t.Fatalf("signature %q is not hex SHA-256", sig)
	}
	if err := s.VerifyUpload(id, exp, sig, now); err != nil {
		t.Fatalf("own signature refused: %v", err)
	}
	if err := s.VerifyUpload(id, exp, strings.ToUpper(sig), now.Add(59*time.Minute)); err != nil {
		t.Fatalf("upper-case hex refused: %v", err)
	}
}

func TestSignerRefusals(t *testing.T) {
	s := NewSigner("http://h", testSecret)
	now := time.Date(2025, 3, 1, 12, 0, 0, 0, time.UTC)
	expires := now.Add(time.Hour)
	id, exp, sig := parseUpload(t, s.Sign("doc1", expires))
	flipped := []byte(sig)
	if flipped[10] == 'a' {
		flipped[10] = 'b'
	} else {
		flipped[10] = 'a'
	}

	cases := []struct {
		name    string
		id      domain.DocID
		expires time.Time
		sig     string
		now     time.Time
		reason  string
	}{
		{"tampered docId", "doc2", exp, sig, now, "does not match"},
		{"tampered expires", id, exp.Add(time.Second), sig, now, "does not match"},
		{"extended expires", id, exp.Add(24 * time.Hour), sig, now, "does not match"},
		{"tampered signature", id, exp, string(flipped), now, "does not match"},
		{"other secret", id, exp, func() string {
			_, _, s2 := parseUpload(t, NewSigner("http://h", []byte("another secret")).Sign("doc1", expires))
			return s2
		}(), now, "does not match"},
		{"missing signature", id, exp, "", now, "malformed"},
		{"not hex", id, exp, strings.Repeat("zz", 32), now, "malformed"},
		{"short", id, exp, sig[:62], now, "malformed"},
		{"expired exactly", id, exp, sig, expires, "expired at 2025-03-01T13:00:00Z"},
		{"expired later", id, exp, sig, expires.Add(time.Minute), "expired at"},
	}
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			err := s.VerifyUpload(c.id, c.expires, c.sig, c.now)
			if !errors.Is(err, domain.ErrForbidden) {
				t.Fatalf("VerifyUpload = %v, want ErrForbidden", err)
			}
			if !strings.Contains(err.Error(), c.reason) {
				t.Fatalf("reason %q does not say %q", err, c.reason)
			}
		})
	}
}

func FuzzVerifyUpload(f *testing.F) {
	s := NewSigner("http://h", testSecret)
	sig := signatureOf(s.Sign("doc", time.Unix(2000, 0)))
	f.Add("doc", int64(2000), sig, int64(1000))
	f.Add("", int64(-1), "", int64(0))
	f.Add("doc\n1", int64(1<<62), strings.Repeat("f", 64), int64(1<<62))
	f.Fuzz(func(t *testing.T, id string, expires int64, signature string, now int64) {
		err := s.VerifyUpload(domain.DocID(id), time.Unix(expires, 0), signature, time.Unix(now, 0))
		if err != nil && !errors.Is(err, domain.ErrForbidden) {
			t.Fatalf("refusal %v does not wrap ErrForbidden", err)
		}
		// Whatever was fuzzed, a freshly signed address verifies, and
		// the fuzzed signature only verifies if it is that one.
		good := s.Sign(domain.DocID(id), time.Unix(expires, 0))
		goodSig := signatureOf(good)
		if expires > now && s.VerifyUpload(domain.DocID(id), time.Unix(expires, 0), goodSig, time.Unix(now, 0)) != nil {
			t.Fatalf("own signature refused for %q %d", id, expires)
		}
		if err == nil && !strings.EqualFold(signature, goodSig) {
			t.Fatalf("accepted forged signature %q", signature)
		}
	})
}

// signatureOf takes the signature from an upload URL without a *testing.T,
// for use while seeding the fuzzer.
func signatureOf(raw string) string {
	i := strings.LastIndex(raw, "&signature=")
	return raw[i+len("&signature="):]
}

func TestLoadOrCreateSecret(t *testing.T) {
	path := filepath.Join(t.TempDir(), "sub", "upload.key")
	a, err := LoadOrCreateSecret(path)
	if err != nil {
		t.Fatal(err)
	}
	if len(a) != SecretSize || bytes.Equal(a, make([]byte, SecretSize)) {
		t.Fatalf("secret %x", a)
	}
	st, err := os.Stat(path)
	if err != nil {
		t.Fatal(err)
	}
	if st.Mode().Perm() != 0o600 {
		t.Fatalf("mode %o, want 600", st.Mode().Perm())
	}
	b, err := LoadOrCreateSecret(path)
	if err != nil || !bytes.Equal(a, b) {
		t.Fatalf("second load: %x, %v; want the same secret", b, err)
	}
	entries, _ := os.ReadDir(filepath.Dir(path))
	if len(entries) != 1 {
		t.Fatalf("directory holds %d entries, want only the secret", len(entries))
	}
}

func TestLoadOrCreateSecretRace(t *testing.T) {
	path := filepath.Join(t.TempDir(), "upload.key")
	const n = 16
	got := make([][]byte, n)
	errs := make([]error, n)
	var wg sync.WaitGroup
	for i := range n {
		wg.Add(1)
		go func() {
			defer wg.Done()
			got[i], errs[i] = LoadOrCreateSecret(path)
		}()
	}
	wg.Wait()
	for i := range n {
		if errs[i] != nil {
			t.Fatal(errs[i])
		}
		if !bytes.Equal(got[i], got[0]) {
			t.Fatal("racing creators ended with different secrets")
		}
	}
}

func TestLoadOrCreateSecretRefusesBadFiles(t *testing.T) {
	dir := t.TempDir()
	short := filepath.Join(dir, "short.key")
	if err := os.WriteFile(short, []byte("tiny"), 0o600); err != nil {
		t.Fatal(err)
	}
	if _, err := LoadOrCreateSecret(short); err == nil || !strings.Contains(err.Error(), "4 bytes") {
		t.Fatalf("short secret: %v", err)
	}
	open := filepath.Join(dir, "open.key")
	if err := os.WriteFile(open, testSecret, 0o644); err != nil {
		t.Fatal(err)
	}
	if err := os.Chmod(open, 0o644); err != nil {
		t.Fatal(err)
	}
	if _, err := LoadOrCreateSecret(open); err == nil || !strings.Contains(err.Error(), "chmod 600") {
		t.Fatalf("world-readable secret: %v", err)
	}
}

func TestNewSignerRefusesEmptySecret(t *testing.T) {
	defer func() {
		if recover() == nil {
			t.Fatal("no panic")
		}
	}()
	NewSigner("http://h", nil)
}
