package porttest

import (
	"encoding/json"
	"fmt"
	"strings"
	"testing"
	"time"

	"github.com/hyscribe/hyscribe/domain"
	"github.com/hyscribe/hyscribe/ports"
)

// searchTests: the history search folds Armenian spellings on both sides
// and reads metadata values and titles (issue 14).
var searchTests = []subtest{
	{"EitherSpellingOfEv", func(t *testing.T, s Stores) {
		acct := webAccount(t, s, "acc")
		doneJob(t, s, "city", acct.ID, t0, "Առաքում Երևան", "բարև ձեզ, զանգում եմ")
		doneJob(t, s, "old", acct.ID, t0.Add(time.Minute), "Հին ուղղագրություն", "ԲԱՐԵՒ, ես Եւրոպայից եմ")
		search := func(term string) ports.JobQuery { return ports.JobQuery{Account: acct.ID, Search: term} }
		for _, q := range []string{"ԵՐԵՎԱՆ", "երեվան", "ԵՐԵՒԱՆ", "Երևան", "երեւան"} {
			wantList(t, s, search(q), 1, "city")
		}
		// Բարեւ finds բարև and the capitals ԲԱՐԵՒ; բարև finds both too.
		wantList(t, s, search("Բարեւ"), 2, "old", "city")
		wantList(t, s, search("բարև"), 2, "old", "city")
		wantList(t, s, search("եվրոպա"), 1, "old")
		wantList(t, s, search("ուղղագ"), 1, "old")
	}},
	{"MetadataValuesAndTitles", func(t *testing.T, s Stores) {
		acct := webAccount(t, s, "acc")
		other := webAccount(t, s, "other")
		j, evs := domain.NewJob("crm", acct.ID, domain.CreateRequest{Type: domain.TypePhoneCall,
			Metadata: json.RawMessage(`{"crmId":"B-77","agent":{"name":"Արամ"}}`)}, t0, domain.UploadWindow)
		createJob(t, s, j, evs)
		o, evs := domain.NewJob("other-crm", other.ID, domain.CreateRequest{Type: domain.TypePhoneCall,
			Metadata: json.RawMessage(`{"crmId":"B-77"}`)}, t0, domain.UploadWindow)
		createJob(t, s, o, evs)
		doneJob(t, s, "titled", acct.ID, t0.Add(time.Minute), "Վճարման հարց", "այո")
		search := func(term string) ports.JobQuery { return ports.JobQuery{Account: acct.ID, Search: term} }
		// Metadata is searchable from the moment the job is created.
		wantList(t, s, search("B-77"), 1, "crm")
		wantList(t, s, search("b-77"), 1, "crm")
		wantList(t, s, search("ԱՐԱՄ"), 1, "crm")
		wantList(t, s, search("crmId"), 0) // keys are not values
		wantList(t, s, search("վճարման"), 1, "titled")
	}},
	{"FileNames", func(t *testing.T, s Stores) {
		// Call centres name recordings by extension, number and time
		// (issue 36): any part of the uploaded file's name finds the call,
		// in its account only, before and after it is transcribed.
		acct := webAccount(t, s, "acc")
		other := webAccount(t, s, "other")
		name := "ext115_2026-11-20_1312_+37499290684.mp3"
		for _, c := range []struct {
			id      domain.DocID
			account domain.AccountID
		}{{"mine", acct.ID}, {"theirs", other.ID}} {
			j, evs := domain.NewJob(c.id, c.account, domain.CreateRequest{Type: domain.TypePhoneCall}, t0, domain.UploadWindow)
			j.Filename = name
			createJob(t, s, j, evs)
		}
		doneJob(t, s, "titled", acct.ID, t0.Add(time.Minute), "Վճարման հարց", "այո")
		search := func(term string) ports.JobQuery { return ports.JobQuery{Account: acct.ID, Search: term} }
		for _, q := range []string{"ext115", "EXT115", "+37499290684", "2026-11-20_1312", "1312_+374"} {
			wantList(t, s, search(q), 1, "mine")
		}
		wantList(t, s, search("2026-11-21"), 0)
	}},
}

// BenchmarkSearch measures one page of a history search over n recordings
// of one account, each transcript about 3 KB (a five-minute call): the
// count and the first page of 25, as the history page asks. "Rare" looks
// for one CRM id (one job), "Common" for a word in one recording of ten.
// settle, if not nil, runs once the recordings are in (a database's
// statistics, which a server gathers by itself in time).
func BenchmarkSearch(b *testing.B, s Stores, n int, settle func()) {
	ctx := b.Context()
	acct := domain.Account{ID: "bench", Name: "Bench", Plan: domain.PlanBusiness, BalanceMs: 1 << 40, CreatedAt: t0}
	if err := s.CreateAccount(ctx, acct); err != nil {
		b.Fatal(err)
	}
	filler := strings.Repeat("Բարև ձեզ, զանգում եմ պատվերի մասին, խնդրում եմ ստուգել։ ", 40)
	for i := range n {
		j, evs := domain.NewJob(domain.DocID(fmt.Sprintf("doc-%05d", i)), acct.ID, domain.CreateRequest{Type: domain.TypePhoneCall,
			Metadata: json.RawMessage(fmt.Sprintf(`{"crm":"B-%05d"}`, i))}, t0.Add(time.Duration(i)*time.Second), domain.UploadWindow)
		j.Title, j.Transcription = fmt.Sprintf("Զանգ %d", i), filler
		if i%10 == 0 {
			j.Transcription += "Առաքումը Երևանում է։"
		}
		if err := s.CreateJob(ctx, j, evs); err != nil {
			b.Fatal(err)
		}
	}
	if settle != nil {
		settle()
	}
	for _, c := range []struct {
		name, search string
		total, page  int
	}{{"Rare", "b-04242", 1, 1}, {"Common", "ԵՐԵՒԱՆ", n / 10, 25}} {
		b.Run(c.name, func(b *testing.B) {
			q := ports.JobQuery{Account: acct.ID, Search: c.search, Limit: 25}
			for b.Loop() {
				jobs, total, err := s.ListJobs(ctx, q)
				if err != nil || len(jobs) != c.page || total != c.total {
					b.Fatalf("%d jobs of %d, %v", len(jobs), total, err)
				}
			}
		})
	}
}
