package password

import (
	"strings"
	"testing"
)

func TestHashVerify(t *testing.T) {
	h := Hasher{Params: Params{Memory: 8 * 1024, Time: 1, Threads: 1}}
	a, err := h.Hash("correct horse battery")
	if err != nil {
		t.Fatal(err)
	}
	if !strings.HasPrefix(a, "$argon2id$v=19$m=8192,t=1,p=1$") {
		t.Fatalf("hash %q is not a PHC argon2id string", a)
	}
	b, _ := h.Hash("correct horse battery")
	if a == b {
		t.Fatal("two hashes of one password are equal: the salt is not random")
	}
	for _, tc := range []struct {
		pw   string
		want bool
	}{{"correct horse battery", true}, {"correct horse batterY", false}, {"", false}} {
		ok, err := h.Verify(a, tc.pw)
		if err != nil || ok != tc.want {
			t.Errorf("Verify(%q) = %v, %v; want %v", tc.pw, ok, err, tc.want)
		}
	}
	// Verification reads the parameters from the hash, not the hasher.
	if ok, err := (Hasher{}).Verify(a, "correct horse battery"); !ok || err != nil {
		t.Errorf("default hasher cannot verify a hash made with other parameters: %v %v", ok, err)
	}
}

func TestVerifyRefusesGarbage(t *testing.T) {
	for _, h := range []string{"", "plain", "$2a$10$abc", "$argon2id$v=19$m=99999999,t=1,p=1$c2FsdA$a2V5",
		"$argon2id$v=19$m=8,t=1,p=1$!!$a2V5", "$argon2i$v=19$m=8,t=1,p=1$c2FsdA$a2V5"} {
		if ok, err := (Hasher{}).Verify(h, "x"); ok || err == nil {
			t.Errorf("Verify(%q) = %v, %v; want an error", h, ok, err)
		}
	}
}

func BenchmarkHashDefault(b *testing.B) {
	for i := 0; i < b.N; i++ {
		if _, err := (Hasher{}).Hash("correct horse battery"); err != nil {
			b.Fatal(err)
		}
	}
}
