package porttest

import (
	"errors"
	"fmt"
	"sync"
	"testing"
	"time"

	"github.com/hyscribe/hyscribe/domain"
)

var accountTests = []subtest{
	{"CreateGetRoundTrip", func(t *testing.T, s Stores) {
		a := domain.Account{
			ID: "acc-1", Name: "Արմենիա Բանկ", Plan: domain.PlanBusiness, BalanceMs: 3_600_000,
			WebhookURL: "https://hooks.example/t", WebhookSecret: "whsec_1", AnalysisWebhookURL: "https://hooks.example/a",
			NotifyFailures: true, CreatedAt: t0.Add(123456 * time.Nanosecond).In(time.FixedZone("AMT", 4*3600)),
		}
		noErr(t, s.CreateAccount(ctxOf(t), a))
		wantAccount(t, must(s.GetAccount(ctxOf(t), a.ID)), a)

		free := domain.Account{ID: "acc-2", Name: "Free", Plan: domain.PlanFree, CreatedAt: t0}
		noErr(t, s.CreateAccount(ctxOf(t), free))
		wantAccount(t, must(s.GetAccount(ctxOf(t), free.ID)), free)
	}},
	{"CreateConflict", func(t *testing.T, s Stores) {
		a := newAccount(t, s, "acc", 1000)
		err := s.CreateAccount(ctxOf(t), domain.Account{ID: a.ID, Name: "other", Plan: domain.PlanFree, CreatedAt: t0})
		wantErr(t, err, domain.ErrConflict, "second CreateAccount with one ID")
		wantAccount(t, must(s.GetAccount(ctxOf(t), a.ID)), a)
	}},
	{"GetNotFound", func(t *testing.T, s Stores) {
		_, err := s.GetAccount(ctxOf(t), "missing")
		wantErr(t, err, domain.ErrNotFound, "GetAccount of a missing account")
	}},
	{"Update", func(t *testing.T, s Stores) {
		a := newAccount(t, s, "acc", 1000)
		noErr(t, s.UpdateAccount(ctxOf(t), a.ID, func(a *domain.Account) error {
			a.WebhookURL, a.NotifyFailures, a.BalanceMs, a.Plan = "https://new.example", true, 5000, domain.PlanFree
			return nil
		}))
		want := a
		want.WebhookURL, want.NotifyFailures, want.BalanceMs, want.Plan = "https://new.example", true, 5000, domain.PlanFree
		wantAccount(t, must(s.GetAccount(ctxOf(t), a.ID)), want)
	}},
	{"UpdateFnErrorSavesNothing", func(t *testing.T, s Stores) {
		a := newAccount(t, s, "acc", 1000)
		err := s.UpdateAccount(ctxOf(t), a.ID, func(a *domain.Account) error {
			a.BalanceMs = 0
			return errRefused
		})
		wantErr(t, err, errRefused, "UpdateAccount whose fn fails")
		wantAccount(t, must(s.GetAccount(ctxOf(t), a.ID)), a)
	}},
	{"UpdateNotFound", func(t *testing.T, s Stores) {
		err := s.UpdateAccount(ctxOf(t), "missing", func(*domain.Account) error { return nil })
		wantErr(t, err, domain.ErrNotFound, "UpdateAccount of a missing account")
	}},
	{"ConcurrentReserveNeverOverdraws", func(t *testing.T, s Stores) {
		const n, affordable = 16, 10
		a := newAccount(t, s, "acc", affordable*1000)
		errs := make([]error, n)
		start := make(chan struct{})
		var wg sync.WaitGroup
		for i := range n {
			wg.Go(func() {
				<-start
				errs[i] = s.UpdateAccount(ctxOf(t), a.ID, func(a *domain.Account) error {
					_, err := a.Reserve(1)
					return err
				})
			})
		}
		close(start)
		wg.Wait()
		ok := 0
		for i, err := range errs {
			if err == nil {
				ok++
			} else if !domain.IsPermanent(err) {
				t.Fatalf("goroutine %d: %v", i, err)
			}
		}
		got := must(s.GetAccount(ctxOf(t), a.ID))
		if ok != affordable || got.BalanceMs != 0 {
			t.Fatalf("%d reservations succeeded leaving %d ms; want %d leaving 0", ok, got.BalanceMs, affordable)
		}
	}},
}

// newKey makes a key created at at, in memory only.
func newKey(id string, acct domain.AccountID, at time.Time) domain.APIKey {
	_, k := domain.NewAPIKey(id, acct, []byte(id+"-random-bytes-for-a-test-key-0123456789-abcdefgh"), at)
	return k
}

var apiKeyTests = []subtest{
	{"AddAndFindByHash", func(t *testing.T, s Stores) {
		a := newAccount(t, s, "acc", 1000)
		k := newKey("key-1", a.ID, t0.Add(789*time.Microsecond))
		noErr(t, s.AddAPIKey(ctxOf(t), k))
		gotKey, gotAcct, err := s.APIKeyByHash(ctxOf(t), k.Hash)
		noErr(t, err)
		wantKey(t, gotKey, k)
		wantAccount(t, gotAcct, a)
		if !gotKey.Active() {
			t.Fatal("new key is not active")
		}

		_, _, err = s.APIKeyByHash(ctxOf(t), domain.HashAPIKey("hsk_unknown"))
		wantErr(t, err, domain.ErrNotFound, "APIKeyByHash of an unknown hash")
	}},
	{"AddForUnknownAccount", func(t *testing.T, s Stores) {
		k := newKey("key-1", "nobody", t0)
		wantErr(t, s.AddAPIKey(ctxOf(t), k), domain.ErrNotFound, "AddAPIKey for a missing account")
		_, _, err := s.APIKeyByHash(ctxOf(t), k.Hash)
		wantErr(t, err, domain.ErrNotFound, "APIKeyByHash of a refused key")
	}},
	{"AddConflict", func(t *testing.T, s Stores) {
		a := newAccount(t, s, "acc", 1000)
		k := newKey("key-1", a.ID, t0)
		noErr(t, s.AddAPIKey(ctxOf(t), k))
		sameID := newKey("key-1", a.ID, t0)
		sameID.Hash = domain.HashAPIKey("hsk_other")
		wantErr(t, s.AddAPIKey(ctxOf(t), sameID), domain.ErrConflict, "AddAPIKey with a used ID")
		sameHash := newKey("key-2", a.ID, t0)
		sameHash.Hash = k.Hash
		wantErr(t, s.AddAPIKey(ctxOf(t), sameHash), domain.ErrConflict, "AddAPIKey with a used hash")
		keys := must(s.ListAPIKeys(ctxOf(t), a.ID))
		if len(keys) != 1 {
			t.Fatalf("account has %d keys after refused adds, want 1", len(keys))
		}
	}},
	{"Touch", func(t *testing.T, s Stores) {
		a := newAccount(t, s, "acc", 1000)
		k := newKey("key-1", a.ID, t0)
		noErr(t, s.AddAPIKey(ctxOf(t), k))
		for _, at := range []time.Time{t0.Add(time.Minute), t0.Add(time.Hour)} {
			noErr(t, s.TouchAPIKey(ctxOf(t), k.ID, at))
			got, _, err := s.APIKeyByHash(ctxOf(t), k.Hash)
			noErr(t, err)
			if got.LastUsedAt == nil || !sameTime(*got.LastUsedAt, at) {
				t.Fatalf("LastUsedAt %v after touching at %v", got.LastUsedAt, at)
			}
		}
	}},
	{"ListNewestFirst", func(t *testing.T, s Stores) {
		a := newAccount(t, s, "acc", 1000)
		b := newAccount(t, s, "other", 1000)
		k1, k2, k3 := newKey("key-1", a.ID, t0), newKey("key-2", a.ID, t0.Add(time.Minute)), newKey("key-3", a.ID, t0.Add(2*time.Minute))
		for _, k := range []domain.APIKey{k2, k3, k1, newKey("key-b", b.ID, t0.Add(time.Hour))} {
			noErr(t, s.AddAPIKey(ctxOf(t), k))
		}
		noErr(t, s.RevokeAPIKey(ctxOf(t), a.ID, k2.ID, t0.Add(3*time.Minute)))
		k2.RevokedAt = ptr(t0.Add(3 * time.Minute))

		got := must(s.ListAPIKeys(ctxOf(t), a.ID))
		want := []domain.APIKey{k3, k2, k1}
		if len(got) != len(want) {
			t.Fatalf("ListAPIKeys: %d keys %s, want %d", len(got), dump(got), len(want))
		}
		for i := range want {
			wantKey(t, got[i], want[i])
		}
		if got := must(s.ListAPIKeys(ctxOf(t), "nokeys")); len(got) != 0 {
			t.Fatalf("ListAPIKeys of an account without keys: %s", dump(got))
		}
	}},
	{"Revoke", func(t *testing.T, s Stores) {
		a := newAccount(t, s, "acc", 1000)
		b := newAccount(t, s, "other", 1000)
		k := newKey("key-1", a.ID, t0)
		noErr(t, s.AddAPIKey(ctxOf(t), k))

		err := s.RevokeAPIKey(ctxOf(t), b.ID, k.ID, t0.Add(time.Minute))
		wantErr(t, err, domain.ErrNotFound, "RevokeAPIKey of another account's key")
		wantErr(t, s.RevokeAPIKey(ctxOf(t), a.ID, "missing", t0), domain.ErrNotFound, "RevokeAPIKey of a missing key")
		got, _, err := s.APIKeyByHash(ctxOf(t), k.Hash)
		noErr(t, err)
		if !got.Active() {
			t.Fatal("another account revoked the key")
		}

		noErr(t, s.RevokeAPIKey(ctxOf(t), a.ID, k.ID, t0.Add(2*time.Minute)))
		got, acct, err := s.APIKeyByHash(ctxOf(t), k.Hash)
		noErr(t, err) // revoked keys are still found, so callers can say "revoked"
		if got.Active() || !sameTime(*got.RevokedAt, t0.Add(2*time.Minute)) || acct.ID != a.ID {
			t.Fatalf("after revoking: RevokedAt %v, account %s", got.RevokedAt, acct.ID)
		}
	}},
	{"NoAliasing", func(t *testing.T, s Stores) {
		a := newAccount(t, s, "acc", 1000)
		k := newKey("key-1", a.ID, t0)
		used := t0.Add(time.Minute)
		k.LastUsedAt = &used
		noErr(t, s.AddAPIKey(ctxOf(t), k))
		used = t0.Add(time.Hour)
		got, _, err := s.APIKeyByHash(ctxOf(t), k.Hash)
		noErr(t, err)
		if got.LastUsedAt == nil || !sameTime(*got.LastUsedAt, t0.Add(time.Minute)) {
			t.Fatalf("LastUsedAt %v, want %v: the store kept the caller's pointer", got.LastUsedAt, t0.Add(time.Minute))
		}
	}},
}

func ptr[T any](v T) *T { return &v }

var checklistTests = []subtest{
	{"CreateGetRoundTrip", func(t *testing.T, s Stores) {
		a := newAccount(t, s, "acc", 0)
		c := sampleChecklist("cl-1", a.ID)
		noErr(t, s.CreateChecklist(ctxOf(t), c))
		wantChecklist(t, must(s.GetChecklist(ctxOf(t), a.ID, c.ID)), c)
	}},
	{"CreateConflict", func(t *testing.T, s Stores) {
		a := newAccount(t, s, "acc", 0)
		b := newAccount(t, s, "other", 0)
		c := sampleChecklist("cl-1", a.ID)
		noErr(t, s.CreateChecklist(ctxOf(t), c))
		wantErr(t, s.CreateChecklist(ctxOf(t), sampleChecklist("cl-1", a.ID)), domain.ErrConflict, "second CreateChecklist with one ID")
		wantErr(t, s.CreateChecklist(ctxOf(t), sampleChecklist("cl-1", b.ID)), domain.ErrConflict, "CreateChecklist with another account's ID")
		wantChecklist(t, must(s.GetChecklist(ctxOf(t), a.ID, c.ID)), c)
	}},
	{"CreateForUnknownAccount", func(t *testing.T, s Stores) {
		wantErr(t, s.CreateChecklist(ctxOf(t), sampleChecklist("cl-1", "nobody")), domain.ErrNotFound, "CreateChecklist for a missing account")
	}},
	{"OtherAccountIsNotFound", func(t *testing.T, s Stores) {
		a := newAccount(t, s, "acc", 0)
		b := newAccount(t, s, "other", 0)
		noErr(t, s.CreateChecklist(ctxOf(t), sampleChecklist("cl-1", a.ID)))
		_, errOther := s.GetChecklist(ctxOf(t), b.ID, "cl-1")
		_, errMissing := s.GetChecklist(ctxOf(t), a.ID, "cl-missing")
		wantErr(t, errOther, domain.ErrNotFound, "GetChecklist of another account's checklist")
		wantErr(t, errMissing, domain.ErrNotFound, "GetChecklist of a missing checklist")
		if errors.Is(errOther, domain.ErrConflict) || errors.Is(errOther, domain.ErrForbidden) {
			t.Fatalf("another account's checklist must look missing, got %v", errOther)
		}
	}},
	{"NoAliasing", func(t *testing.T, s Stores) {
		a := newAccount(t, s, "acc", 0)
		c := sampleChecklist("cl-1", a.ID)
		want := sampleChecklist("cl-1", a.ID)
		noErr(t, s.CreateChecklist(ctxOf(t), c))
		c.Questions[0].Expect[0] = "scribbled"
		got := must(s.GetChecklist(ctxOf(t), a.ID, c.ID))
		wantChecklist(t, got, want)
		got.Questions[0].Expect[0] = "scribbled"
		got.Questions[1].Text = "scribbled"
		wantChecklist(t, must(s.GetChecklist(ctxOf(t), a.ID, c.ID)), want)
	}},
}

func sampleChecklist(id string, acct domain.AccountID) domain.Checklist {
	return domain.Checklist{
		ID: id, AccountID: acct, Name: "Վաճառքի զանգ", Version: 1,
		Questions: []domain.Question{
			{ID: "greet", Text: "Օպերատորը ողջունե՞ց հաճախորդին", Expect: []string{"բարև", "բարի օր"}, Weight: 0.5},
			{ID: "name", Text: fmt.Sprintf("Did the agent give their name? (%s)", id)},
		},
		CreatedAt: t0.Add(321 * time.Microsecond),
	}
}
