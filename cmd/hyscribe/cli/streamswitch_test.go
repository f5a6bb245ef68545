package cli_test

import (
	"bytes"
	"context"
	"math"
	"os"
	"os/exec"
	"path/filepath"
	"strings"
	"testing"
	"time"

	"github.com/hyscribe/hyscribe/adapters/asr/asrtest"
	"github.com/hyscribe/hyscribe/adapters/mp3"
	"github.com/hyscribe/hyscribe/adapters/sqlite"
	"github.com/hyscribe/hyscribe/client"
	"github.com/hyscribe/hyscribe/domain"
	"github.com/hyscribe/hyscribe/internal/testenv"
)

// lameMP3 encodes a generated WAV with LAME (installed by .ci/deps.sh).
func lameMP3(t *testing.T, wav []byte, args ...string) []byte {
	t.Helper()
	testenv.LookPath(t, "lame", "apt-get install lame; .ci/deps.sh does")
	dir := t.TempDir()
	in, out := filepath.Join(dir, "in.wav"), filepath.Join(dir, "out.mp3")
	if err := os.WriteFile(in, wav, 0o644); err != nil {
		t.Fatal(err)
	}
	if b, err := exec.Command("lame", append(append([]string{"--quiet"}, args...), in, out)...).CombinedOutput(); err != nil {
		t.Fatalf("lame: %v: %s", err, b)
	}
	b, err := os.ReadFile(out)
	if err != nil {
		t.Fatal(err)
	}
	return b
}

// TestBillingChargesExactlyWhatTheEngineHears is issue 24's "pay for
// 0.8 s, get 31 s transcribed" (and issue 21's streams that change
// mid-file) through the real service: what is charged and limited is
// exactly what is sent to the speech engine.
//
//   - A 0.6 s 8 kHz MP3 with 30 s of 16 kHz MP3 joined behind it with cat
//     (single_voice, sent to the engine as the file itself), and a mono
//     MP3 followed by a stereo one (phone_call), are refused before any
//     charge: the job fails with a reason naming both formats, the balance
//     is untouched and the engine never receives a request.
//   - Two 30 s MP3s of one format joined with cat are measured whole: the
//     balance goes down by the job's duration, and the file the engine
//     receives lasts exactly that duration.
func TestBillingChargesExactlyWhatTheEngineHears(t *testing.T) {
	if testing.Short() {
		t.Skip("starts the whole service")
	}
	speech := []asrtest.Tone{{Start: 1, End: 3}, {Start: 5, End: 8}, {Start: 12, End: 15}, {Start: 20, End: 25}}
	header8k := lameMP3(t, asrtest.WAV(8000, 1, 0.6, asrtest.Tone{Start: 0.1, End: 0.5}), "-m", "m", "-b", "16")
	long16k := lameMP3(t, asrtest.WAV(16000, 1, 30, speech...), "-m", "m", "-b", "32")
	mono22k := lameMP3(t, asrtest.WAV(22050, 1, 3, asrtest.Tone{Start: 0.5, End: 2.5}), "-m", "m", "-b", "32")
	stereo22k := lameMP3(t, asrtest.WAV(22050, 2, 3, asrtest.Tone{Start: 0.5, End: 2.5, Channel: 1}), "-m", "s", "-b", "64")
	join := func(parts ...[]byte) []byte { return bytes.Join(parts, nil) }

	vars, acctID, key, svc, engine := engineService(t, nil)
	ctx := context.Background()
	st, err := sqlite.Open(ctx, filepath.Join(vars["HYSCRIBE_DATA_DIR"], "hyscribe.db"))
	if err != nil {
		t.Fatal(err)
	}
	defer st.Close()
	balance := func() int64 {
		t.Helper()
		a, err := st.GetAccount(ctx, domain.AccountID(acctID))
		if err != nil {
			t.Fatal(err)
		}
		return a.BalanceMs
	}
	c := client.New("http://"+svc.HTTPAddr(), key)
	c.PollInterval = 100 * time.Millisecond
	run := func(typ client.JobType, audio []byte) client.Job {
		t.Helper()
		created, err := c.Create(ctx, client.CreateRequest{Type: typ})
		if err != nil {
			t.Fatal(err)
		}
		if err := c.Upload(ctx, created.UploadURL, bytes.NewReader(audio), int64(len(audio))); err != nil {
			t.Fatal(err)
		}
		wctx, cancel := context.WithTimeout(ctx, time.Minute)
		defer cancel()
		j, err := c.Wait(wctx, created.DocID, nil)
		if err != nil {
			t.Fatal(err)
		}
		return j
	}

	for _, r := range []struct {
		name  string
		typ   client.JobType
		audio []byte
		want  string
	}{
		{"0.6 s at 8 kHz, then 30 s at 16 kHz", client.SingleVoice, join(header8k, long16k),
			"the MP3 file changes format after 0.8 s, from 8 kHz mono MPEG-2.5 layer III to 16 kHz mono MPEG-2 layer III"},
		{"mono, then stereo", client.PhoneCall, join(mono22k, stereo22k),
			"the MP3 file changes format after 3.1 s, from 22.05 kHz mono MPEG-2 layer III to 22.05 kHz stereo MPEG-2 layer III"},
	} {
		before, requests := balance(), engine.Requests()
		j := run(r.typ, r.audio)
		if j.Status != client.StatusFailed || j.Error == nil || !strings.HasPrefix(*j.Error, r.want) {
			t.Errorf("%s: status %s, error %v; want failed with %q…", r.name, j.Status, derefString(j.Error), r.want)
		}
		if j.Duration != nil {
			t.Errorf("%s: duration %v measured for a refused file", r.name, *j.Duration)
		}
		if after := balance(); after != before {
			t.Errorf("%s: balance went from %d to %d ms for a refused file", r.name, before, after)
		}
		if n := engine.Requests(); n != requests {
			t.Errorf("%s: the engine received %d requests for a refused file", r.name, n-requests)
		}
	}

	// (The change is placed by the frames before it: LAME pads 0.6 s to 0.8 s.)

	// One format joined with cat: all of it measured, charged and heard.
	before, requests := balance(), engine.Requests()
	j := run(client.SingleVoice, join(long16k, long16k))
	if j.Status != client.StatusTranscribed || j.Duration == nil {
		t.Fatalf("two 16 kHz files joined: status %s, error %v", j.Status, derefString(j.Error))
	}
	if *j.Duration < 59.9 || *j.Duration > 60.2 {
		t.Errorf("two 30 s files joined measured %.3f s", *j.Duration)
	}
	if charged := before - balance(); charged != int64(math.Ceil(*j.Duration*1000)) {
		t.Errorf("charged %d ms for %.3f s", charged, *j.Duration)
	}
	if n := engine.Requests() - requests; n != 1 {
		t.Fatalf("the engine received %d requests, want the file whole", n)
	}
	sent := engine.LastRequest().Audio
	heard, err := mp3.Prober{}.Probe(ctx, bytes.NewReader(sent))
	if err != nil || heard.Duration != *j.Duration {
		t.Errorf("the engine received %.3f s (%v), the job was charged %.3f s", heard.Duration, err, *j.Duration)
	}
}

func derefString(s *string) string {
	if s == nil {
		return "<nil>"
	}
	return *s
}
