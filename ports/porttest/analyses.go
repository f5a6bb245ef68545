package porttest

import (
	"encoding/json"
	"reflect"
	"sync"
	"testing"
	"time"

	"github.com/hyscribe/hyscribe/domain"
)

var checklistVersionTests = []subtest{
	{"AddVersionKeepsOld", func(t *testing.T, s Stores) {
		a := newAccount(t, s, "acc", 0)
		v1 := sampleChecklist("cl-1", a.ID)
		noErr(t, s.CreateChecklist(ctxOf(t), v1))
		v2 := sampleChecklist("cl-1", a.ID)
		v2.Version, v2.Name, v2.CreatedAt = 2, "Վաճառքի զանգ 2", t0.Add(time.Hour)
		v2.Questions = append(v2.Questions, domain.Question{ID: "close", Text: "Պայմանավորվեցի՞ն", Expect: []string{"պայմանավորվեցինք"}})
		noErr(t, s.AddChecklistVersion(ctxOf(t), v2))
		wantChecklist(t, must(s.GetChecklist(ctxOf(t), a.ID, "cl-1")), v2)
		wantChecklist(t, must(s.GetChecklistVersion(ctxOf(t), a.ID, "cl-1", 1)), v1)
		wantChecklist(t, must(s.GetChecklistVersion(ctxOf(t), a.ID, "cl-1", 2)), v2)
		_, err := s.GetChecklistVersion(ctxOf(t), a.ID, "cl-1", 3)
		wantErr(t, err, domain.ErrNotFound, "GetChecklistVersion of a version not written")
	}},
	{"AddVersionMustFollowLatest", func(t *testing.T, s Stores) {
		a := newAccount(t, s, "acc", 0)
		noErr(t, s.CreateChecklist(ctxOf(t), sampleChecklist("cl-1", a.ID)))
		skip := sampleChecklist("cl-1", a.ID)
		skip.Version = 3
		wantErr(t, s.AddChecklistVersion(ctxOf(t), skip), domain.ErrConflict, "AddChecklistVersion skipping a version")
		same := sampleChecklist("cl-1", a.ID)
		wantErr(t, s.AddChecklistVersion(ctxOf(t), same), domain.ErrConflict, "AddChecklistVersion of the existing version")
		missing := sampleChecklist("cl-none", a.ID)
		missing.Version = 2
		wantErr(t, s.AddChecklistVersion(ctxOf(t), missing), domain.ErrNotFound, "AddChecklistVersion of a missing checklist")
		b := newAccount(t, s, "other", 0)
		other := sampleChecklist("cl-1", b.ID)
		other.Version = 2
		wantErr(t, s.AddChecklistVersion(ctxOf(t), other), domain.ErrNotFound, "AddChecklistVersion of another account's checklist")
	}},
	{"RacingEditsOneWins", func(t *testing.T, s Stores) {
		a := newAccount(t, s, "acc", 0)
		noErr(t, s.CreateChecklist(ctxOf(t), sampleChecklist("cl-1", a.ID)))
		const n = 8
		var wg sync.WaitGroup
		errs := make([]error, n)
		for i := range n {
			wg.Add(1)
			go func() {
				defer wg.Done()
				c := sampleChecklist("cl-1", a.ID)
				c.Version = 2
				errs[i] = s.AddChecklistVersion(ctxOf(t), c)
			}()
		}
		wg.Wait()
		wins := 0
		for _, err := range errs {
			if err == nil {
				wins++
			} else {
				wantErr(t, err, domain.ErrConflict, "a losing edit")
			}
		}
		if wins != 1 {
			t.Fatalf("%d of %d racing edits won, want 1", wins, n)
		}
	}},
	{"ListLatestAndArchive", func(t *testing.T, s Stores) {
		a := newAccount(t, s, "acc", 0)
		b := newAccount(t, s, "other", 0)
		noErr(t, s.CreateChecklist(ctxOf(t), sampleChecklist("cl-2", a.ID)))
		noErr(t, s.CreateChecklist(ctxOf(t), sampleChecklist("cl-1", a.ID)))
		noErr(t, s.CreateChecklist(ctxOf(t), sampleChecklist("cl-3", b.ID)))
		v2 := sampleChecklist("cl-2", a.ID)
		v2.Version = 2
		noErr(t, s.AddChecklistVersion(ctxOf(t), v2))
		noErr(t, s.ArchiveChecklist(ctxOf(t), a.ID, "cl-1"))
		noErr(t, s.ArchiveChecklist(ctxOf(t), a.ID, "cl-1"))
		wantErr(t, s.ArchiveChecklist(ctxOf(t), a.ID, "cl-3"), domain.ErrNotFound, "ArchiveChecklist of another account's checklist")
		list := must(s.ListChecklists(ctxOf(t), a.ID))
		if len(list) != 2 || list[0].ID != "cl-1" || list[1].ID != "cl-2" {
			t.Fatalf("ListChecklists: %s", dump(list))
		}
		if !list[0].Archived || list[1].Archived || list[1].Version != 2 {
			t.Fatalf("ListChecklists: want cl-1 archived and cl-2 at version 2, got %s", dump(list))
		}
		if v1 := must(s.GetChecklistVersion(ctxOf(t), a.ID, "cl-1", 1)); !v1.Archived {
			t.Fatalf("archiving must cover every version")
		}
		if empty := must(s.ListChecklists(ctxOf(t), "nobody")); len(empty) != 0 {
			t.Fatalf("ListChecklists of an account without checklists: %s", dump(empty))
		}
	}},
}

func sampleAnalysis(id string, doc domain.DocID, acct domain.AccountID) domain.Analysis {
	speaker, start := "Խոսնակ 1", 1.5
	return domain.Analysis{
		ID: id, DocID: doc, AccountID: acct, ChecklistID: "cl-1", ChecklistVersion: 2, ChecklistName: "Վաճառքի զանգ",
		Status: domain.AnalysisOK,
		Results: map[string]domain.QuestionResult{
			"greet": {Question: "Ողջունե՞ց", Answer: domain.AnswerYes, Score: 0.9, Evidence: []domain.Evidence{{Speaker: &speaker, Text: "Բարև ձեզ", Start: &start}}},
			"name":  {Question: "Did the agent give their name?", Answer: domain.AnswerUnclear, Score: 0, Evidence: []domain.Evidence{{Text: "no speaker"}}},
		},
		CreatedAt: t0.Add(789 * time.Microsecond),
	}
}

func wantAnalysis(t *testing.T, got, want domain.Analysis) {
	t.Helper()
	got.CreatedAt, want.CreatedAt = ms(got.CreatedAt), ms(want.CreatedAt)
	if !reflect.DeepEqual(got, want) {
		t.Fatalf("analysis %s:\n got %s\nwant %s", want.ID, dump(got), dump(want))
	}
}

var analysisTests = []subtest{
	{"SaveGetRoundTripWithEvent", func(t *testing.T, s Stores) {
		acct := newAccount(t, s, "acc", 0)
		a := sampleAnalysis("an-1", "doc-1", acct.ID)
		ev := domain.NewAnalysisReadyEvent(a, domain.Job{Metadata: json.RawMessage(`{"crm":"A-1"}`)}, map[string]float64{"greet": 1, "name": 2}, t0)
		noErr(t, s.SaveAnalysis(ctxOf(t), a, []domain.Event{ev}))
		wantAnalysis(t, must(s.GetAnalysis(ctxOf(t), "an-1")), a)
		wantAnalysis(t, must(s.AnalysisByDoc(ctxOf(t), "doc-1")), a)
		wantEvents(t, recordEvents(peekOutbox(t, s)), []domain.Event{ev})
	}},
	{"OnePerJob", func(t *testing.T, s Stores) {
		acct := newAccount(t, s, "acc", 0)
		a := sampleAnalysis("an-1", "doc-1", acct.ID)
		ev := domain.NewAnalysisReadyEvent(a, domain.Job{}, nil, t0)
		noErr(t, s.SaveAnalysis(ctxOf(t), a, []domain.Event{ev}))
		again := sampleAnalysis("an-2", "doc-1", acct.ID)
		again.Status, again.Error = domain.AnalysisFailed, "late"
		wantErr(t, s.SaveAnalysis(ctxOf(t), again, []domain.Event{domain.NewAnalysisReadyEvent(again, domain.Job{}, nil, t0)}), domain.ErrConflict, "second SaveAnalysis of one job")
		wantAnalysis(t, must(s.AnalysisByDoc(ctxOf(t), "doc-1")), a)
		if got := recordEvents(peekOutbox(t, s)); len(got) != 1 {
			t.Fatalf("a refused save wrote events: %v", eventIDs(got))
		}
		_, err := s.GetAnalysis(ctxOf(t), "an-2")
		wantErr(t, err, domain.ErrNotFound, "GetAnalysis of a refused analysis")
	}},
	{"FailedAnalysisKeepsReason", func(t *testing.T, s Stores) {
		acct := newAccount(t, s, "acc", 0)
		a := sampleAnalysis("an-1", "doc-1", acct.ID)
		a.Status, a.Error, a.Results = domain.AnalysisFailed, "checklist version 2 is gone", map[string]domain.QuestionResult{}
		noErr(t, s.SaveAnalysis(ctxOf(t), a, nil))
		wantAnalysis(t, must(s.AnalysisByDoc(ctxOf(t), "doc-1")), a)
	}},
	{"MissingIsNotFound", func(t *testing.T, s Stores) {
		_, err := s.GetAnalysis(ctxOf(t), "nope")
		wantErr(t, err, domain.ErrNotFound, "GetAnalysis of a missing analysis")
		_, err = s.AnalysisByDoc(ctxOf(t), "nope")
		wantErr(t, err, domain.ErrNotFound, "AnalysisByDoc of a job without analysis")
		wantErr(t, s.SaveAnalysis(ctxOf(t), sampleAnalysis("an-1", "doc-1", "nobody"), nil), domain.ErrNotFound, "SaveAnalysis for a missing account")
	}},
}
