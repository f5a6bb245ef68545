package porttest

import (
	"reflect"
	"testing"

	"github.com/hyscribe/hyscribe/domain"
)

// pieceTests are the contract of ports.RecognizedPieces.
var pieceTests = []subtest{
	{"SaveReadReplaceDrop", func(t *testing.T, s Stores) {
		acct := newAccount(t, s, "acc", 60_000)
		j, evs := uploadingJob("doc-1", acct.ID, t0)
		createJob(t, s, j, evs)
		other, otherEvs := uploadingJob("doc-2", acct.ID, t0)
		createJob(t, s, other, otherEvs)
		if got := must(s.RecognizedPieces(ctxOf(t), j.ID)); len(got) != 0 {
			t.Fatalf("a new job has pieces: %s", dump(got))
		}
		first := domain.Recognition{Text: "Բարև ձեզ", Language: "hy", Duration: 29.5,
			Segments: []domain.Segment{{Start: 0.25, End: 1.5, Text: "Բարև ձեզ", Speaker: "A"}},
			Words:    []domain.Word{{Start: 0.25, End: 0.75, Word: "Բարև"}, {Start: 0.8, End: 1.5, Word: "ձեզ"}}}
		second := domain.Recognition{Text: "ցտեսություն"}
		noErr(t, s.SavePiece(ctxOf(t), j.ID, "audio.mp3@0.000-29.500", first, t0))
		noErr(t, s.SavePiece(ctxOf(t), j.ID, "audio.mp3@29.500-60.000", domain.Recognition{Text: "old"}, t0))
		noErr(t, s.SavePiece(ctxOf(t), j.ID, "audio.mp3@29.500-60.000", second, t0)) // a repeat replaces
		noErr(t, s.SavePiece(ctxOf(t), other.ID, "audio.mp3@0.000-29.500", second, t0))
		want := map[string]domain.Recognition{"audio.mp3@0.000-29.500": first, "audio.mp3@29.500-60.000": second}
		if got := must(s.RecognizedPieces(ctxOf(t), j.ID)); !reflect.DeepEqual(got, want) {
			t.Fatalf("pieces %s, want %s", dump(got), dump(want))
		}
		noErr(t, s.DropPieces(ctxOf(t), j.ID))
		if got := must(s.RecognizedPieces(ctxOf(t), j.ID)); len(got) != 0 {
			t.Fatalf("dropped pieces came back: %s", dump(got))
		}
		if got := must(s.RecognizedPieces(ctxOf(t), other.ID)); len(got) != 1 {
			t.Fatalf("dropping one job's pieces touched another's: %s", dump(got))
		}
	}},
	{"NothingKeptForAMissingJob", func(t *testing.T, s Stores) {
		noErr(t, s.SavePiece(ctxOf(t), "no-such", "audio.mp3@0.000-1.000", domain.Recognition{Text: "x"}, t0))
		if got := must(s.RecognizedPieces(ctxOf(t), "no-such")); len(got) != 0 {
			t.Fatalf("pieces kept for a missing job: %s", dump(got))
		}
	}},
}
