package cli_test

import (
	"bytes"
	"context"
	"encoding/json"
	"os"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/hyscribe/hyscribe/client"
	"github.com/hyscribe/hyscribe/cmd/hyscribe/cli"
)

// exportedWord is a word of the JSON export.
type exportedWord struct {
	Start, End float64
	Speaker    *string
	Word       string
}

// phoneCall runs a phone_call fixture through the service and returns the
// job, its exported words and what `hyscribe job show` prints.
func phoneCall(t *testing.T, c *client.Client, getenv func(string) string, fixture string) (client.Job, []exportedWord, string) {
	t.Helper()
	return phoneCallOf(t, c, getenv, fixture, client.PhoneCall)
}

// phoneCallOf is phoneCall for a job of type typ.
func phoneCallOf(t *testing.T, c *client.Client, getenv func(string) string, fixture string, typ client.JobType) (client.Job, []exportedWord, string) {
	t.Helper()
	ctx := context.Background()
	audio, err := os.ReadFile(filepath.Join("..", "..", "..", "testdata", "audio", fixture))
	if err != nil {
		t.Fatal(err)
	}
	created, err := c.Create(ctx, client.CreateRequest{Type: typ})
	if err != nil {
		t.Fatal(err)
	}
	if err := c.Upload(ctx, created.UploadURL, bytes.NewReader(audio), int64(len(audio))); err != nil {
		t.Fatal(err)
	}
	wctx, cancel := context.WithTimeout(ctx, 2*time.Minute)
	defer cancel()
	j, err := c.Wait(wctx, created.DocID, nil)
	if err != nil {
		t.Fatal(err)
	}
	if j.Status != client.StatusTranscribed {
		t.Fatalf("%s: %s (%s)", fixture, j.Status, derefString(j.Error))
	}
	doc, err := c.Export(ctx, created.DocID, client.FormatJSON)
	if err != nil {
		t.Fatal(err)
	}
	var parsed struct{ Words []exportedWord }
	if err := json.Unmarshal(doc, &parsed); err != nil {
		t.Fatal(err)
	}
	var out, errb bytes.Buffer
	if err := cli.Run(ctx, []string{"job", "show", "--doc", created.DocID}, getenv, &out, &errb); err != nil {
		t.Fatalf("job show: %v\n%s", err, errb.String())
	}
	return j, parsed.Words, out.String()
}

// The turns of call-mono-16k.mp3 (testdata/audio/README.md) as they fall
// in the stereo fixtures made from it: the mono file's encoder delay, kept
// by FFmpeg's decoding, moves them by 0.069 s; the new LAME tag's is
// trimmed.
var fakeStereoTurns = []struct {
	start, end float64
	speaker    int
}{{0.30, 4.79, 1}, {5.39, 10.22, 2}, {10.82, 12.96, 1}, {13.56, 16.48, 2}}

// TestStereoThatIsReallyMonoIsDiarizedAsMono runs, through the real
// service (real decoder, channel inspector, diarizer and the fake engine
// that hears every stretch of sound), the two-speaker call of
// call-mono-16k.mp3 written as stereo the way recorders do: the same mix on
// both channels, and the mix beside a silent channel. Each must come out as
// the mono call does: every word once (no word twice, once per channel),
// two speakers, each word with the speaker of its turn; and the job's
// history says why. A genuine two-speaker stereo call keeps one speaker
// per channel and no note.
func TestStereoThatIsReallyMonoIsDiarizedAsMono(t *testing.T) {
	if testing.Short() {
		t.Skip("starts the whole service")
	}
	vars, _, key, svc := clientService(t, nil)
	c := client.New("http://"+svc.HTTPAddr(), key)
	c.PollInterval = 100 * time.Millisecond
	getenv := env(vars)

	// The silent channel's level is what FFmpeg decodes of LAME's near-silence
	// (the last bit of its output), 75 dB below the speech: far under the
	// inspector's -40 dB and the same on every run of the same decoder.
	for fixture, note := range map[string]string{
		"call-dualmono-16k.mp3":  "stereo recording with the same audio on both channels (correlation 1.00): diarized as mono",
		"call-onesilent-16k.mp3": "stereo recording with the right channel silent (-75 dB below the left): diarized as mono from the left channel",
	} {
		t.Run(fixture, func(t *testing.T) {
			_, words, shown := phoneCall(t, c, getenv, fixture)
			if len(words) < 8 {
				t.Fatalf("%d words: %+v", len(words), words)
			}
			labelOf := map[int]map[string]int{1: {}, 2: {}} // turn speaker → labels given
			for i, w := range words {
				if i > 0 && w.Start < words[i-1].End-0.001 {
					t.Errorf("words %d and %d overlap (a word heard twice, once per channel?): %+v %+v", i-1, i, words[i-1], w)
				}
				if w.Speaker == nil {
					t.Fatalf("word %+v has no speaker", w)
				}
				mid := (w.Start+w.End)/2 - 0.069
				for _, tr := range fakeStereoTurns {
					if mid >= tr.start-0.3 && mid <= tr.end+0.3 {
						labelOf[tr.speaker][*w.Speaker]++
					}
				}
			}
			t.Logf("labels by turn speaker: %v", labelOf)
			if len(labelOf[1]) != 1 || len(labelOf[2]) != 1 {
				t.Errorf("each speaker's turns should carry one label: %v", labelOf)
			}
			for l := range labelOf[1] {
				if labelOf[2][l] > 0 {
					t.Errorf("both speakers got label %q: %v", l, labelOf)
				}
			}
			if !strings.Contains(shown, `"note": "`+note+`"`) && !strings.Contains(shown, `"note":"`+note+`"`) {
				t.Errorf("job show does not note %q:\n%s", note, shown)
			}
		})
	}

	t.Run("genuine stereo", func(t *testing.T) {
		_, words, shown := phoneCall(t, c, getenv, "call-stereo-22k.mp3")
		labels := map[string]bool{}
		for _, w := range words {
			labels[*w.Speaker] = true
		}
		if len(labels) != 2 || strings.Contains(shown, "diarized as mono") {
			t.Errorf("a two-speaker stereo call: labels %v, job show:\n%s", labels, shown)
		}
	})
}
