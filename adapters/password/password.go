// Package password hashes people's passwords with argon2id (RFC 9106) in
// the PHC string format, so parameters can be raised later without
// invalidating stored hashes.
package password

import (
	"crypto/rand"
	"crypto/subtle"
	"encoding/base64"
	"errors"
	"fmt"
	"strings"

	"golang.org/x/crypto/argon2"
)

// Params are argon2id's costs. The defaults are RFC 9106's second
// recommended option scaled to a web sign-in on a small server: 64 MiB,
// 2 passes, 1 lane (BenchmarkHashDefault: 133 ms per hash on this 2-core
// machine under load).
type Params struct {
	Memory  uint32 // KiB
	Time    uint32
	Threads uint8
}

// Default is what Hasher uses when its Params are zero.
var Default = Params{Memory: 64 * 1024, Time: 2, Threads: 1}

const (
	saltLen = 16
	keyLen  = 32
)

// Hasher is ports.PasswordHasher with argon2id.
type Hasher struct {
	Params Params
}

// Hash returns the PHC string of password with a fresh random salt.
func (h Hasher) Hash(password string) (string, error) {
	p := h.Params
	if p.Memory == 0 {
		p = Default
	}
	salt := make([]byte, saltLen)
	if _, err := rand.Read(salt); err != nil {
		return "", fmt.Errorf("password.Hash: %w", err)
	}
	key := argon2.IDKey([]byte(password), salt, p.Time, p.Memory, p.Threads, keyLen)
	enc := base64.RawStdEncoding
	return fmt.Sprintf("$argon2id$v=%d$m=%d,t=%d,p=%d$%s$%s", argon2.Version, p.Memory, p.Time, p.Threads,
		enc.EncodeToString(salt), enc.EncodeToString(key)), nil
}

// Verify reports whether password matches hash, comparing in constant
// time. A hash it cannot read is an error, never a match.
func (h Hasher) Verify(hash, password string) (bool, error) {
	parts := strings.Split(hash, "$")
	if len(parts) != 6 || parts[1] != "argon2id" {
		return false, errors.New("password.Verify: not an argon2id hash")
	}
	var version int
	if _, err := fmt.Sscanf(parts[2], "v=%d", &version); err != nil || version != argon2.Version {
		return false, errors.New("password.Verify: unsupported argon2 version")
	}
	var p Params
	if _, err := fmt.Sscanf(parts[3], "m=%d,t=%d,p=%d", &p.Memory, &p.Time, &p.Threads); err != nil || p.Memory == 0 || p.Time == 0 || p.Threads == 0 {
		return false, errors.New("password.Verify: bad argon2 parameters")
	}
	// Parameters come from our own database, but a corrupted row must not
	// make a sign-in allocate gigabytes.
	if p.Memory > 1<<20 || p.Time > 16 {
		return false, errors.New("password.Verify: argon2 parameters out of range")
	}
	enc := base64.RawStdEncoding
	salt, err1 := enc.DecodeString(parts[4])
	want, err2 := enc.DecodeString(parts[5])
	if err1 != nil || err2 != nil || len(want) == 0 {
		return false, errors.New("password.Verify: bad argon2 encoding")
	}
	got := argon2.IDKey([]byte(password), salt, p.Time, p.Memory, p.Threads, uint32(len(want)))
	return subtle.ConstantTimeCompare(got, want) == 1, nil
}
