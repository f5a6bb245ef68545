package web_test

import (
	"context"
	"fmt"
	"net/http/httptest"
	"net/url"
	"strings"
	"testing"

	"github.com/hyscribe/hyscribe/adapters/web"
	"github.com/hyscribe/hyscribe/domain"
)

// BenchmarkHistorySearch renders a page of search results (25 rows of 200
// matching, each transcript about 3 KB with the match near its end) on
// SQLite: the folded LIKE, and a marked snippet per row.
func BenchmarkHistorySearch(b *testing.B) {
	s := newSite(b, web.Config{})
	ck, _, acct := s.signUp("bench@example.am")
	filler := strings.Repeat("Բարև ձեզ, զանգում եմ պատվերի մասին, խնդրում եմ ստուգել։ ", 40)
	for i := 0; i < 200; i++ {
		doc := s.job(acct, fmt.Sprintf("Զանգ %03d", i), []byte("x"), fmt.Sprintf(`{"crm":"B-%d"}`, i))
		err := s.store.UpdateJob(context.Background(), doc, func(j *domain.Job, _ *domain.Account) ([]domain.Event, error) {
			j.Transcription = filler + "Առաքումը Երևանում է։"
			return nil, nil
		})
		if err != nil {
			b.Fatal(err)
		}
	}
	path := nextPage(b, s, ck, "/app/recordings?q="+url.QueryEscape("ԵՐԵՒԱՆ"))
	b.ResetTimer()
	for b.Loop() {
		req := httptest.NewRequest("GET", path, nil)
		req.Header.Set("Cookie", "hyscribe_session="+ck["hyscribe_session"])
		res, err := s.app.Test(req, -1)
		if err != nil || res.StatusCode != 200 {
			b.Fatalf("%v %v", err, res)
		}
		res.Body.Close()
	}
}
