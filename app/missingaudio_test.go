package app_test

import (
	"bytes"
	"context"
	"log/slog"
	"strings"
	"testing"

	"github.com/hyscribe/hyscribe/app"
	"github.com/hyscribe/hyscribe/domain"
)

// TestMissingAudioFailsReadablyAndLogsWhereTheStoreLooked: a worker whose
// blob store does not have a job's upload (another API replica's disk) fails
// the job with a reason that names no server path, and logs the store's own
// error, which says where it looked, with the job's docId and stage.
func TestMissingAudioFailsReadablyAndLogsWhereTheStoreLooked(t *testing.T) {
	for _, stage := range []string{app.StageProcess, app.StageTranscribe} {
		t.Run(stage, func(t *testing.T) {
			w := newWorld(t)
			var logs bytes.Buffer
			log := slog.New(slog.NewTextHandler(&logs, nil))
			w.process = app.NewProcessAudio(w.store, w.blobs, probe{}, w.clock, 0, log)
			w.tr = app.NewTranscribeAudio(w.store, w.blobs, splitter{}, w.rec, w.clock, t.TempDir(), log)
			lose := func() {
				w.blobs.mu.Lock()
				defer w.blobs.mu.Unlock()
				clear(w.blobs.m)
			}
			process := w.process.Handle
			if stage == app.StageTranscribe { // measured, then gone
				process = func(ctx context.Context, ev domain.Event) error {
					err := w.process.Handle(ctx, ev)
					lose()
					return err
				}
			}
			w.routeByPipeline(map[string]func(context.Context, domain.Event) error{
				app.StageProcess: process, app.StageTranscribe: w.tr.Handle, app.StageEnrich: w.enrich.Handle,
			})
			p := w.account(domain.PlanBusiness, 60)
			res := w.newJob(p, `{"type":"single_voice"}`)
			w.put(res.DocID, "MP3 6 1")
			if stage == app.StageProcess {
				lose()
			}
			w.drain()
			j := w.job(res.DocID)
			if j.Status != domain.StatusFailed || j.Error != domain.ErrAudioMissing.Error() || w.balance(p) != 60000 {
				t.Fatalf("%s %q balance %d; want failed with %q, balance refunded", j.Status, j.Error, w.balance(p), domain.ErrAudioMissing)
			}
			got := logs.String()
			for _, want := range []string{"level=ERROR", "stage=" + stage, "docId=" + string(res.DocID), "no " + j.BlobKey + " in memory"} {
				if !strings.Contains(got, want) {
					t.Errorf("log lacks %q:\n%s", want, got)
				}
			}
		})
	}
}
