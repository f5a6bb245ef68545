package web_test

import (
	"context"
	"encoding/json"
	"fmt"
	"net/http/httptest"
	"net/url"
	"strings"
	"sync"
	"syscall"
	"testing"
	"time"

	"github.com/jackc/pgx/v5"

	"github.com/hyscribe/hyscribe/adapters/postgres"
	"github.com/hyscribe/hyscribe/adapters/postgres/pgtest"
	"github.com/hyscribe/hyscribe/adapters/web"
	"github.com/hyscribe/hyscribe/app"
	"github.com/hyscribe/hyscribe/domain"
)

// historyRecordings is how many recordings the history benchmark's account
// holds: a busy call centre's year.
const historyRecordings = 10_000

// BenchmarkHistoryPage renders a history page of an account with 10,000
// recordings, on SQLite and on Postgres: the session lookup, the page query
// (its count beside it), the analyses, the template and the response.
// "page" is page 2 with no filter (its keyset link from page 1), "search" a word found in 1% of the
// transcripts, "search-none" a word found in none.
func BenchmarkHistoryPage(b *testing.B) {
	stores := map[string]func(b *testing.B) *site{
		"sqlite": func(b *testing.B) *site { return newSite(b, web.Config{}) },
		"postgres": func(b *testing.B) *site {
			u := pgtest.URL(b)
			st, err := postgres.Open(context.Background(), u)
			if err != nil {
				b.Fatal(err)
			}
			b.Cleanup(func() { st.Close() })
			s := newSiteOn(b, web.Config{}, st)
			// What autovacuum does after a table grows by a tenth: the
			// planner needs statistics to choose the search index.
			s.analyze = func() {
				conn, err := pgx.Connect(context.Background(), u)
				if err != nil {
					b.Fatal(err)
				}
				defer conn.Close(context.Background())
				if _, err := conn.Exec(context.Background(), "ANALYZE jobs"); err != nil {
					b.Fatal(err)
				}
			}
			return s
		},
	}
	for _, name := range []string{"sqlite", "postgres"} {
		b.Run(name, func(b *testing.B) {
			s := stores[name](b)
			ck, _, acct := s.signUp("bench@example.am")
			seedHistory(b, s, acct, historyRecordings)
			if s.analyze != nil {
				s.analyze()
			}
			for _, q := range []struct{ name, query string }{
				{"page", strings.TrimPrefix(nextPage(b, s, ck, "/app/recordings"), "/app/recordings?")},
				{"search", "q=" + url.QueryEscape("երևանից")},
				{"search-none", "q=" + url.QueryEscape("չկա-այսպիսի-բառ")},
			} {
				b.Run(q.name, func(b *testing.B) {
					cpu0 := cpuTime()
					for b.Loop() {
						req := httptest.NewRequest("GET", "/app/recordings?"+q.query, nil)
						req.Header.Set("Cookie", "hyscribe_session="+ck["hyscribe_session"])
						res, err := s.app.Test(req, -1)
						if err != nil || res.StatusCode != 200 {
							b.Fatalf("%v %v", err, res)
						}
						res.Body.Close()
					}
					// This process's CPU per page (the web application and,
					// for SQLite, the database), which a loaded machine
					// does not inflate as it does the wall time.
					b.ReportMetric(float64(cpuTime()-cpu0)/float64(b.N)/1e6, "cpu-ms/op")
				})
			}
		})
	}
}

// seedHistory saves n transcribed recordings of about two minutes of
// speech each (1.5 KB of Armenian text), one in a hundred mentioning
// Yerevan, straight into the store.
func seedHistory(b *testing.B, s *site, acct domain.AccountID, n int) {
	b.Helper()
	sentences := []string{
		"Բարև ձեզ, շնորհակալություն զանգի համար։", "Ես զանգում եմ պատվերի մասին, որը դեռ չի առաքվել։",
		"Խնդրում եմ ասել պատվերի համարը։", "Պատվերը կառաքվի վաղը առավոտյան՝ ժամը տասից տասներկուսը։",
		"Կարո՞ղ եմ փոխել առաքման հասցեն։", "Այո, իհարկե, ասեք նոր հասցեն։", "Շնորհակալություն, ցտեսություն։",
	}
	var body strings.Builder
	for body.Len() < 1500 {
		body.WriteString(sentences[body.Len()%len(sentences)] + " ")
	}
	text := body.String()
	start := time.Now().Add(-time.Duration(n) * time.Minute)
	ctx := context.Background()
	var wg sync.WaitGroup
	work := make(chan int)
	for w := 0; w < 4; w++ {
		wg.Go(func() {
			for i := range work {
				tr := text
				if i%100 == 7 {
					tr = "Զանգում եմ Երևանից։ " + tr
				}
				j := doneJob(b, acct, start.Add(time.Duration(i)*time.Minute), fmt.Sprintf("Պատվերի զանգ %05d", i), tr)
				if err := s.store.CreateJob(ctx, j, nil); err != nil {
					b.Error(err)
					return
				}
			}
		})
	}
	for i := 0; i < n; i++ {
		work <- i
	}
	close(work)
	wg.Wait()
}

// doneJob is a transcribed job built in memory by the domain's transitions.
func doneJob(b *testing.B, acct domain.AccountID, at time.Time, title, text string) domain.Job {
	j, _ := domain.NewJob(domain.DocID(app.NewID()), acct, domain.CreateRequest{Type: domain.TypeSingleVoice, Metadata: json.RawMessage(`{"crmId":"B-77"}`)}, at, time.Hour)
	a := &domain.Account{ID: acct, Plan: domain.PlanBusiness, BalanceMs: 1 << 40}
	for _, step := range []func() ([]domain.Event, error){
		func() ([]domain.Event, error) { return j.ReceiveUpload(at, "blob", 1<<20) },
		func() ([]domain.Event, error) {
			return j.Measure(at, domain.AudioInfo{Format: "mp3", Duration: 120}, a, time.Hour)
		},
		func() ([]domain.Event, error) { return j.StartConverting(at) },
		func() ([]domain.Event, error) {
			return j.Recognize(at, text, []domain.Segment{{Start: 0, End: 120, Text: text}})
		},
		func() ([]domain.Event, error) {
			return j.Complete(at, title, "Հաճախորդը հարցնում է պատվերի մասին։", "hy-AM")
		},
	} {
		if _, err := step(); err != nil {
			b.Fatal(err)
		}
	}
	return j
}

// cpuTime is the user and system CPU time this process has used.
func cpuTime() time.Duration {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return 0
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}
