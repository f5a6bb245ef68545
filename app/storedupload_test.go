package app_test

import (
	"context"
	"encoding/json"
	"strings"
	"testing"
	"time"

	"github.com/hyscribe/hyscribe/app"
	"github.com/hyscribe/hyscribe/domain"
)

// stored says that key (size bytes) was written to the object store, as the
// store's notification does, and hands it to uc.
func stored(t *testing.T, w *world, uc *app.CompleteStoredUpload, id domain.DocID, key string, size int64) {
	t.Helper()
	if key == "" {
		key = "audio/" + string(id) + ".mp3"
	}
	data, _ := json.Marshal(domain.ObjectCreatedData{Key: key, Size: size})
	ev := domain.Event{ID: "storage/" + key, Type: domain.EventTypeObjectCreated, DocID: id, Data: data}
	if err := uc.Handle(w.ctx, ev); err != nil {
		t.Fatalf("CompleteStoredUpload(%s, %d bytes): %v", key, size, err)
	}
}

func TestStoredUploadMovesTheJobToProcessingAndTheRestOfThePipeline(t *testing.T) {
	w := newWorld(t)
	uc := app.NewCompleteStoredUpload(w.store, w.blobs, w.clock, 1<<20, nil)
	p := w.account(domain.PlanBusiness, 60)
	res := w.newJob(p, `{"type":"single_voice"}`)
	key := "audio/" + string(res.DocID) + ".mp3"
	w.blobs.m = map[string][]byte{key: []byte("MP3 5 1")}

	stored(t, w, uc, res.DocID, key, 7)
	j := w.job(res.DocID)
	if j.Status != domain.StatusProcessing || j.BlobKey != key || j.AudioBytes != 7 {
		t.Fatalf("after the notification: %s key %q bytes %d", j.Status, j.BlobKey, j.AudioBytes)
	}
	// The repeat of the notification (and a second PUT to the same
	// address, which the store announces the same way) changes nothing
	// and keeps the audio.
	before := w.job(res.DocID)
	stored(t, w, uc, res.DocID, key, 7)
	if after := w.job(res.DocID); after.UpdatedAt != before.UpdatedAt || after.Status != before.Status || w.blobs.Len() != 1 {
		t.Fatalf("a repeated notification changed the job or removed the audio: %+v", after)
	}
	w.drain()
	if j := w.job(res.DocID); j.Status != domain.StatusTranscribed {
		t.Fatalf("pipeline ended in %s (%s)", j.Status, j.Error)
	}
}

func TestStoredUploadEmptyOrTooLargeFailsTheJobAndDeletesTheObject(t *testing.T) {
	for _, c := range []struct {
		name string
		size int64
		want string
	}{
		{"empty", 0, "the upload is empty"},
		{"too large", 2 << 20, "larger than the 1 MiB limit"},
	} {
		t.Run(c.name, func(t *testing.T) {
			w := newWorld(t)
			uc := app.NewCompleteStoredUpload(w.store, w.blobs, w.clock, 1<<20, nil)
			p := w.account(domain.PlanBusiness, 60)
			res := w.newJob(p, `{"type":"single_voice"}`)
			key := "audio/" + string(res.DocID) + ".mp3"
			w.blobs.m = map[string][]byte{key: make([]byte, c.size)}
			stored(t, w, uc, res.DocID, key, c.size)
			j := w.job(res.DocID)
			if j.Status != domain.StatusFailed || !strings.Contains(j.Error, c.want) {
				t.Fatalf("%s %q, want failed with %q", j.Status, j.Error, c.want)
			}
			if w.blobs.Len() != 0 {
				t.Fatal("the refused object was kept")
			}
			if w.balance(p) != 60000 {
				t.Fatalf("balance %d", w.balance(p))
			}
		})
	}
}

func TestStoredUploadAfterTheJobFailedIsDeleted(t *testing.T) {
	w := newWorld(t)
	uc := app.NewCompleteStoredUpload(w.store, w.blobs, w.clock, 1<<20, nil)
	p := w.account(domain.PlanBusiness, 60)
	res := w.newJob(p, `{"type":"single_voice"}`)
	w.clock.Add(2 * time.Hour)
	if _, err := w.sweeper.SweepOnce(w.ctx); err != nil {
		t.Fatal(err)
	}
	key := "audio/" + string(res.DocID) + ".mp3"
	w.blobs.m = map[string][]byte{key: []byte("MP3 5 1")}
	stored(t, w, uc, res.DocID, key, 7)
	if j := w.job(res.DocID); j.Status != domain.StatusFailed || j.BlobKey != "" {
		t.Fatalf("%s key %q", j.Status, j.BlobKey)
	}
	if w.blobs.Len() != 0 {
		t.Fatal("an object no job uses was kept")
	}
}

func TestStoredUploadOfAnUnknownJobOrOtherEventIsIgnored(t *testing.T) {
	w := newWorld(t)
	uc := app.NewCompleteStoredUpload(w.store, w.blobs, w.clock, 1<<20, nil)
	stored(t, w, uc, "no-such-job", "", 7)
	if err := uc.Handle(context.Background(), domain.Event{Type: "storage.ignored"}); err != nil {
		t.Fatal(err)
	}
}
