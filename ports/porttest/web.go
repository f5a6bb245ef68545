package porttest

import (
	"bytes"
	"encoding/json"
	"errors"
	"fmt"
	"reflect"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/hyscribe/hyscribe/domain"
	"github.com/hyscribe/hyscribe/ports"
)

// The web application's stores: users and sessions (UserStore,
// SessionStore) and the history pages (JobLister, AnalysisStore.ListAnalyses).

func sampleUser(id string, acct domain.AccountID, email string) domain.User {
	return domain.User{
		ID: id, AccountID: acct, Email: email, PasswordHash: "$argon2id$v=19$" + id, Role: domain.RoleOwner,
		CreatedAt: t0.Add(654321 * time.Nanosecond).In(time.FixedZone("AMT", 4*3600)),
	}
}

// invitedUser has an invitation pending and no password.
func invitedUser(id string, acct domain.AccountID, email string) domain.User {
	u := sampleUser(id, acct, email)
	u.PasswordHash, u.Role = "", domain.RoleMember
	u.InviteHash = domain.HashToken("invite-" + id)
	u.InviteExpiresAt = t0.Add(domain.InviteLifetime + 987654*time.Nanosecond)
	return u
}

func normUser(u domain.User) domain.User {
	u.CreatedAt, u.InviteExpiresAt = ms(u.CreatedAt), ms(u.InviteExpiresAt)
	return u
}

func wantUser(t *testing.T, got, want domain.User) {
	t.Helper()
	if g, w := normUser(got), normUser(want); g != w {
		t.Fatalf("user %s:\n got %+v\nwant %+v", want.ID, g, w)
	}
}

func signUp(t *testing.T, s Stores, acct string, user domain.User) domain.Account {
	t.Helper()
	a := domain.Account{ID: domain.AccountID(acct), Name: "Acme " + acct, Plan: domain.PlanFree, CreatedAt: t0}
	user.AccountID = a.ID
	noErr(t, s.SignUp(ctxOf(t), a, user))
	return a
}

var userTests = []subtest{
	{"SignUpAndFind", func(t *testing.T, s Stores) {
		owner := sampleUser("u-1", "acc", "anna@example.am")
		a := domain.Account{ID: "acc", Name: "Արմենիա Բանկ", Plan: domain.PlanFree, CreatedAt: t0}
		noErr(t, s.SignUp(ctxOf(t), a, owner))
		wantAccount(t, must(s.GetAccount(ctxOf(t), a.ID)), a)
		wantUser(t, must(s.FindUser(ctxOf(t), ports.UserKey{ID: "u-1"})), owner)
		got := must(s.FindUser(ctxOf(t), ports.UserKey{Email: "anna@example.am"}))
		wantUser(t, got, owner)
		if !got.InviteExpiresAt.IsZero() || got.InviteHash != "" {
			t.Fatalf("a user without invitation came back with one: %+v", got)
		}
		_, err := s.FindUser(ctxOf(t), ports.UserKey{Email: "nobody@example.am"})
		wantErr(t, err, domain.ErrNotFound, "FindUser of an unknown email")
		_, err = s.FindUser(ctxOf(t), ports.UserKey{ID: "u-none"})
		wantErr(t, err, domain.ErrNotFound, "FindUser of an unknown ID")
	}},
	{"SignUpTakenEmailSavesNothing", func(t *testing.T, s Stores) {
		signUp(t, s, "acc-1", sampleUser("u-1", "", "anna@example.am"))
		second := domain.Account{ID: "acc-2", Name: "Second", Plan: domain.PlanFree, CreatedAt: t0}
		owner := sampleUser("u-2", second.ID, "anna@example.am")
		wantErr(t, s.SignUp(ctxOf(t), second, owner), domain.ErrConflict, "SignUp with a taken email")
		_, err := s.GetAccount(ctxOf(t), second.ID)
		wantErr(t, err, domain.ErrNotFound, "the account of a refused SignUp")
		_, err = s.FindUser(ctxOf(t), ports.UserKey{ID: "u-2"})
		wantErr(t, err, domain.ErrNotFound, "the user of a refused SignUp")
	}},
	{"SignUpTakenAccountSavesNothing", func(t *testing.T, s Stores) {
		a := signUp(t, s, "acc", sampleUser("u-1", "", "anna@example.am"))
		again := domain.Account{ID: a.ID, Name: "Other", Plan: domain.PlanBusiness, CreatedAt: t0}
		wantErr(t, s.SignUp(ctxOf(t), again, sampleUser("u-2", a.ID, "bob@example.am")), domain.ErrConflict, "SignUp with a taken account ID")
		_, err := s.FindUser(ctxOf(t), ports.UserKey{Email: "bob@example.am"})
		wantErr(t, err, domain.ErrNotFound, "the user of a refused SignUp")
		wantAccount(t, must(s.GetAccount(ctxOf(t), a.ID)), a)
	}},
	{"UserLanguageRoundTrip", func(t *testing.T, s Stores) {
		a := signUp(t, s, "acc", sampleUser("u-1", "", "anna@example.am"))
		member := invitedUser("u-2", a.ID, "bob@example.am")
		member.Lang = "en"
		noErr(t, s.CreateUser(ctxOf(t), member))
		wantUser(t, must(s.FindUser(ctxOf(t), ports.UserKey{ID: "u-2"})), member)
		noErr(t, s.UpdateUser(ctxOf(t), "u-1", func(u *domain.User) error { u.Lang = "hy"; return nil }))
		if got := must(s.FindUser(ctxOf(t), ports.UserKey{ID: "u-1"})); got.Lang != "hy" {
			t.Fatalf("Lang after UpdateUser = %q, want hy", got.Lang)
		}
	}},
	{"CreateUser", func(t *testing.T, s Stores) {
		a := signUp(t, s, "acc", sampleUser("u-1", "", "anna@example.am"))
		member := sampleUser("u-2", a.ID, "bob@example.am")
		member.Role = domain.RoleMember
		noErr(t, s.CreateUser(ctxOf(t), member))
		wantUser(t, must(s.FindUser(ctxOf(t), ports.UserKey{Email: member.Email})), member)

		wantErr(t, s.CreateUser(ctxOf(t), sampleUser("u-3", a.ID, "anna@example.am")), domain.ErrConflict, "CreateUser with a taken email")
		wantErr(t, s.CreateUser(ctxOf(t), sampleUser("u-2", a.ID, "carl@example.am")), domain.ErrConflict, "CreateUser with a taken ID")
		// Emails are unique across accounts: one address signs in to one account.
		b := signUp(t, s, "other", sampleUser("u-4", "", "dora@example.am"))
		wantErr(t, s.CreateUser(ctxOf(t), sampleUser("u-5", b.ID, "bob@example.am")), domain.ErrConflict, "CreateUser with an email taken in another account")
		wantErr(t, s.CreateUser(ctxOf(t), sampleUser("u-6", "nobody", "eva@example.am")), domain.ErrNotFound, "CreateUser for a missing account")
		_, err := s.FindUser(ctxOf(t), ports.UserKey{ID: "u-6"})
		wantErr(t, err, domain.ErrNotFound, "the user of a refused CreateUser")
	}},
	{"InvitationsReserveNoAddress", func(t *testing.T, s Stores) {
		// An invitation does not hold its address: another account may
		// invite it too, and its owner may still sign up (migration 11).
		a := signUp(t, s, "acc-a", sampleUser("u-1", "", "anna@example.am"))
		b := signUp(t, s, "acc-b", sampleUser("u-2", "", "bob@example.am"))
		noErr(t, s.CreateUser(ctxOf(t), invitedUser("u-3", a.ID, "eva@example.am")))
		noErr(t, s.CreateUser(ctxOf(t), invitedUser("u-4", b.ID, "eva@example.am")))
		wantErr(t, s.CreateUser(ctxOf(t), invitedUser("u-5", a.ID, "eva@example.am")), domain.ErrConflict, "a second invitation of one address in one account")
		// An address with a person in another account may be invited.
		noErr(t, s.CreateUser(ctxOf(t), invitedUser("u-6", a.ID, "bob@example.am")))
		wantUser(t, must(s.FindUser(ctxOf(t), ports.UserKey{Email: "bob@example.am"})), sampleUser("u-2", b.ID, "bob@example.am"))
		// The invited address signs up; the invitations then cannot be accepted.
		eva := sampleUser("u-7", "", "eva@example.am")
		c := signUp(t, s, "acc-c", eva)
		eva.AccountID = c.ID
		wantUser(t, must(s.FindUser(ctxOf(t), ports.UserKey{Email: "eva@example.am"})), eva)
		err := s.UpdateUser(ctxOf(t), "u-3", func(u *domain.User) error { u.PasswordHash, u.InviteHash = "$argon2id$x", ""; return nil })
		wantErr(t, err, domain.ErrConflict, "accepting an invitation of an address that signed up")
		wantUser(t, must(s.FindUser(ctxOf(t), ports.UserKey{ID: "u-3"})), invitedUser("u-3", a.ID, "eva@example.am"))
	}},
	{"FindByInvitation", func(t *testing.T, s Stores) {
		a := signUp(t, s, "acc", sampleUser("u-1", "", "anna@example.am"))
		inv := invitedUser("u-2", a.ID, "bob@example.am")
		noErr(t, s.CreateUser(ctxOf(t), inv))
		// Users without an invitation all have an empty hash: that must
		// neither conflict nor ever be found.
		noErr(t, s.CreateUser(ctxOf(t), sampleUser("u-3", a.ID, "carl@example.am")))
		wantUser(t, must(s.FindUser(ctxOf(t), ports.UserKey{InviteHash: inv.InviteHash})), inv)
		_, err := s.FindUser(ctxOf(t), ports.UserKey{InviteHash: domain.HashToken("invite-other")})
		wantErr(t, err, domain.ErrNotFound, "FindUser of an unknown invitation")
		dup := invitedUser("u-4", a.ID, "dora@example.am")
		dup.InviteHash = inv.InviteHash
		wantErr(t, s.CreateUser(ctxOf(t), dup), domain.ErrConflict, "CreateUser with a taken invitation hash")
	}},
	{"FindNeedsExactlyOneKey", func(t *testing.T, s Stores) {
		a := signUp(t, s, "acc", sampleUser("u-1", "", "anna@example.am"))
		noErr(t, s.CreateUser(ctxOf(t), invitedUser("u-2", a.ID, "bob@example.am")))
		for _, by := range []ports.UserKey{
			{},
			{ID: "u-1", Email: "anna@example.am"},
			{ID: "u-2", InviteHash: domain.HashToken("invite-u-2")},
			{ID: "u-1", Email: "anna@example.am", InviteHash: domain.HashToken("invite-u-2")},
		} {
			u, err := s.FindUser(ctxOf(t), by)
			if err == nil || u.ID != "" {
				t.Fatalf("FindUser(%+v) = %+v, %v; want an error and no user", by, u, err)
			}
			// A key naming no user or several is the caller's bug, not an
			// answer: it must not pass for "no such user".
			if errors.Is(err, domain.ErrNotFound) {
				t.Fatalf("FindUser(%+v): %v; want a plain error, not ErrNotFound", by, err)
			}
		}
	}},
	{"UpdateAcceptsInvitation", func(t *testing.T, s Stores) {
		a := signUp(t, s, "acc", sampleUser("u-1", "", "anna@example.am"))
		inv := invitedUser("u-2", a.ID, "bob@example.am")
		noErr(t, s.CreateUser(ctxOf(t), inv))
		noErr(t, s.UpdateUser(ctxOf(t), inv.ID, func(u *domain.User) error {
			if u.InviteHash != inv.InviteHash {
				return fmt.Errorf("fn got %+v", u)
			}
			u.PasswordHash, u.InviteHash, u.InviteExpiresAt = "$argon2id$new", "", time.Time{}
			u.ID, u.AccountID = "changed", "changed" // rows keep their keys
			return nil
		}))
		want := inv
		want.PasswordHash, want.InviteHash, want.InviteExpiresAt = "$argon2id$new", "", time.Time{}
		wantUser(t, must(s.FindUser(ctxOf(t), ports.UserKey{ID: inv.ID})), want)
		_, err := s.FindUser(ctxOf(t), ports.UserKey{InviteHash: inv.InviteHash})
		wantErr(t, err, domain.ErrNotFound, "FindUser by an accepted invitation")
	}},
	{"UpdateErrors", func(t *testing.T, s Stores) {
		a := signUp(t, s, "acc", sampleUser("u-1", "", "anna@example.am"))
		bob := sampleUser("u-2", a.ID, "bob@example.am")
		noErr(t, s.CreateUser(ctxOf(t), bob))
		called := false
		err := s.UpdateUser(ctxOf(t), "u-none", func(*domain.User) error { called = true; return nil })
		wantErr(t, err, domain.ErrNotFound, "UpdateUser of a missing user")
		if called {
			t.Fatal("fn was called for a missing user")
		}
		err = s.UpdateUser(ctxOf(t), bob.ID, func(u *domain.User) error {
			u.PasswordHash = "half-done"
			return errRefused
		})
		if err != errRefused {
			t.Fatalf("UpdateUser returned %v, want fn's error unchanged", err)
		}
		err = s.UpdateUser(ctxOf(t), bob.ID, func(u *domain.User) error {
			u.Email = "anna@example.am"
			return nil
		})
		wantErr(t, err, domain.ErrConflict, "UpdateUser to a taken email")
		wantUser(t, must(s.FindUser(ctxOf(t), ports.UserKey{ID: bob.ID})), bob)
	}},
}

func sampleSession(id, user string, acct domain.AccountID, expires time.Time) domain.Session {
	return domain.Session{
		ID: domain.HashToken(id), UserID: user, AccountID: acct, CSRF: "csrf-" + id,
		CreatedAt: t0.Add(111 * time.Microsecond), ExpiresAt: expires,
	}
}

func wantSession(t *testing.T, got, want domain.Session) {
	t.Helper()
	got.CreatedAt, got.ExpiresAt = ms(got.CreatedAt), ms(got.ExpiresAt)
	want.CreatedAt, want.ExpiresAt = ms(want.CreatedAt), ms(want.ExpiresAt)
	if got != want {
		t.Fatalf("session %s:\n got %+v\nwant %+v", want.ID, got, want)
	}
}

var sessionTests = []subtest{
	{"CreateGetDelete", func(t *testing.T, s Stores) {
		a := signUp(t, s, "acc", sampleUser("u-1", "", "anna@example.am"))
		sess := sampleSession("tok-1", "u-1", a.ID, t0.Add(domain.SessionLifetime+222*time.Microsecond))
		noErr(t, s.CreateSession(ctxOf(t), sess))
		wantSession(t, must(s.GetSession(ctxOf(t), sess.ID)), sess)
		dup := sampleSession("tok-1", "u-other", a.ID, t0)
		wantErr(t, s.CreateSession(ctxOf(t), dup), domain.ErrConflict, "CreateSession with a taken ID")
		wantSession(t, must(s.GetSession(ctxOf(t), sess.ID)), sess)

		noErr(t, s.DeleteSession(ctxOf(t), sess.ID))
		_, err := s.GetSession(ctxOf(t), sess.ID)
		wantErr(t, err, domain.ErrNotFound, "GetSession after DeleteSession")
		noErr(t, s.DeleteSession(ctxOf(t), sess.ID))
		_, err = s.GetSession(ctxOf(t), domain.HashToken("never"))
		wantErr(t, err, domain.ErrNotFound, "GetSession of an unknown ID")
	}},
	{"Extend", func(t *testing.T, s Stores) {
		a := signUp(t, s, "acc", sampleUser("u-1", "", "anna@example.am"))
		sess := sampleSession("tok-1", "u-1", a.ID, t0.Add(domain.SessionIdle))
		other := sampleSession("tok-2", "u-1", a.ID, t0.Add(domain.SessionIdle))
		noErr(t, s.CreateSession(ctxOf(t), sess))
		noErr(t, s.CreateSession(ctxOf(t), other))
		sess.ExpiresAt = t0.Add(domain.SessionIdle + 3*time.Hour)
		noErr(t, s.ExtendSession(ctxOf(t), sess.ID, sess.ExpiresAt))
		wantSession(t, must(s.GetSession(ctxOf(t), sess.ID)), sess)
		wantSession(t, must(s.GetSession(ctxOf(t), other.ID)), other)
		noErr(t, s.ExtendSession(ctxOf(t), domain.HashToken("never"), t0))
	}},
	{"DeleteExpired", func(t *testing.T, s Stores) {
		a := signUp(t, s, "acc", sampleUser("u-1", "", "anna@example.am"))
		past := sampleSession("past", "u-1", a.ID, t0.Add(-time.Hour))
		atNow := sampleSession("at-now", "u-1", a.ID, t0)
		live := sampleSession("live", "u-1", a.ID, t0.Add(time.Millisecond))
		for _, sess := range []domain.Session{past, atNow, live} {
			noErr(t, s.CreateSession(ctxOf(t), sess))
		}
		// GetSession returns expired sessions too: the caller decides.
		wantSession(t, must(s.GetSession(ctxOf(t), past.ID)), past)
		if n := must(s.DeleteExpiredSessions(ctxOf(t), t0)); n != 2 {
			t.Fatalf("DeleteExpiredSessions removed %d, want 2 (expired before and at now)", n)
		}
		for _, gone := range []domain.Session{past, atNow} {
			_, err := s.GetSession(ctxOf(t), gone.ID)
			wantErr(t, err, domain.ErrNotFound, "GetSession of an expired session after DeleteExpiredSessions")
		}
		wantSession(t, must(s.GetSession(ctxOf(t), live.ID)), live)
		if n := must(s.DeleteExpiredSessions(ctxOf(t), t0)); n != 0 {
			t.Fatalf("DeleteExpiredSessions again removed %d, want 0", n)
		}
	}},
}

// webAccount saves an account with balance for many recordings.
func webAccount(t *testing.T, s Stores, id string) domain.Account {
	t.Helper()
	return newAccount(t, s, id, 1<<40)
}

// doneJob creates a job at created and drives it through the store
// (UpdateJob, as the pipeline does) to transcribed with that title and
// transcription, so the search must see what UpdateJob wrote.
func doneJob(t *testing.T, s Stores, id string, acct domain.AccountID, created time.Time, title, transcription string) domain.Job {
	t.Helper()
	j, evs := uploadingJob(id, acct, created)
	createJob(t, s, j, evs)
	at := created.Add(time.Second)
	noErr(t, s.UpdateJob(ctxOf(t), j.ID, func(j *domain.Job, a *domain.Account) ([]domain.Event, error) {
		var all []domain.Event
		for _, step := range []func() ([]domain.Event, error){
			func() ([]domain.Event, error) { return j.ReceiveUpload(at, "blobs/"+id, 4096) },
			func() ([]domain.Event, error) { return j.Measure(at, audioInfo(1.5), a, domain.MaxDuration) },
			func() ([]domain.Event, error) { return j.StartConverting(at) },
			func() ([]domain.Event, error) { return j.Recognize(at, transcription, nil) },
			func() ([]domain.Event, error) { return j.Complete(at, title, "", domain.LanguageArmenian) },
		} {
			evs, err := step()
			if err != nil {
				return nil, err
			}
			all = append(all, evs...)
		}
		return all, nil
	}))
	return must(s.GetJob(ctxOf(t), j.ID))
}

// listIDs runs ListJobs and returns the page's IDs and the total.
func listIDs(t *testing.T, s Stores, q ports.JobQuery) ([]string, int) {
	t.Helper()
	jobs, total, err := s.ListJobs(ctxOf(t), q)
	noErr(t, err)
	out := make([]string, len(jobs))
	for i, j := range jobs {
		if j.AccountID != q.Account {
			t.Fatalf("ListJobs for %s returned %s of account %s", q.Account, j.ID, j.AccountID)
		}
		out[i] = string(j.ID)
	}
	return out, total
}

// wantListed compares a listed job with the listing of a job whose
// transcription is tr: the fields exactly, the excerpt by what it shows.
func wantListed(t *testing.T, got, want ports.ListedJob, tr, search string) {
	t.Helper()
	if !bytes.Equal(got.Metadata, want.Metadata) {
		t.Fatalf("listed job %s metadata: got %q, want %q (byte-exact)", want.ID, got.Metadata, want.Metadata)
	}
	snippet := func(ex string) string {
		sn, ok := domain.FindSnippet(ex, search, domain.SnippetRadius)
		return fmt.Sprint(sn, ok)
	}
	if !strings.HasPrefix(tr, got.Excerpt) || snippet(got.Excerpt) != snippet(want.Excerpt) || search == "" && got.Excerpt != "" {
		t.Fatalf("listed job %s: excerpt %q for the search %q, want a prefix of the transcript showing %s", want.ID, got.Excerpt, search, snippet(want.Excerpt))
	}
	got.CreatedAt, want.CreatedAt = ms(got.CreatedAt), ms(want.CreatedAt)
	got.Metadata, want.Metadata, got.Excerpt, want.Excerpt = nil, nil, "", ""
	if !reflect.DeepEqual(got, want) {
		t.Fatalf("listed job %s:\n got %s\nwant %s", want.ID, dump(got), dump(want))
	}
}

func wantList(t *testing.T, s Stores, q ports.JobQuery, wantTotal int, want ...string) {
	t.Helper()
	got, total := listIDs(t, s, q)
	if want == nil {
		want = []string{}
	}
	if !slices.Equal(got, want) || total != wantTotal {
		t.Fatalf("ListJobs(%+v) = %v of %d, want %v of %d", q, got, total, want, wantTotal)
	}
}

var jobListTests = []subtest{
	{"NewestFirstOwnAccountOnly", func(t *testing.T, s Stores) {
		a, b := webAccount(t, s, "acc"), webAccount(t, s, "other")
		for i, id := range []string{"j-1", "j-2", "j-3"} {
			j, evs := uploadingJob(id, a.ID, t0.Add(time.Duration(i)*time.Minute))
			createJob(t, s, j, evs)
		}
		// The same instant twice: ties go by ID, highest first.
		for _, id := range []string{"j-tie-a", "j-tie-b"} {
			j, evs := uploadingJob(id, a.ID, t0.Add(time.Hour))
			createJob(t, s, j, evs)
		}
		o, oevs := uploadingJob("o-1", b.ID, t0.Add(30*time.Second))
		createJob(t, s, o, oevs)
		wantList(t, s, ports.JobQuery{Account: a.ID}, 5, "j-tie-b", "j-tie-a", "j-3", "j-2", "j-1")
		wantList(t, s, ports.JobQuery{Account: b.ID}, 1, "o-1")
		wantList(t, s, ports.JobQuery{Account: "nobody"}, 0)
		if _, _, err := s.ListJobs(ctxOf(t), ports.JobQuery{}); err == nil {
			t.Fatal("ListJobs without an account succeeded; it must refuse")
		}
	}},
	{"KeysetPagesUnderConcurrentInserts", func(t *testing.T, s Stores) {
		// The API's pages (ListCursor) through ListJobs
		// (keysetPagesUnderInserts).
		a := keysetPagesUnderInserts(t, s, func(q ports.JobQuery) []ports.ListedJob {
			jobs, _, err := s.ListJobs(ctxOf(t), q)
			noErr(t, err)
			return jobs
		})
		// The cursor keeps the other filters; the total is of every job
		// the filters keep, whatever the page (the five uploading ones
		// since t0+1m and the four created meanwhile).
		wantList(t, s, ports.JobQuery{Account: a.ID, Status: domain.StatusUploading, After: domain.CursorAfter(t0.Add(10*time.Minute), "k-5b").Key(),
			From: t0.Add(time.Minute), Limit: 10}, 9, "k-5a", "k-4", "k-3", "k-2")
		wantList(t, s, ports.JobQuery{Account: a.ID, Status: domain.StatusFailed, After: domain.CursorAfter(t0.Add(time.Hour), "z").Key()}, 0)
	}},
	{"ListedJobs", func(t *testing.T, s Stores) {
		acct := webAccount(t, s, "acc")
		full, evs := transcribedJob(t, "doc-full", &acct)
		createJob(t, s, full, evs)
		failed, evs := uploadingJob("doc-failed", acct.ID, t0)
		failed.Status, failed.Error = domain.StatusFailed, "the upload is not an MP3"
		failed.Filename = "զանգ-17.mp3" // the history's title until there is one
		createJob(t, s, failed, evs)
		for _, search := range []string{"", "պատվեր"} {
			jobs, total, err := s.ListJobs(ctxOf(t), ports.JobQuery{Account: acct.ID, Search: search})
			noErr(t, err)
			want := []ports.ListedJob{Listing(full, search)}
			if search == "" {
				want = []ports.ListedJob{Listing(failed, ""), Listing(full, "")}
			}
			if len(jobs) != len(want) || total != len(want) {
				t.Fatalf("ListJobs(%q): %d jobs of %d, want %d", search, len(jobs), total, len(want))
			}
			for i := range want {
				wantListed(t, jobs[i], want[i], full.Transcription, search)
			}
		}
	}},
	{"ListedJobsOmitLargeMetadata", func(t *testing.T, s Stores) {
		// A page never carries metadata over domain.MaxListedMetadataBytes:
		// the job is listed with MetadataOmitted instead; at the bound it is
		// listed whole.
		acct := webAccount(t, s, "acc")
		metaOf := func(n int) json.RawMessage { // {"v":"xxx…"} of n bytes
			return json.RawMessage(`{"v":"` + strings.Repeat("x", n-8) + `"}`)
		}
		for id, meta := range map[string]json.RawMessage{"at-bound": metaOf(domain.MaxListedMetadataBytes), "over": metaOf(domain.MaxListedMetadataBytes + 1)} {
			j, evs := uploadingJob(id, acct.ID, t0)
			j.Metadata = meta
			createJob(t, s, j, evs)
		}
		jobs, _, err := s.ListJobs(ctxOf(t), ports.JobQuery{Account: acct.ID})
		noErr(t, err)
		if len(jobs) != 2 {
			t.Fatalf("%d jobs listed, want 2", len(jobs))
		}
		for _, j := range jobs {
			switch j.ID {
			case "at-bound":
				if j.MetadataOmitted || len(j.Metadata) != domain.MaxListedMetadataBytes {
					t.Errorf("metadata at the bound: omitted %v, %d bytes; want it whole", j.MetadataOmitted, len(j.Metadata))
				}
			case "over":
				if !j.MetadataOmitted || j.Metadata != nil {
					t.Errorf("metadata over the bound: omitted %v, %d bytes; want omitted", j.MetadataOmitted, len(j.Metadata))
				}
			}
		}
	}},
	{"SearchPages", func(t *testing.T, s Stores) {
		// A search's total comes with its page, also past the last page, and
		// for searches short enough to be read without an index.
		acct := webAccount(t, s, "acc")
		for i := range 3 {
			doneJob(t, s, fmt.Sprintf("hit-%d", i), acct.ID, t0.Add(time.Duration(i)*time.Minute), "Զանգ", "Երևանից եմ զանգում")
		}
		doneJob(t, s, "miss", acct.ID, t0, "Զանգ", "Գյումրիից եմ զանգում")
		for _, term := range []string{"ԵՐԵՒԱՆ", "եւ"} {
			q := ports.JobQuery{Account: acct.ID, Search: term, Limit: 2}
			wantList(t, s, q, 3, "hit-2", "hit-1")
			q.Offset = 2
			wantList(t, s, q, 3, "hit-0")
			q.Offset = 4
			wantList(t, s, q, 3)
		}
		wantList(t, s, ports.JobQuery{Account: acct.ID, Search: "Վանաձոր"}, 0)
		wantList(t, s, ports.JobQuery{Account: acct.ID, Search: "Վանաձոր", Offset: 25}, 0)
	}},
	{"SearchExcerpts", func(t *testing.T, s Stores) {
		// What the page shows of a transcript comes from the excerpt: the
		// same snippet as from the whole, for a match early or late, after
		// many և (one character that folds to two) in the transcript or the
		// title, in capitals, or in the title or metadata only.
		acct := webAccount(t, s, "acc")
		long := strings.Repeat("Բարև ձեզ, զանգում եմ պատվերի մասին, և խնդրում եմ ստուգել։ ", 50) // 3 KB
		jobs := map[string]struct{ title, transcription string }{
			"early":     {"Զանգ", "Զանգում եմ Երևանից, " + long},
			"late":      {"Զանգ և զանգ և ևս մեկը", long + "Առաքումը ԵՐԵՒԱՆՈՒՄ է, շնորհակալություն"},
			"end":       {"Զանգ", long + "երևան"},
			"title":     {"Երևանից զանգ", long},
			"lines":     {"Զանգ", "առաջին տող\nերկրորդ տող Երևանում\nերրորդ տող"},
			"nowhere-b": {"Զանգ", "ոչ մի քաղաք"},
			// No և before the match in the transcript: the excerpt must be
			// placed by the title's folded length alone.
			"tight": {"Զանգ և ևս մեկ և", "Զանգում եմ Գյումրիից, " + strings.Repeat("Ողջույն, զանգում եմ պատվերի մասին։ ", 50)},
		}
		for id, j := range jobs {
			doneJob(t, s, id, acct.ID, t0, j.title, j.transcription)
		}
		meta, evs := domain.NewJob("metadata", acct.ID, domain.CreateRequest{Type: domain.TypePhoneCall,
			Metadata: json.RawMessage(`{"city":"Երևան"}`)}, t0, domain.UploadWindow)
		createJob(t, s, meta, evs)
		for _, q := range []string{"երևան", "ԵՐԵՎԱՆ", "Երեւանում", "տող", "ԳՅՈՒՄՐԻԻՑ"} {
			listed, _, err := s.ListJobs(ctxOf(t), ports.JobQuery{Account: acct.ID, Search: q})
			noErr(t, err)
			if len(listed) == 0 {
				t.Fatalf("search %q found nothing", q)
			}
			for _, l := range listed {
				tr := jobs[string(l.ID)].transcription
				want, wok := domain.FindSnippet(tr, q, domain.SnippetRadius)
				got, gok := domain.FindSnippet(l.Excerpt, q, domain.SnippetRadius)
				if !strings.HasPrefix(tr, l.Excerpt) || got != want || gok != wok {
					t.Fatalf("search %q, job %s: excerpt %q shows %+v (%v), the transcript %+v (%v)", q, l.ID, l.Excerpt, got, gok, want, wok)
				}
				if (l.ID == "early" || l.ID == "tight") && len(l.Excerpt) > 1000 {
					t.Errorf("search %q: the excerpt of a transcript with an early match is %d of its %d bytes; it should stop soon after the match", q, len(l.Excerpt), len(tr))
				}
			}
		}
	}},
	{"Filters", func(t *testing.T, s Stores) {
		acct := webAccount(t, s, "acc")
		up, evs := uploadingJob("up", acct.ID, t0)
		createJob(t, s, up, evs)
		proc, evs := processingJob(t, "proc", acct.ID, t0.Add(time.Minute), t0.Add(time.Minute))
		createJob(t, s, proc, evs)
		call, evs := transcribedJob(t, "call", &acct) // phone_call, checklist cl-sales, created t0-1h
		createJob(t, s, call, evs)
		withCl, evs := domain.NewJob("cl", acct.ID, domain.CreateRequest{Type: domain.TypeSingleVoice, ChecklistID: "cl-other", ChecklistVersion: 1},
			t0.Add(2*time.Minute), domain.UploadWindow)
		createJob(t, s, withCl, evs)
		other := webAccount(t, s, "other")
		ocall, evs := transcribedJob(t, "other-call", &other)
		createJob(t, s, ocall, evs)

		q := func(f func(*ports.JobQuery)) ports.JobQuery {
			q := ports.JobQuery{Account: acct.ID}
			f(&q)
			return q
		}
		wantList(t, s, q(func(q *ports.JobQuery) { q.Status = domain.StatusUploading }), 2, "cl", "up")
		wantList(t, s, q(func(q *ports.JobQuery) { q.Status = domain.StatusProcessing }), 1, "proc")
		wantList(t, s, q(func(q *ports.JobQuery) { q.Status = domain.StatusTranscribed }), 1, "call")
		wantList(t, s, q(func(q *ports.JobQuery) { q.Status = domain.StatusFailed }), 0)
		wantList(t, s, q(func(q *ports.JobQuery) { q.Type = domain.TypePhoneCall }), 1, "call")
		wantList(t, s, q(func(q *ports.JobQuery) { q.Type = domain.TypeSingleVoice }), 3, "cl", "proc", "up")
		wantList(t, s, q(func(q *ports.JobQuery) { q.ChecklistID = "cl-sales" }), 1, "call")
		wantList(t, s, q(func(q *ports.JobQuery) { q.ChecklistID = "cl-other" }), 1, "cl")
		// [From, To): From inclusive, To exclusive.
		wantList(t, s, q(func(q *ports.JobQuery) { q.From = t0 }), 3, "cl", "proc", "up")
		wantList(t, s, q(func(q *ports.JobQuery) { q.From = t0.Add(time.Millisecond) }), 2, "cl", "proc")
		wantList(t, s, q(func(q *ports.JobQuery) { q.To = t0.Add(time.Minute) }), 2, "up", "call")
		wantList(t, s, q(func(q *ports.JobQuery) { q.From, q.To = t0, t0.Add(2*time.Minute) }), 2, "proc", "up")
		wantList(t, s, q(func(q *ports.JobQuery) {
			q.Type, q.Status, q.From = domain.TypeSingleVoice, domain.StatusUploading, t0.Add(time.Second)
		}), 1, "cl")
	}},
	{"Pages", func(t *testing.T, s Stores) {
		acct := webAccount(t, s, "acc")
		other := webAccount(t, s, "other")
		for i := range 7 {
			j, evs := uploadingJob(fmt.Sprintf("j-%d", i), acct.ID, t0.Add(time.Duration(i)*time.Second))
			createJob(t, s, j, evs)
			o, oevs := uploadingJob(fmt.Sprintf("o-%d", i), other.ID, t0.Add(time.Duration(i)*time.Second))
			createJob(t, s, o, oevs)
		}
		q := ports.JobQuery{Account: acct.ID, Limit: 3}
		wantList(t, s, q, 7, "j-6", "j-5", "j-4")
		q.Offset = 3
		wantList(t, s, q, 7, "j-3", "j-2", "j-1")
		q.Offset = 6
		wantList(t, s, q, 7, "j-0")
		q.Offset = 10
		wantList(t, s, q, 7)
		q = ports.JobQuery{Account: acct.ID, Status: domain.StatusUploading, From: t0.Add(2 * time.Second), Limit: 2, Offset: 1}
		wantList(t, s, q, 5, "j-5", "j-4")
	}},
	{"DefaultPageSize", func(t *testing.T, s Stores) {
		acct := webAccount(t, s, "acc")
		for i := range 51 {
			j, evs := uploadingJob(fmt.Sprintf("j-%02d", i), acct.ID, t0.Add(time.Duration(i)*time.Second))
			createJob(t, s, j, evs)
		}
		got, total := listIDs(t, s, ports.JobQuery{Account: acct.ID})
		if len(got) != 50 || total != 51 || got[0] != "j-50" || got[49] != "j-01" {
			t.Fatalf("ListJobs with Limit 0: %v of %d, want the 50 newest (j-50 … j-01) of 51", got, total)
		}
	}},
	{"SearchAnyCase", func(t *testing.T, s Stores) {
		acct := webAccount(t, s, "acc")
		other := webAccount(t, s, "other")
		doneJob(t, s, "greet", acct.ID, t0, "Բարեւ Ձեզ", "Ողջույն, ինչպե՞ս եք։")
		doneJob(t, s, "order", acct.ID, t0.Add(time.Minute), "Պատվերի զանգ", "Ուզում եմ ՊԱՏՎԵՐ տալ, Hello World")
		doneJob(t, s, "other-greet", other.ID, t0, "Բարեւ Ձեզ", "բարեւ")
		up, evs := uploadingJob("up", acct.ID, t0.Add(2*time.Minute))
		createJob(t, s, up, evs)

		search := func(term string) ports.JobQuery { return ports.JobQuery{Account: acct.ID, Search: term} }
		// The title, in lower, upper and its own case.
		wantList(t, s, search("բարեւ"), 1, "greet")
		wantList(t, s, search("ԲԱՐԵՒ"), 1, "greet")
		wantList(t, s, search("Բարեւ Ձեզ"), 1, "greet")
		wantList(t, s, search("ձեզ"), 1, "greet")
		// The transcription, written by UpdateJob after the job was created.
		wantList(t, s, search("պատվեր"), 1, "order")
		wantList(t, s, search("Պատվեր տալ"), 1, "order")
		wantList(t, s, search("ողջույն"), 1, "greet")
		wantList(t, s, search("hello WORLD"), 1, "order")
		wantList(t, s, search("ոչինչ"), 0)
		// With other filters and pages.
		wantList(t, s, ports.JobQuery{Account: acct.ID, Search: "զ", Limit: 1}, 2, "order")
		wantList(t, s, ports.JobQuery{Account: acct.ID, Search: "զ", Status: domain.StatusUploading}, 0)
	}},
	{"SearchIsLiteral", func(t *testing.T, s Stores) {
		acct := webAccount(t, s, "acc")
		doneJob(t, s, "pct", acct.ID, t0, "100% գոհ", "a_b")
		doneJob(t, s, "plain", acct.ID, t0.Add(time.Minute), "1000 գոհ", "axb")
		doneJob(t, s, "slash", acct.ID, t0.Add(2*time.Minute), `C:\temp`, "nothing")
		search := func(term string) ports.JobQuery { return ports.JobQuery{Account: acct.ID, Search: term} }
		wantList(t, s, search("%"), 1, "pct")
		wantList(t, s, search("0%"), 1, "pct")
		wantList(t, s, search("_"), 1, "pct")
		wantList(t, s, search("a_b"), 1, "pct")
		wantList(t, s, search(`\`), 1, "slash")
		wantList(t, s, search(`c:\t`), 1, "slash")
		wantList(t, s, search(`\%`), 0)
		wantList(t, s, search("'"), 0)
	}},
	{"NeedsSpeakerNames", func(t *testing.T, s Stores) {
		acct := webAccount(t, s, "acc")
		other := webAccount(t, s, "other")
		analysed := func(id string, acct domain.AccountID, at time.Time, reason string) {
			doneJob(t, s, id, acct, at, "զանգ", "բարև")
			an := sampleAnalysis("an-"+id, domain.DocID(id), acct)
			an.Results["name"] = domain.QuestionResult{Question: "Name?", Answer: domain.AnswerUnclear, Evidence: []domain.Evidence{}, Reason: reason}
			noErr(t, s.SaveAnalysis(ctxOf(t), an, nil))
		}
		analysed("unnamed", acct.ID, t0, domain.RoleUnknownReason(domain.SpeakerAgent))
		analysed("unsure", acct.ID, t0.Add(time.Minute), domain.ReasonApproximate)
		analysed("no-customer", acct.ID, t0.Add(2*time.Minute), domain.RoleUnknownReason(domain.SpeakerCustomer))
		analysed("theirs", other.ID, t0.Add(3*time.Minute), domain.RoleUnknownReason(domain.SpeakerAgent))
		doneJob(t, s, "none", acct.ID, t0.Add(4*time.Minute), "զանգ", "բարև")
		q := ports.JobQuery{Account: acct.ID, NeedsSpeakerNames: true}
		wantList(t, s, q, 2, "no-customer", "unnamed")
		q.Search = "զանգ"
		wantList(t, s, q, 2, "no-customer", "unnamed")
		// Named speakers: the analysis made again has no such answer.
		r, ok := s.(ports.AnalysisReplacer)
		if !ok {
			t.Fatal("the store cannot replace analyses (ports.AnalysisReplacer)")
		}
		noErr(t, r.ReplaceAnalysis(ctxOf(t), sampleAnalysis("an-unnamed", "unnamed", acct.ID), nil))
		wantList(t, s, ports.JobQuery{Account: acct.ID, NeedsSpeakerNames: true}, 1, "no-customer")
	}},
}

var analysisListTests = []subtest{
	{"ByDocsOwnAccountOnly", func(t *testing.T, s Stores) {
		a := newAccount(t, s, "acc", 0)
		b := newAccount(t, s, "other", 0)
		mine := sampleAnalysis("an-1", "doc-1", a.ID)
		noErr(t, s.SaveAnalysis(ctxOf(t), mine, nil))
		theirs := sampleAnalysis("an-2", "doc-2", b.ID)
		noErr(t, s.SaveAnalysis(ctxOf(t), theirs, nil))
		mine2 := sampleAnalysis("an-3", "doc-3", a.ID)
		mine2.Status, mine2.Error, mine2.Results = domain.AnalysisFailed, "gone", map[string]domain.QuestionResult{}
		noErr(t, s.SaveAnalysis(ctxOf(t), mine2, nil))

		got := must(s.AnalysesByDocs(ctxOf(t), a.ID, []domain.DocID{"doc-1", "doc-2", "doc-3", "doc-none", "doc-1"}))
		if len(got) != 2 {
			t.Fatalf("AnalysesByDocs: got %s, want doc-1 and doc-3", dump(got))
		}
		wantAnalysis(t, got["doc-1"], mine)
		wantAnalysis(t, got["doc-3"], mine2)
		got = must(s.AnalysesByDocs(ctxOf(t), b.ID, []domain.DocID{"doc-1", "doc-2"}))
		if len(got) != 1 {
			t.Fatalf("AnalysesByDocs of the other account: got %s, want doc-2", dump(got))
		}
		wantAnalysis(t, got["doc-2"], theirs)
		if got := must(s.AnalysesByDocs(ctxOf(t), a.ID, nil)); len(got) != 0 {
			t.Fatalf("AnalysesByDocs of no docs: %s", dump(got))
		}
	}},
	{"ListPeriodOldestFirst", func(t *testing.T, s Stores) {
		a := newAccount(t, s, "acc", 0)
		b := newAccount(t, s, "other", 0)
		from, to := t0, t0.Add(24*time.Hour)
		// A call made at callAt, analysed at analysedAt: the period and the
		// order are the call's, however late it was analysed (again).
		save := func(id string, acct domain.AccountID, checklist string, version int, callAt, analysedAt time.Time, agent string) domain.Analysis {
			j, evs := uploadingJob("doc-"+id, acct, callAt)
			if agent != "" {
				j.Speakers = map[string]domain.SpeakerName{"2": {Role: domain.SpeakerAgent, Name: agent}, "1": {Name: "Հաճախորդ"}}
			}
			createJob(t, s, j, evs)
			an := sampleAnalysis(id, domain.DocID("doc-"+id), acct)
			an.ChecklistID, an.ChecklistVersion, an.CreatedAt = checklist, version, analysedAt
			noErr(t, s.SaveAnalysis(ctxOf(t), an, nil))
			return an
		}
		// Saved out of order; ordered by the call's time.
		last := save("last", a.ID, "cl-1", 2, to.Add(-time.Millisecond), to.Add(time.Hour), "")
		first := save("first", a.ID, "cl-1", 1, from, from, "Անի Սարգսյան")
		mid := save("mid", a.ID, "cl-1", 2, from.Add(time.Hour), from.Add(-time.Hour), "")
		save("before", a.ID, "cl-1", 1, from.Add(-time.Millisecond), from.Add(time.Hour), "")
		save("at-to", a.ID, "cl-1", 2, to, to.Add(-time.Hour), "")
		save("other-checklist", a.ID, "cl-2", 1, from.Add(time.Hour), from.Add(time.Hour), "")
		save("other-account", b.ID, "cl-1", 1, from.Add(time.Hour), from.Add(time.Hour), "")

		got := must(s.ListAnalyses(ctxOf(t), a.ID, "cl-1", from, to))
		want := []domain.Analysis{first, mid, last}
		wantAt := []time.Time{from, from.Add(time.Hour), to.Add(-time.Millisecond)}
		if len(got) != len(want) {
			t.Fatalf("ListAnalyses: got %s", dump(got))
		}
		for i := range want {
			wantAnalysis(t, got[i].Analysis, want[i])
			if !sameTime(got[i].CallAt, wantAt[i]) {
				t.Fatalf("ListAnalyses: %s's call at %v, want %v", want[i].ID, got[i].CallAt, wantAt[i])
			}
		}
		if got[0].Agent != "Անի Սարգսյան" || got[1].Agent != "" {
			t.Fatalf("ListAnalyses: agents %q and %q, want the named agent and none", got[0].Agent, got[1].Agent)
		}
		if got := must(s.ListAnalyses(ctxOf(t), b.ID, "cl-2", from, to)); len(got) != 0 {
			t.Fatalf("ListAnalyses of a checklist the account has no analyses of: %s", dump(got))
		}
	}},
}

// Listing is j as ListJobs lists it for a search ("" for none), with the
// shortest Excerpt: what the suite checks every store's listing against,
// and what the in-memory store (app/apptest) returns. It is the contract's
// expected answer, so it lives with the contract suite rather than in
// ports, which holds interfaces only; the fake imports it here, keeping
// the direction app → ports.
func Listing(j domain.Job, search string) ports.ListedJob {
	j = j.Shown()
	l := ports.ListedJob{ID: j.ID, AccountID: j.AccountID, Type: j.Type, Status: j.Status, ChecklistID: j.ChecklistID,
		CreatedAt: j.CreatedAt, Title: j.Title, Error: j.Error, Filename: j.Filename, Duration: j.Duration(), Score: domain.NoValue, SortDuration: domain.NoValue}
	if d := j.Duration(); d != nil {
		l.SortDuration = *d
	}
	switch {
	case len(j.Metadata) > domain.MaxListedMetadataBytes:
		l.MetadataOmitted = true
	case j.Metadata != nil:
		l.Metadata = append(json.RawMessage(nil), j.Metadata...)
	}
	if search != "" {
		l.Excerpt = domain.SearchExcerpt(j.Transcription, search, domain.SnippetRadius)
	}
	return l
}
