package porttest

import (
	"testing"
	"time"

	"github.com/hyscribe/hyscribe/domain"
	"github.com/hyscribe/hyscribe/ports"
)

// TeamStores is a store adapter with the self-serve ports: the team page's
// TeamStore and the usage page's UsageReader.
type TeamStores interface {
	Stores
	ports.TeamStore
	ports.UsageReader
}

// Team runs the contract suite of TeamStore and UsageReader. open must
// return a new, empty store for each call.
func Team(t *testing.T, open func(t *testing.T) TeamStores) {
	for _, st := range teamTests {
		t.Run(st.name, func(t *testing.T) {
			t.Parallel()
			defer failOnMust(t)
			st.run(t, open(t))
		})
	}
}

var teamTests = []struct {
	name string
	run  func(t *testing.T, s TeamStores)
}{
	{"ListUsersOfOneAccountOldestFirst", func(t *testing.T, s TeamStores) {
		a := signUp(t, s, "acc", sampleUser("u-1", "", "anna@example.am"))
		b := signUp(t, s, "other", sampleUser("u-9", "", "zara@example.am"))
		later := invitedUser("u-2", a.ID, "bob@example.am")
		later.CreatedAt = t0.Add(time.Minute)
		noErr(t, s.CreateUser(ctxOf(t), later))
		got := must(s.ListUsers(ctxOf(t), a.ID))
		if len(got) != 2 {
			t.Fatalf("ListUsers(%s) = %d users, want 2", a.ID, len(got))
		}
		wantUser(t, got[0], sampleUser("u-1", a.ID, "anna@example.am"))
		wantUser(t, got[1], later)
		if got := must(s.ListUsers(ctxOf(t), b.ID)); len(got) != 1 || got[0].ID != "u-9" {
			t.Fatalf("ListUsers(%s) = %+v", b.ID, got)
		}
		if got := must(s.ListUsers(ctxOf(t), "none")); got == nil || len(got) != 0 {
			t.Fatalf("ListUsers of an unknown account = %#v, want an empty list", got)
		}
	}},
	{"DeleteUserTakesTheirSessions", func(t *testing.T, s TeamStores) {
		a := signUp(t, s, "acc", sampleUser("u-1", "", "anna@example.am"))
		b := signUp(t, s, "other", sampleUser("u-9", "", "zara@example.am"))
		member := sampleUser("u-2", a.ID, "bob@example.am")
		noErr(t, s.CreateUser(ctxOf(t), member))
		live := t0.Add(time.Hour)
		noErr(t, s.CreateSession(ctxOf(t), sampleSession("s-bob", "u-2", a.ID, live)))
		noErr(t, s.CreateSession(ctxOf(t), sampleSession("s-anna", "u-1", a.ID, live)))
		wantErr(t, s.DeleteUser(ctxOf(t), b.ID, "u-2"), domain.ErrNotFound, "DeleteUser through another account")
		must(s.GetSession(ctxOf(t), domain.HashToken("s-bob")))
		noErr(t, s.DeleteUser(ctxOf(t), a.ID, "u-2"))
		_, err := s.FindUser(ctxOf(t), ports.UserKey{ID: "u-2"})
		wantErr(t, err, domain.ErrNotFound, "FindUser after DeleteUser")
		_, err = s.GetSession(ctxOf(t), domain.HashToken("s-bob"))
		wantErr(t, err, domain.ErrNotFound, "the session of a deleted user")
		must(s.GetSession(ctxOf(t), domain.HashToken("s-anna")))
		wantErr(t, s.DeleteUser(ctxOf(t), a.ID, "u-2"), domain.ErrNotFound, "DeleteUser twice")
	}},
	{"DeleteUserSessionsKeepsOne", func(t *testing.T, s TeamStores) {
		a := signUp(t, s, "acc", sampleUser("u-1", "", "anna@example.am"))
		noErr(t, s.CreateUser(ctxOf(t), sampleUser("u-2", a.ID, "bob@example.am")))
		live := t0.Add(time.Hour)
		for _, id := range []string{"here", "phone", "laptop"} {
			noErr(t, s.CreateSession(ctxOf(t), sampleSession(id, "u-1", a.ID, live)))
		}
		noErr(t, s.CreateSession(ctxOf(t), sampleSession("bobs", "u-2", a.ID, live)))
		if n := must(s.DeleteUserSessions(ctxOf(t), "u-1", domain.HashToken("here"))); n != 2 {
			t.Fatalf("DeleteUserSessions removed %d, want 2", n)
		}
		must(s.GetSession(ctxOf(t), domain.HashToken("here")))
		must(s.GetSession(ctxOf(t), domain.HashToken("bobs")))
		if n := must(s.DeleteUserSessions(ctxOf(t), "u-1", "")); n != 1 {
			t.Fatalf("DeleteUserSessions keeping none removed %d, want 1", n)
		}
	}},
	{"JobUsageIsLightOwnAccountAndSinceFrom", func(t *testing.T, s TeamStores) {
		a := webAccount(t, s, "acc")
		b := webAccount(t, s, "other")
		doneJob(t, s, "old", a.ID, t0.Add(-48*time.Hour), "Old", "old text")
		done := doneJob(t, s, "done", a.ID, t0, "Պատվերի զանգ", "secret transcript")
		j, evs := uploadingJob("waiting", a.ID, t0.Add(time.Minute))
		createJob(t, s, j, evs)
		doneJob(t, s, "theirs", b.ID, t0, "Theirs", "x")
		got := must(s.JobUsage(ctxOf(t), a.ID, t0.Add(-time.Hour)))
		if len(got) != 2 || got[0].ID != "done" || got[1].ID != "waiting" {
			t.Fatalf("JobUsage = %v, want done, waiting", ids(got))
		}
		g := got[0]
		if g.Status != domain.StatusTranscribed || g.Title != done.Title || g.Audio == nil || g.Audio.Duration != done.Audio.Duration ||
			g.AudioBytes != done.AudioBytes || !sameTime(g.CreatedAt, done.CreatedAt) || g.Type != done.Type || g.AccountID != a.ID {
			t.Fatalf("JobUsage row %+v, want the light fields of %+v", g, done)
		}
		if g.Transcription != "" || g.Segments != nil || g.Metadata != nil {
			t.Fatal("JobUsage returned a transcript or metadata")
		}
		if got[1].Audio != nil {
			t.Fatalf("an unmeasured job has audio %+v", got[1].Audio)
		}
	}},
}
