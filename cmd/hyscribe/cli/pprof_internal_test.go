package cli

import (
	"io"
	"log/slog"
	"net/http"
	"strings"
	"testing"
)

// HYSCRIBE_PPROF_ADDR serves Go's profiles, which make bench takes from the
// running api and worker.
func TestServePprof(t *testing.T) {
	addr, stop, err := servePprof("127.0.0.1:0", slog.New(slog.DiscardHandler))
	if err != nil {
		t.Fatal(err)
	}
	defer stop()
	for path, want := range map[string]string{
		"/debug/pprof/":                  "allocs",
		"/debug/pprof/allocs?debug=1":    "heap profile",
		"/debug/pprof/profile?seconds=1": "", // a CPU profile, gzipped protobuf
	} {
		res, err := http.Get("http://" + addr + path)
		if err != nil {
			t.Fatal(err)
		}
		body, _ := io.ReadAll(res.Body)
		res.Body.Close()
		if res.StatusCode != 200 || len(body) == 0 || !strings.Contains(string(body), want) {
			t.Errorf("GET %s: %d, %d bytes, want 200 with %q", path, res.StatusCode, len(body), want)
		}
	}
}
