// Command evaldiarize measures the built-in diarizer (adapters/diarize) on
// synthetic two-speaker phone calls and prints the diarization error rate
// (DER) per condition. `make eval` runs it.
//
// Calls are made with Debian's tools: espeak-ng speaks every turn with the
// Armenian voice "hy" and a per-speaker variant, pitch and speed; sox trims,
// resamples to 16 kHz, places the turns with pauses or overlaps (pad) and
// mixes them (-m), adding white noise for the noisy condition; lame encodes
// the call as a mono MP3, which goes through the service's own decoder
// (mp3.Splitter) before the diarizer sees it, exactly as in a job. The known
// turns are the trimmed utterances' positions.
//
// Conditions: clean (alternating turns with 0.3–0.8 s pauses), noise (the
// same calls with white noise about 20 dB below the speech), loud-noise
// (about 10 dB below) and backchannel
// (clean calls with short "Այո։"/"Հա։" turns, some overlapping the other
// speaker). DER is scored with a 0.25 s collar, as is customary. Each call
// is also formatted as a transcript (words spread over the known turns,
// assigned to the diarizer's speakers) and checked for exactly two labels in
// the right order of turns.
package main

import (
	"context"
	"flag"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"

	"github.com/hyscribe/hyscribe/adapters/diarize"
	"github.com/hyscribe/hyscribe/adapters/mp3"
	"github.com/hyscribe/hyscribe/domain"
)

type voice struct{ name, pitch, speed string }

type line struct {
	speaker int // 0 or 1
	text    string
	gap     float64 // seconds after the previous turn's end; negative overlaps it
}

// pairs of voices: a lower and a higher one, as in most calls.
var pairs = [][2]voice{
	{{"hy+m3", "35", "160"}, {"hy+f2", "70", "150"}},
	{{"hy+m1", "45", "150"}, {"hy+f4", "60", "165"}},
	{{"hy", "50", "155"}, {"hy+f1", "65", "145"}},
	{{"hy+m7", "30", "170"}, {"hy+m2", "60", "150"}},
}

var dialogue = []line{
	{0, "Բարև ձեզ, ընկերության սպասարկման կենտրոնն է, ինչով կարող եմ օգնել։", 0},
	{1, "Բարև ձեզ, ես երեկ պատվեր եմ տվել, բայց դեռ ոչ մի տեղեկություն չեմ ստացել։", 0.5},
	{0, "Խնդրում եմ ասեք պատվերի համարը և ձեր անունը։", 0.4},
	{1, "Պատվերի համարը տասներկու հազար երեք հարյուր է, անունս Անի Սարգսյան։", 0.6},
	{0, "Շնորհակալություն, մի րոպե սպասեք, ստուգում եմ։ Ձեր պատվերը պատրաստ է և վաղը կառաքվի։", 0.7},
	{1, "Իսկ կարո՞ղ եք ասել, թե ժամը քանիսին կբերեն։", 0.3},
	{0, "Առաքիչը կզանգի ձեզ առավոտյան, ժամը տասից տասներկուսի միջև։", 0.5},
	{1, "Շատ լավ, շնորհակալություն օգնության համար։", 0.4},
	{0, "Խնդրեմ, եթե այլ հարցեր ունենաք, զանգահարեք մեզ։ Ցտեսություն։", 0.6},
	{1, "Ցտեսություն։", 0.3},
}

// backchannels are inserted after these dialogue lines, spoken by the other
// speaker, overlapping the end of the line when gap < 0.
var backchannels = map[int]line{
	0: {1, "Այո։", 0.2},
	2: {1, "Հա։", -0.25},
	4: {1, "Այո, այո։", 0.25},
	6: {1, "Լավ։", -0.2},
}

type condition struct {
	name         string
	noise        float64 // white noise amplitude (sox vol); 0 for none
	backchannels bool
}

var conditions = []condition{
	{"clean", 0, false},
	{"noise", 0.02, false},      // about 20 dB below the speech
	{"loud-noise", 0.06, false}, // about 10 dB below the speech
	{"backchannel", 0, true},
}

func main() {
	keep := flag.String("keep", "", "directory to keep the generated calls in (default: a temporary one)")
	collar := flag.Float64("collar", 0.25, "DER collar in seconds")
	verbose := flag.Bool("v", false, "print every call's DER and turns")
	flag.Parse()
	for _, tool := range []string{"espeak-ng", "sox", "lame"} {
		if _, err := exec.LookPath(tool); err != nil {
			fail(fmt.Errorf("%s is not installed (make eval installs it with .ci/eval-deps.sh)", tool))
		}
	}
	dir := *keep
	if dir == "" {
		d, err := os.MkdirTemp("", "evaldiarize-")
		if err != nil {
			fail(err)
		}
		defer os.RemoveAll(d)
		dir = d
	}
	if err := os.MkdirAll(dir, 0o755); err != nil {
		fail(err)
	}
	ctx := context.Background()
	fmt.Printf("%-12s %5s %9s %8s %8s %8s %8s  %s\n", "condition", "calls", "speech s", "missed", "false", "confused", "DER", "transcripts with 2 labels in order")
	allOK := true
	for _, c := range conditions {
		var sum diarize.DERResult
		ordered := 0
		for i, p := range pairs {
			name := filepath.Join(dir, fmt.Sprintf("%s-%d", c.name, i+1))
			ref, err := makeCall(name, p, c, int64(i))
			if err != nil {
				fail(err)
			}
			hyp, err := diarizeMP3(ctx, name+".mp3", dir)
			if err != nil {
				fail(err)
			}
			r := diarize.DER(ref, hyp, *collar)
			sum.Scored += r.Scored
			sum.Missed += r.Missed
			sum.FalseAlarm += r.FalseAlarm
			sum.Confusion += r.Confusion
			inOrder := transcriptInOrder(ref, hyp)
			if inOrder {
				ordered++
			}
			if *verbose {
				fmt.Printf("  %s: DER %.1f%% (confusion %.1f%%), in order: %v\n    ref %v\n    hyp %v\n", filepath.Base(name), 100*r.Rate(), 100*r.Confusion/r.Scored, inOrder, ref, hyp)
			}
		}
		ok := ordered == len(pairs)
		allOK = allOK && ok
		fmt.Printf("%-12s %5d %9.1f %7.1f%% %7.1f%% %7.1f%% %7.1f%%  %d/%d\n", c.name, len(pairs), sum.Scored,
			100*sum.Missed/sum.Scored, 100*sum.FalseAlarm/sum.Scored, 100*sum.Confusion/sum.Scored, 100*sum.Rate(), ordered, len(pairs))
	}
	if !allOK {
		fmt.Println("some transcripts did not come out with two labels in the right order")
	}
}

func fail(err error) {
	fmt.Fprintln(os.Stderr, "evaldiarize:", err)
	os.Exit(1)
}

func run(name string, args ...string) (string, error) {
	out, err := exec.Command(name, args...).CombinedOutput()
	if err != nil {
		return "", fmt.Errorf("%s %s: %w: %s", name, strings.Join(args, " "), err, out)
	}
	return strings.TrimSpace(string(out)), nil
}

// makeCall writes name.mp3 and returns its known turns.
func makeCall(name string, p [2]voice, c condition, seed int64) ([]domain.Turn, error) {
	var lines []line
	for i, l := range dialogue {
		lines = append(lines, l)
		if b, ok := backchannels[i]; ok && c.backchannels {
			lines = append(lines, b)
		}
	}
	var ref []domain.Turn
	var parts []string
	at := 0.3 // the call starts with a little silence
	prevEnd := at
	for i, l := range lines {
		v := p[l.speaker]
		raw := fmt.Sprintf("%s-%02d-raw.wav", name, i)
		utt := fmt.Sprintf("%s-%02d.wav", name, i)
		if _, err := run("espeak-ng", "-v", v.name, "-p", v.pitch, "-s", v.speed, "-w", raw, l.text); err != nil {
			return nil, err
		}
		// Trim the voice's own leading and trailing silence, so the known
		// turn is where the speech is; 16 kHz mono like the service's.
		if _, err := run("sox", "-R", raw, "-r", "16000", "-c", "1", "-b", "16", utt,
			"silence", "1", "0.02", "0.5%", "reverse", "silence", "1", "0.02", "0.5%", "reverse"); err != nil {
			return nil, err
		}
		d, err := run("soxi", "-D", utt)
		if err != nil {
			return nil, err
		}
		dur, err := strconv.ParseFloat(d, 64)
		if err != nil {
			return nil, fmt.Errorf("soxi %s: %w", utt, err)
		}
		start := prevEnd + l.gap
		if i == 0 {
			start = at
		}
		// Jitter pauses a little per call so calls differ.
		start += float64((seed*7+int64(i)*13)%5) * 0.02
		padded := fmt.Sprintf("%s-%02d-pad.wav", name, i)
		if _, err := run("sox", "-R", utt, padded, "pad", fmt.Sprintf("%.3f", start), "0"); err != nil {
			return nil, err
		}
		parts = append(parts, padded)
		ref = append(ref, domain.Turn{Start: start, End: start + dur, Speaker: strconv.Itoa(l.speaker + 1)})
		if l.gap >= 0 || start+dur > prevEnd {
			prevEnd = max(prevEnd, start+dur)
		}
		os.Remove(raw)
		os.Remove(utt)
	}
	total := prevEnd + 0.5
	// sox -m scales every input by 1/n unless told otherwise: keep levels.
	args := []string{"-R", "-m"}
	for _, p := range parts {
		args = append(args, "-v", "1", p)
	}
	if c.noise > 0 {
		noise := name + "-noise.wav"
		if _, err := run("sox", "-R", "-n", "-r", "16000", "-c", "1", "-b", "16", noise, "synth", fmt.Sprintf("%.3f", total), "whitenoise", "vol", fmt.Sprintf("%.3f", c.noise)); err != nil {
			return nil, err
		}
		args = append(args, "-v", "1", noise)
		defer os.Remove(noise)
	}
	wav := name + ".wav"
	args = append(args, wav, "trim", "0", fmt.Sprintf("%.3f", total))
	if _, err := run("sox", args...); err != nil {
		return nil, err
	}
	for _, p := range parts {
		os.Remove(p)
	}
	if _, err := run("lame", "--quiet", "-m", "m", "-b", "32", wav, name+".mp3"); err != nil {
		return nil, err
	}
	os.Remove(wav)
	return ref, nil
}

// diarizeMP3 decodes the call as a job would and diarizes it.
func diarizeMP3(ctx context.Context, path, dir string) ([]domain.Turn, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, err
	}
	defer f.Close()
	tmp, err := os.MkdirTemp(dir, "decoded-")
	if err != nil {
		return nil, err
	}
	defer os.RemoveAll(tmp)
	paths, err := mp3.Splitter{}.SplitChannels(ctx, f, tmp)
	if err != nil {
		return nil, err
	}
	return diarize.New().Diarize(ctx, paths[0])
}

// transcriptInOrder formats the call as the service would, with one word
// per known turn at its middle, and checks the labels follow the known
// turns (back-channels overlapping another turn excepted: a transcript has
// one line at a time).
func transcriptInOrder(ref, hyp []domain.Turn) bool {
	var words []domain.Word
	var want []string
	for i, t := range ref {
		overlapped := i > 0 && t.Start < ref[i-1].End
		if overlapped {
			continue
		}
		mid := (t.Start + t.End) / 2
		words = append(words, domain.Word{Start: mid - 0.1, End: mid + 0.1, Word: "բառ" + t.Speaker})
		want = append(want, t.Speaker)
	}
	text := domain.FormatPhoneCall(domain.NumberSpeakers(domain.AssignSpeakers(nil, words, hyp)))
	labels := map[string]bool{}
	var got []string
	for _, l := range strings.Split(text, "\n") {
		label, _, _ := strings.Cut(l, ":")
		labels[label] = true
		got = append(got, label)
	}
	// Merge consecutive turns of one known speaker, as the transcript does.
	var wantTurns []string
	for _, s := range want {
		if n := len(wantTurns); n == 0 || wantTurns[n-1] != s {
			wantTurns = append(wantTurns, s)
		}
	}
	if len(labels) != 2 || len(got) != len(wantTurns) {
		return false
	}
	first := map[string]string{}
	for i, s := range wantTurns {
		if l, ok := first[s]; ok && l != got[i] {
			return false
		}
		first[s] = got[i]
	}
	return first["1"] != first["2"]
}
