package blob

import (
	"context"
	"crypto/hmac"
	"crypto/rand"
	"crypto/sha256"
	"encoding/hex"
	"errors"
	"fmt"
	"io"
	"io/fs"
	"net/url"
	"os"
	"path/filepath"
	"runtime"
	"strconv"
	"strings"
	"time"

	"github.com/hyscribe/hyscribe/domain"
)

// Signer is a ports.UploadSigner for uploads served by the service itself:
// the address is {publicURL}/upload/{docId}?expires=<unix seconds>&signature=<hex>,
// the signature being HMAC-SHA256(secret, docId + "\n" + expires). Anyone
// holding the address may upload until it expires, exactly like an S3
// pre-signed PUT; nobody can forge one for another job or another time.
type Signer struct {
	base   string
	secret []byte
}

// NewSigner builds a signer for addresses under publicURL. The secret must
// be the same in every process that verifies uploads.
func NewSigner(publicURL string, secret []byte) *Signer {
	if len(secret) == 0 {
		panic("blob.NewSigner: a secret is required")
	}
	return &Signer{base: strings.TrimRight(publicURL, "/"), secret: append([]byte(nil), secret...)}
}

// SignUpload returns the absolute upload URL for the job, valid until expires
// (to the second). It never fails.
func (s *Signer) SignUpload(_ context.Context, id domain.DocID, expires time.Time) (string, error) {
	return s.Sign(id, expires), nil
}

// Sign is SignUpload without the error it never returns.
func (s *Signer) Sign(id domain.DocID, expires time.Time) string {
	exp := strconv.FormatInt(expires.Unix(), 10)
	return s.base + "/upload/" + url.PathEscape(string(id)) +
		"?expires=" + exp + "&signature=" + hex.EncodeToString(s.mac(string(id), exp))
}

// VerifyUpload checks a signature taken from an upload URL. Every refusal
// wraps domain.ErrForbidden and says why. The signature is checked before the
// expiry, so a tampered expiry reads as a mismatch, not as a valid address.
func (s *Signer) VerifyUpload(id domain.DocID, expires time.Time, signature string, now time.Time) error {
	got, err := hex.DecodeString(signature)
	if err != nil || len(got) != sha256.Size {
		return fmt.Errorf("upload signature is missing or malformed: %w", domain.ErrForbidden)
	}
	want := s.mac(string(id), strconv.FormatInt(expires.Unix(), 10))
	if !hmac.Equal(got, want) { // constant time
		return fmt.Errorf("upload signature does not match: %w", domain.ErrForbidden)
	}
	if !now.Before(expires) {
		return fmt.Errorf("upload address expired at %s: %w", expires.UTC().Format(time.RFC3339), domain.ErrForbidden)
	}
	return nil
}

func (s *Signer) mac(id, expires string) []byte {
	m := hmac.New(sha256.New, s.secret)
	m.Write([]byte(id + "\n" + expires))
	return m.Sum(nil)
}

// SecretSize is the length of a secret made by LoadOrCreateSecret.
const SecretSize = 32

// LoadOrCreateSecret reads the upload-signing secret at path, creating it with
// SecretSize random bytes (mode 0600) if it does not exist, so that an
// embedded installation keeps valid upload addresses across restarts without
// any configuration. Creation is atomic: the bytes are written to a temporary
// file and hard-linked into place, which fails if another process created the
// file first, in which case its secret is used. An existing file readable by
// group or others, or of the wrong size, is refused rather than trusted.
func LoadOrCreateSecret(path string) ([]byte, error) {
	secret, err := readSecret(path)
	if err == nil || !errors.Is(err, fs.ErrNotExist) {
		return secret, err
	}
	secret = make([]byte, SecretSize)
	if _, err := rand.Read(secret); err != nil {
		return nil, fmt.Errorf("blob.LoadOrCreateSecret: %w", err)
	}
	dir := filepath.Dir(path)
	if err := os.MkdirAll(dir, 0o700); err != nil {
		return nil, fmt.Errorf("blob.LoadOrCreateSecret: %w", err)
	}
	tmp, err := os.CreateTemp(dir, ".secret-*") // created with mode 0600
	if err != nil {
		return nil, fmt.Errorf("blob.LoadOrCreateSecret: %w", err)
	}
	defer os.Remove(tmp.Name())
	_, werr := tmp.Write(secret)
	serr := tmp.Sync()
	cerr := tmp.Close()
	if err := errors.Join(werr, serr, cerr); err != nil {
		return nil, fmt.Errorf("blob.LoadOrCreateSecret: %w", err)
	}
	// Link, unlike rename, never replaces an existing file: of two processes
	// starting at once, exactly one secret wins and both use it.
	if err := os.Link(tmp.Name(), path); errors.Is(err, fs.ErrExist) {
		return readSecret(path)
	} else if err != nil {
		return nil, fmt.Errorf("blob.LoadOrCreateSecret: %w", err)
	}
	if d, err := os.Open(dir); err == nil {
		_ = d.Sync() // make the new name durable; failing here loses nothing yet
		_ = d.Close()
	}
	return secret, nil
}

func readSecret(path string) ([]byte, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, fmt.Errorf("blob.LoadOrCreateSecret: %w", err)
	}
	defer f.Close() //nolint:errcheck // opened read-only
	st, err := f.Stat()
	if err != nil {
		return nil, fmt.Errorf("blob.LoadOrCreateSecret: %w", err)
	}
	if runtime.GOOS != "windows" && st.Mode().Perm()&0o077 != 0 {
		return nil, fmt.Errorf("blob.LoadOrCreateSecret: %s is readable by other users (mode %#o): run chmod 600 on it", path, st.Mode().Perm())
	}
	b, err := io.ReadAll(io.LimitReader(f, SecretSize+1))
	if err != nil {
		return nil, fmt.Errorf("blob.LoadOrCreateSecret: %w", err)
	}
	if len(b) != SecretSize {
		return nil, fmt.Errorf("blob.LoadOrCreateSecret: %s holds %d bytes, want %d: delete it to make a new secret (pending upload addresses become invalid)", path, len(b), SecretSize)
	}
	return b, nil
}
