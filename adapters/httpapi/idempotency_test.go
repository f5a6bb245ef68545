package httpapi

import (
	"context"
	"strings"
	"sync"
	"testing"
	"time"

	"github.com/hyscribe/hyscribe/domain"
	"github.com/hyscribe/hyscribe/ports"
)

func (e *env) createKeyed(apiKey, idemKey, body string) response {
	e.t.Helper()
	h := bearer(apiKey)
	h["Content-Type"] = "application/json"
	h["Idempotency-Key"] = idemKey
	return e.do("POST", "/api/createTranscription", h, strings.NewReader(body))
}

// wantJobs checks how many jobs the account has in the store.
func (e *env) wantJobs(account domain.AccountID, want int, after string) {
	e.t.Helper()
	_, n, err := e.store.(ports.JobLister).ListJobs(context.Background(), ports.JobQuery{Account: account})
	if err != nil {
		e.t.Fatal(err)
	}
	if n != want {
		e.t.Fatalf("%d jobs %s, want %d", n, after, want)
	}
}

func TestIdempotentCreate(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	acct, key := e.account(domain.PlanBusiness)
	body := `{"type":"phone_call","metadata":{"crm":"A-1","n":[1,2]}}`

	first := e.createKeyed(key, "order-1042", body)
	if first.status != 200 || first.header.Get("Idempotent-Replayed") != "" {
		t.Fatalf("first create: %d %s (Idempotent-Replayed %q)", first.status, first.body, first.header.Get("Idempotent-Replayed"))
	}
	// A retry an hour later, its JSON spaced and ordered differently and
	// the key in the draft's quoted form: the first answer, byte for byte.
	e.clock.Advance(time.Hour)
	for _, k := range []string{"order-1042", `"order-1042"`} {
		again := e.createKeyed(key, k, `{ "metadata": {"n":[1,2], "crm":"A-1"}, "type": "phone_call" }`)
		if again.status != 200 || string(again.body) != string(first.body) {
			t.Fatalf("retry with key %s: %d %s, want the first answer %s", k, again.status, again.body, first.body)
		}
		if got := again.header.Get("Idempotent-Replayed"); got != "true" {
			t.Fatalf("retry: Idempotent-Replayed %q, want true", got)
		}
	}
	e.wantJobs(acct.ID, 1, "after retries")

	// The same key with another body: 422, and still one job.
	msg := e.createKeyed(key, "order-1042", `{"type":"single_voice"}`).wantError(t, 422, "idempotency_key_reused")
	if !strings.Contains(msg, "order-1042") || !strings.Contains(msg, "different request body") {
		t.Fatalf("422 message %q does not say which key and why", msg)
	}
	e.wantJobs(acct.ID, 1, "after a reused key")

	// Another key, or no key: new jobs as before.
	if r := e.createKeyed(key, "order-1043", body); r.status != 200 || string(r.body) == string(first.body) {
		t.Fatalf("another key: %d %s", r.status, r.body)
	}
	e.create(key, body)
	e.create(key, body)
	e.wantJobs(acct.ID, 4, "after two keys and two plain creates")

	// After 24 hours the key is free again.
	e.clock.Advance(23 * time.Hour)
	if r := e.createKeyed(key, "order-1042", body); r.status != 200 || string(r.body) == string(first.body) || r.header.Get("Idempotent-Replayed") != "" {
		t.Fatalf("key after 24 h: %d %s", r.status, r.body)
	}
}

func TestIdempotencyKeysAreAnAccountsOwn(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	_, keyA := e.account(domain.PlanBusiness)
	b, keyB := e.account(domain.PlanBusiness)
	a1 := e.createKeyed(keyA, "k", `{"type":"single_voice"}`)
	b1 := e.createKeyed(keyB, "k", `{"type":"single_voice"}`)
	if a1.status != 200 || b1.status != 200 || string(a1.body) == string(b1.body) {
		t.Fatalf("one key text in two accounts: %s / %s", a1.body, b1.body)
	}
	e.wantJobs(b.ID, 1, "in account B")
}

func TestIdempotencyKeyRefusals(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	acct, key := e.account(domain.PlanBusiness)
	for _, k := range []string{`""`, strings.Repeat("k", 256), "ключ", "a\\b"} {
		e.createKeyed(key, k, `{"type":"single_voice"}`).wantError(t, 400, "invalid_idempotency_key")
	}
	// A bad body with a key is a 400 and does not take the key.
	e.createKeyed(key, "k1", `{"type":"video"}`).wantError(t, 400, "invalid_type")
	if r := e.createKeyed(key, "k1", `{"type":"single_voice"}`); r.status != 200 || r.header.Get("Idempotent-Replayed") != "" {
		t.Fatalf("key after a refused body: %d %s", r.status, r.body)
	}
	e.wantJobs(acct.ID, 1, "after refused keys and a refused body")
}

func TestConcurrentIdempotentCreatesMakeOneJob(t *testing.T) {
	t.Parallel()
	e := newEnv(t)
	acct, key := e.account(domain.PlanBusiness)
	const n = 10
	answers := make([]response, n)
	var wg sync.WaitGroup
	for i := range n {
		wg.Add(1)
		go func() {
			defer wg.Done()
			answers[i] = e.createKeyed(key, "same", `{"type":"single_voice"}`)
		}()
	}
	wg.Wait()
	replays := 0
	for i, r := range answers {
		if r.status != 200 || string(r.body) != string(answers[0].body) {
			t.Fatalf("request %d: %d %s; request 0 got %s", i, r.status, r.body, answers[0].body)
		}
		if r.header.Get("Idempotent-Replayed") == "true" {
			replays++
		}
	}
	if replays != n-1 {
		t.Fatalf("%d of %d answers marked replayed, want %d", replays, n, n-1)
	}
	e.wantJobs(acct.ID, 1, "from concurrent requests with one key")
}
