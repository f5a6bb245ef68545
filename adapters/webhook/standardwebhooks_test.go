package webhook

import (
	"bytes"
	"encoding/base64"
	"encoding/json"
	"net/http"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/hyscribe/hyscribe/internal/testenv"
	"github.com/hyscribe/hyscribe/ports"
)

// libraryDelivery is one delivery as the official library is given it.
type libraryDelivery struct {
	Secret  string            `json:"secret"`
	Headers map[string]string `json:"headers"`
	Body    string            `json:"body"`
}

// TestOfficialLibraryVerifiesDeliveries sends real deliveries with the
// Sender and has npm's standardwebhooks, run by Debian's node, verify what
// the receiver got: a "whsec_" secret is used as configured, a raw secret
// as "whsec_" + base64 of its bytes (README); a tampered body and an old
// timestamp are refused.
func TestOfficialLibraryVerifiesDeliveries(t *testing.T) {
	modules := testenv.NPMModules(t, "standardwebhooks")
	var rec recorder
	srv := serve(t, rec.handler(http.StatusOK, "ok"))
	deliver := func(secret string, sent time.Time) (http.Header, []byte) {
		t.Helper()
		body := []byte(`{"event_type":"transcript_ready","secret":"` + secret + `","docId":"d1","transcription":"Խոսնակ 1: Բարև ձեզ։"}`)
		res := newSender(Config{}).Send(t.Context(), ports.WebhookRequest{
			URL: srv.URL, EventID: "evt_" + base64.RawURLEncoding.EncodeToString([]byte(secret))[:8], Body: body, Secret: secret, Timestamp: sent,
		})
		if res.Err != nil || res.Status != http.StatusOK {
			t.Fatalf("Send = %d, %v", res.Status, res.Err)
		}
		rec.mu.Lock()
		defer rec.mu.Unlock()
		return rec.headers.Clone(), bytes.Clone(rec.body)
	}
	delivery := func(secret string, h http.Header, body []byte) libraryDelivery {
		return libraryDelivery{Secret: secret, Body: string(body), Headers: map[string]string{
			HeaderID: h.Get(HeaderID), HeaderTimestamp: h.Get(HeaderTimestamp), HeaderSignature: h.Get(HeaderSignature),
		}}
	}

	whsec := "whsec_" + base64.StdEncoding.EncodeToString([]byte("a 32-byte key for hyscribe tests"))
	raw := "s3cret-raw"
	now := time.Now()
	hw, bw := deliver(whsec, now)
	hr, br := deliver(raw, now)
	ho, bo := deliver(whsec, now.Add(-10*time.Minute))
	cases := []struct {
		name string
		d    libraryDelivery
		ok   bool
	}{
		{"whsec_ secret as configured", delivery(whsec, hw, bw), true},
		{"raw secret as whsec_ + base64(secret)", delivery("whsec_"+base64.StdEncoding.EncodeToString([]byte(raw)), hr, br), true},
		{"whsec_ secret, tampered body", delivery(whsec, hw, bytes.Replace(bw, []byte("d1"), []byte("d2"), 1)), false},
		{"raw secret, tampered body", delivery("whsec_"+base64.StdEncoding.EncodeToString([]byte(raw)), hr, append(br, ' ')), false},
		{"timestamp 10 minutes old", delivery(whsec, ho, bo), false},
		{"other secret", delivery("whsec_"+base64.StdEncoding.EncodeToString([]byte("another key")), hw, bw), false},
	}
	ds := make([]libraryDelivery, len(cases))
	for i, c := range cases {
		ds[i] = c.d
	}
	in, _ := json.Marshal(ds)
	cmd := exec.CommandContext(t.Context(), "node", filepath.Join("testdata", "verify.js"))
	cmd.Env = append(os.Environ(), "NODE_PATH="+modules)
	cmd.Stdin = bytes.NewReader(in)
	var stderr strings.Builder
	cmd.Stderr = &stderr
	out, err := cmd.Output()
	if err != nil {
		t.Fatalf("node verify.js: %v\n%s", err, stderr.String())
	}
	var results []struct {
		OK    bool   `json:"ok"`
		Error string `json:"error"`
	}
	if err := json.Unmarshal(out, &results); err != nil || len(results) != len(cases) {
		t.Fatalf("node verify.js answered %q: %v", out, err)
	}
	for i, c := range cases {
		if results[i].OK != c.ok {
			t.Errorf("%s: library verified = %v (%s), want %v", c.name, results[i].OK, results[i].Error, c.ok)
		}
	}
	// The body's secret field stays the configured string (spec §6).
	if !bytes.Contains(bw, []byte(`"secret":"`+whsec+`"`)) {
		t.Errorf("body %s does not carry the configured secret", bw)
	}
}

func TestSigningKeyOfBothSecretForms(t *testing.T) {
	key := []byte("0123456789abcdef0123456789abcdef")
	for secret, want := range map[string][]byte{
		"whsec_" + base64.StdEncoding.EncodeToString(key): key,
		"s3cret":          []byte("s3cret"),
		"whsec_":          []byte("whsec_"),
		"whsec_not*b64!":  []byte("whsec_not*b64!"),
		"WHSEC_" + "AAAA": []byte("WHSEC_AAAA"),
	} {
		if got := SigningKey(secret); !bytes.Equal(got, want) {
			t.Errorf("SigningKey(%q) = %q, want %q", secret, got, want)
		}
	}
	// Our own Verify agrees with the sender for a whsec_ secret.
	secret := "whsec_" + base64.StdEncoding.EncodeToString(key)
	h := http.Header{}
	h.Set(HeaderID, "evt_1")
	h.Set(HeaderTimestamp, "1700000000")
	h.Set(HeaderSignature, signatureHeader(secret, "evt_1", 1_700_000_000, []byte("{}")))
	if err := Verify(secret, h, []byte("{}"), time.Unix(1_700_000_000, 0), 0); err != nil {
		t.Errorf("Verify of a whsec_ delivery: %v", err)
	}
}
