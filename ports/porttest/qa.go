package porttest

import (
	"testing"
	"time"

	"github.com/hyscribe/hyscribe/domain"
	"github.com/hyscribe/hyscribe/ports"
)

// qaTests cover what a QA team's settings add to the stores (issue 27):
// the account's time zone and agent channel, a call's named speakers and
// its segments' channels.
var qaTests = []subtest{
	{"AccountZoneAndChannelRoundTrip", func(t *testing.T, s Stores) {
		a := newAccount(t, s, "acc", 1000)
		if got := must(s.GetAccount(ctxOf(t), a.ID)); got.TimeZone != "" || got.AgentChannel != "" {
			t.Fatalf("a new account has zone %q, channel %q; want both empty (the deployment's zone, no channel)", got.TimeZone, got.AgentChannel)
		}
		noErr(t, s.UpdateAccount(ctxOf(t), a.ID, func(a *domain.Account) error {
			a.TimeZone, a.AgentChannel = "America/New_York", domain.ChannelRight
			return nil
		}))
		want := a
		want.TimeZone, want.AgentChannel = "America/New_York", domain.ChannelRight
		wantAccount(t, must(s.GetAccount(ctxOf(t), a.ID)), want)
		// A job's update reads and writes its account whole: the settings stay.
		j, evs := uploadingJob("doc-qa", a.ID, t0)
		createJob(t, s, j, evs)
		noErr(t, s.UpdateJob(ctxOf(t), j.ID, func(j *domain.Job, a *domain.Account) ([]domain.Event, error) {
			if a.TimeZone != "America/New_York" || a.AgentChannel != domain.ChannelRight {
				t.Errorf("UpdateJob's account has zone %q, channel %q", a.TimeZone, a.AgentChannel)
			}
			a.BalanceMs--
			return nil, nil
		}))
		want.BalanceMs--
		wantAccount(t, must(s.GetAccount(ctxOf(t), a.ID)), want)
	}},
	{"SpeakersAndChannelsRoundTrip", func(t *testing.T, s Stores) {
		a := newAccount(t, s, "acc", 3_600_000)
		j, evs := transcribedJob(t, "doc-call", &a)
		j.Segments[0].Channel, j.Segments[1].Channel = domain.ChannelLeft, domain.ChannelRight
		createJob(t, s, j, evs)
		if got := must(s.GetJob(ctxOf(t), j.ID)); got.Speakers != nil || got.Segments[0].Channel != domain.ChannelLeft {
			t.Fatalf("before naming: speakers %v, first segment's channel %q", got.Speakers, got.Segments[0].Channel)
		}
		names := map[string]domain.SpeakerName{"1": {Role: domain.SpeakerAgent, Name: "Անի"}, "2": {Role: domain.SpeakerCustomer}}
		noErr(t, s.UpdateJob(ctxOf(t), j.ID, func(j *domain.Job, _ *domain.Account) ([]domain.Event, error) {
			_, err := j.NameSpeakers(names)
			return nil, err
		}))
		want := j
		want.Speakers = names
		got := must(s.GetJob(ctxOf(t), j.ID))
		want.UpdatedAt = got.UpdatedAt
		wantJob(t, got, want)
		noErr(t, s.UpdateJob(ctxOf(t), j.ID, func(j *domain.Job, _ *domain.Account) ([]domain.Event, error) {
			_, err := j.NameSpeakers(nil)
			return nil, err
		}))
		if got := must(s.GetJob(ctxOf(t), j.ID)); got.Speakers != nil {
			t.Fatalf("after clearing the names: %v", got.Speakers)
		}
	}},
	{"ReplaceAnalysis", func(t *testing.T, s Stores) {
		r, ok := s.(ports.AnalysisReplacer)
		if !ok {
			t.Fatal("the store cannot replace analyses (ports.AnalysisReplacer)")
		}
		acct := newAccount(t, s, "acc", 0)
		a := sampleAnalysis("an-1", "doc-1", acct.ID)
		noErr(t, s.SaveAnalysis(ctxOf(t), a, []domain.Event{domain.NewAnalysisReadyEvent(a, domain.Job{}, nil, t0)}))
		again := a
		again.CreatedAt = t0.Add(time.Hour)
		again.Results = map[string]domain.QuestionResult{"greet": {Question: "Ողջունե՞ց", Answer: domain.AnswerNo, Evidence: []domain.Evidence{}}}
		ev := domain.NewAnalysisAgainEvent(again, domain.Job{}, nil, again.CreatedAt)
		noErr(t, r.ReplaceAnalysis(ctxOf(t), again, []domain.Event{ev}))
		wantAnalysis(t, must(s.AnalysisByDoc(ctxOf(t), "doc-1")), again)
		wantAnalysis(t, must(s.GetAnalysis(ctxOf(t), "an-1")), again)
		if got := eventIDs(recordEvents(peekOutbox(t, s))); len(got) != 2 || got[1] != ev.ID || ev.ID == domain.AnalysisReadyEventID("doc-1") {
			t.Fatalf("outbox %v; want the first event and the new one, %s", got, ev.ID)
		}
		other := sampleAnalysis("an-2", "doc-1", acct.ID)
		wantErr(t, r.ReplaceAnalysis(ctxOf(t), other, nil), domain.ErrNotFound, "ReplaceAnalysis of another analysis ID")
		wantErr(t, r.ReplaceAnalysis(ctxOf(t), sampleAnalysis("an-3", "doc-3", acct.ID), nil), domain.ErrNotFound, "ReplaceAnalysis of a job without analysis")
		wantAnalysis(t, must(s.AnalysisByDoc(ctxOf(t), "doc-1")), again)
	}},
}
