package web_test

import (
	"fmt"
	"net/http/httptest"
	"testing"

	"github.com/hyscribe/hyscribe/adapters/web"
)

// BenchmarkHistoryPage renders a full history page (25 rows of 200) on
// SQLite: store queries, template and the response.
func BenchmarkHistoryPage(b *testing.B) {
	s := newSite(b, web.Config{})
	ck, _, acct := s.signUp("bench@example.am")
	for i := 0; i < 200; i++ {
		s.job(acct, fmt.Sprintf("Զանգ %03d", i), []byte("x"), `{"crm":"A-1"}`)
	}
	b.ResetTimer()
	for i := 0; i < b.N; i++ {
		req := httptest.NewRequest("GET", "/app/recordings?page=2", nil)
		req.Header.Set("Cookie", "hyscribe_session="+ck["hyscribe_session"])
		res, err := s.app.Test(req, -1)
		if err != nil || res.StatusCode != 200 {
			b.Fatalf("%v %v", err, res)
		}
		res.Body.Close()
	}
}
