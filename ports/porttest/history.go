package porttest

import (
	"encoding/json"
	"fmt"
	"math"
	"slices"
	"testing"
	"time"

	"github.com/hyscribe/hyscribe/domain"
	"github.com/hyscribe/hyscribe/ports"
)

// triageJob creates a measured call of duration seconds with metadata,
// and, when score is not nil, a checklist analysis scoring it.
func triageJob(t *testing.T, s Stores, id string, acct domain.AccountID, created time.Time, duration float64, metadata string, score *float64) {
	t.Helper()
	j, evs := domain.NewJob(domain.DocID(id), acct, domain.CreateRequest{Type: domain.TypePhoneCall, Metadata: json.RawMessage(metadata)}, created, domain.UploadWindow)
	createJob(t, s, j, evs)
	at := created.Add(time.Second)
	noErr(t, s.UpdateJob(ctxOf(t), j.ID, func(j *domain.Job, a *domain.Account) ([]domain.Event, error) {
		evs, err := j.ReceiveUpload(at, "blobs/"+id, 4096)
		if err != nil {
			return nil, err
		}
		more, err := j.Measure(at, audioInfo(duration), a, domain.MaxDuration)
		return append(evs, more...), err
	}))
	if score != nil {
		a := sampleAnalysis("an-"+id, j.ID, acct)
		a.ListScore = score
		noErr(t, s.SaveAnalysis(ctxOf(t), a, nil))
	}
}

func score(v float64) *float64 { return &v }

// historyTests: the web history's orders, keyset pages in both
// directions, and its score, agent and review filters (issue 36).
var historyTests = []subtest{
	{"SortsPagesAndFilters", func(t *testing.T, s Stores) {
		acct := webAccount(t, s, "acc")
		other := webAccount(t, s, "other")
		// id: minute created, seconds, agent, score (nil: none)
		calls := []struct {
			id    string
			min   int
			dur   float64
			agent string
			sc    *float64
		}{
			{"c1", 1, 60, "ext115", score(0.2)},
			{"c2", 2, 30, "ext204", score(0.9)},
			{"c3", 3, 90, "ext115", nil},
			{"c4", 4, 30, "ext115", score(0.45)},
			{"c5", 5, 120, "ext204", score(0)},
			{"c6", 5, 45, "ext115", score(0.45)}, // created with c5: ties go by ID
		}
		for _, c := range calls {
			triageJob(t, s, c.id, acct.ID, t0.Add(time.Duration(c.min)*time.Minute), c.dur, fmt.Sprintf(`{"agent":%q,"n":%d}`, c.agent, c.min), c.sc)
		}
		triageJob(t, s, "theirs", other.ID, t0, 10, `{"agent":"ext115"}`, score(0.1))

		orders := map[domain.HistorySort][]string{
			domain.SortNewest:    {"c6", "c5", "c4", "c3", "c2", "c1"},
			domain.SortOldest:    {"c1", "c2", "c3", "c4", "c5", "c6"},
			domain.SortScoreHigh: {"c2", "c6", "c4", "c1", "c5", "c3"}, // not scored last, below a real 0
			domain.SortScoreLow:  {"c3", "c5", "c1", "c4", "c6", "c2"},
			domain.SortLongest:   {"c5", "c3", "c1", "c6", "c4", "c2"},
			domain.SortShortest:  {"c2", "c4", "c6", "c1", "c3", "c5"},
		}
		for sort, want := range orders {
			q := ports.JobQuery{Account: acct.ID, Sort: sort}
			wantList(t, s, q, 6, want...)
			// Pages of 2, forward by each page's last key, then back by
			// each page's first: the same rows, the total on every page.
			key := func(j ports.ListedJob) domain.HistoryKey {
				v := j.Score
				if sort.Field() == domain.FieldDuration {
					v = j.SortDuration
				}
				return domain.KeyOf(sort, v, j.CreatedAt, j.ID)
			}
			q.Limit = 2
			var got []string
			var firsts []domain.HistoryKey
			for range 4 {
				jobs, total, err := s.ListJobs(ctxOf(t), q)
				noErr(t, err)
				if total != 6 {
					t.Fatalf("%s: a page after %v tells %d in all, want 6", sort, q.After, total)
				}
				if len(jobs) == 0 {
					break
				}
				firsts = append(firsts, key(jobs[0]))
				for _, j := range jobs {
					got = append(got, string(j.ID))
				}
				q.After = key(jobs[len(jobs)-1])
			}
			if !slices.Equal(got, want) {
				t.Fatalf("%s in pages of 2: %v, want %v", sort, got, want)
			}
			back := ports.JobQuery{Account: acct.ID, Sort: sort, Limit: 2, After: firsts[2], Back: true}
			wantList(t, s, back, 6, want[2:4]...)
			back.After = firsts[1]
			wantList(t, s, back, 6, want[0:2]...)
		}

		scoreQ := func(from, under *float64) ports.JobQuery {
			return ports.JobQuery{Account: acct.ID, ScoreFrom: from, ScoreUnder: under}
		}
		wantList(t, s, scoreQ(nil, score(0.5)), 4, "c6", "c5", "c4", "c1")
		wantList(t, s, scoreQ(score(0.45), score(0.5)), 2, "c6", "c4")
		wantList(t, s, scoreQ(score(0.9), score(1)), 1, "c2") // under 1 keeps a 1 too
		wantList(t, s, scoreQ(score(0), nil), 5, "c6", "c5", "c4", "c2", "c1")

		agent := ports.JobQuery{Account: acct.ID, AgentKey: "agent", Agent: "ext115"}
		wantList(t, s, agent, 4, "c6", "c4", "c3", "c1")
		agent.ScoreUnder, agent.From = score(0.5), t0.Add(2*time.Minute)
		wantList(t, s, agent, 2, "c6", "c4")
		wantList(t, s, ports.JobQuery{Account: acct.ID, AgentKey: "n", Agent: "3"}, 1, "c3")  // a number as JSON writes it
		wantList(t, s, ports.JobQuery{Account: acct.ID, AgentKey: "agent", Agent: "ext1"}, 0) // whole values only

		wantList(t, s, ports.JobQuery{Account: acct.ID, NeedsReview: true}, 5, "c6", "c5", "c4", "c2", "c1")
	}},
}

// BenchmarkHistoryPaging measures the web history's first page and a page
// near its end (the last 100 of n calls) in every order, as the history
// asks for them (25 rows, the total counted): keyset pages read an index
// in order from the page's key, so the deep page costs what the first
// does. "DeepOffset" is the same deep page by OFFSET, as the history paged
// before, for comparison. One call in ten has a scored analysis.
func BenchmarkHistoryPaging(b *testing.B, s Stores, n int, settle func()) {
	ctx := b.Context()
	acct := domain.Account{ID: "bench", Name: "Bench", Plan: domain.PlanBusiness, BalanceMs: 1 << 40, CreatedAt: t0}
	if err := s.CreateAccount(ctx, acct); err != nil {
		b.Fatal(err)
	}
	type row struct {
		id         domain.DocID
		created    time.Time
		dur, score float64
	}
	rows := make([]row, n)
	for i := range n {
		r := row{id: domain.DocID(fmt.Sprintf("doc-%06d", i)), created: t0.Add(time.Duration(i/3) * time.Second), dur: float64(30 + (i*7919)%600), score: domain.NoValue}
		j, evs := domain.NewJob(r.id, acct.ID, domain.CreateRequest{Type: domain.TypePhoneCall,
			Metadata: json.RawMessage(fmt.Sprintf(`{"agent":"ext%d"}`, i%40))}, r.created, domain.UploadWindow)
		j.Audio = &domain.AudioInfo{Format: "mp3", Duration: r.dur, Channels: 1, SampleRate: 16000}
		if err := s.CreateJob(ctx, j, evs[:0]); err != nil {
			b.Fatal(err)
		}
		if i%10 == 0 {
			r.score = float64((i*31)%101) / 100
			a := sampleAnalysis("an-"+string(r.id), r.id, acct.ID)
			a.ListScore = &r.score
			if err := s.SaveAnalysis(ctx, a, nil); err != nil {
				b.Fatal(err)
			}
		}
		rows[i] = r
	}
	if settle != nil {
		settle()
	}
	for _, sort := range domain.HistorySorts {
		keys := make([]domain.HistoryKey, n)
		for i, r := range rows {
			v := r.score
			if sort.Field() == domain.FieldDuration {
				v = r.dur
			}
			keys[i] = domain.KeyOf(sort, v, r.created, r.id)
		}
		slices.SortFunc(keys, func(a, c domain.HistoryKey) int {
			if sort.Before(a, c) {
				return -1
			}
			return 1
		})
		name := string(sort)
		if name == "" {
			name = "date-desc"
		}
		page := func(b *testing.B, q ports.JobQuery) {
			q.Account, q.Sort, q.Limit = acct.ID, sort, 25
			for b.Loop() {
				jobs, total, err := s.ListJobs(ctx, q)
				if err != nil || len(jobs) != 25 || total != n {
					b.Fatalf("%d jobs of %d, %v", len(jobs), total, err)
				}
			}
		}
		b.Run(name+"/First", func(b *testing.B) { page(b, ports.JobQuery{}) })
		b.Run(name+"/Deep", func(b *testing.B) { page(b, ports.JobQuery{After: keys[n-101]}) })
		if sort == domain.SortNewest {
			b.Run(name+"/DeepOffset", func(b *testing.B) { page(b, ports.JobQuery{Offset: n - 100}) })
		}
	}
}

// ListScoreBackfill: an analysis saved before list_score existed (none
// written) gets, from the store's migration backfill, the score its
// pages show under its checklist version's weights, on the analysis and
// on its job, where the history sorts by it.
func ListScoreBackfill(t *testing.T, s Stores, backfill func()) {
	t.Helper()
	acct := webAccount(t, s, "acc")
	noErr(t, s.CreateChecklist(ctxOf(t), domain.Checklist{ID: "cl-1", AccountID: acct.ID, Name: "Q", Version: 2, CreatedAt: t0,
		Questions: []domain.Question{{ID: "greet", Text: "Greeted?", Weight: 3}, {ID: "name", Text: "Named?", Weight: 1}}}))
	triageJob(t, s, "old", acct.ID, t0, 60, `{}`, nil)
	a := sampleAnalysis("an-old", "old", acct.ID) // greet yes 0.9 (weight 3), name unclear (weight 1)
	noErr(t, s.SaveAnalysis(ctxOf(t), a, nil))
	backfill()
	want := 0.9 // an unclear answer is out of the score (domain.Counts)
	jobs, _, err := s.ListJobs(ctxOf(t), ports.JobQuery{Account: acct.ID})
	noErr(t, err)
	got := must(s.AnalysisByDoc(ctxOf(t), "old"))
	if len(jobs) != 1 || math.Abs(jobs[0].Score-want) > 1e-9 || got.ListScore == nil || math.Abs(*got.ListScore-want) > 1e-9 {
		t.Fatalf("after the backfill: listed %+v, analysis %v; want %.3f on both", jobs, got.ListScore, want)
	}
}
