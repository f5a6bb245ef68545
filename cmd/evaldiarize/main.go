// Command evaldiarize measures the built-in diarizer (adapters/diarize) on
// synthetic two-speaker phone calls and prints, per condition, the
// diarization error rate (DER), the share of words the transcript gives the
// right speaker, the boundary error at each change of speaker and the
// diarization's CPU time per audio minute. `make eval` runs it.
//
// Calls are made with Debian's tools: espeak-ng speaks every turn with the
// Armenian voice "hy" and a per-speaker variant, pitch and speed; sox trims,
// resamples to 16 kHz, places the turns with pauses or overlaps (pad) and
// mixes them (-m), adding white or pink noise for the noisy conditions;
// lame encodes the call as a mono MP3, which goes through the service's own
// decoder (mp3.Splitter) before the diarizer sees it, exactly as in a job.
// The known turns are the trimmed utterances' positions; the known words
// are spread over their turn in proportion to their letters (eSpeak does
// not report word times), and go through domain.AssignSpeakers as an
// engine's words would.
//
// Conditions (docs/quality.md has the table): distinct voices (a lower and
// a higher one) clean, in white noise at about 23 and 14 dB SNR, in pink
// noise at about 6 dB, with back-channels (some overlapping), as a 20-turn
// call with turns under a second, and with quick turn-taking (pauses of
// 0.08–0.16 s, which the voice-activity detector bridges); close voices of
// one gender (two male, two female, pitches a few eSpeak steps apart) in
// the 10- and 20-turn calls, with quick turn-taking and in noise. -heldout
// swaps the close pairs for others the diarizer was not tuned on.
//
// Call-centre conditions (issue 21): the telephone band (300–3400 Hz) at
// 8 kHz encoded as MPEG-2.5, distinct and close pairs; 12 s of music on
// hold at the start and in the middle; the call as dual-mono stereo and
// beside a silent channel (split, inspected and diarized as the transcribe
// stage does); a 30-minute call; and voices built from real speakers'
// recordings: Debian's flite voices (slt, awb, rms, kal) speaking the call
// in English, and Debian's MBROLA voices (us1, us2, us3, en1; contrib and
// non-free) through eSpeak NG's mb-* voices and Festival's rab, ked and
// HTS slt voices, held-out sets. DER is
// scored with a 0.25 s collar, as is customary. Each call is also
// formatted as a transcript and checked for exactly two labels in the
// right order of turns.
package main

import (
	"context"
	"encoding/json"
	"flag"
	"fmt"
	"math"
	"os"
	"os/exec"
	"path/filepath"
	"slices"
	"strconv"
	"strings"
	"syscall"
	"time"
	"unicode/utf8"

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

// distinct pairs of voices: a lower and a higher one, as in most calls.
var distinct = [][2]voice{
	{{"hy+m3", "35", "160"}, {"hy+f2", "70", "150"}},
	{{"hy+m1", "45", "150"}, {"hy+f4", "60", "165"}},
	{{"hy", "50", "155"}, {"hy+f1", "65", "145"}},
	{{"hy+m7", "30", "170"}, {"hy+m2", "60", "150"}},
}

// closeMale and closeFemale are pairs of one gender whose pitches differ by
// 5–8 eSpeak steps (a few Hz): the hard case for a diarizer without models.
var closeMale = [][2]voice{
	{{"hy+m3", "40", "160"}, {"hy+m1", "48", "150"}},
	{{"hy", "45", "155"}, {"hy+m2", "50", "165"}},
	{{"hy+m7", "40", "150"}, {"hy+m4", "46", "160"}},
}

var closeFemale = [][2]voice{
	{{"hy+f2", "65", "150"}, {"hy+f4", "72", "160"}},
	{{"hy+f1", "60", "155"}, {"hy+f3", "66", "150"}},
	{{"hy+f5", "70", "145"}, {"hy+f2", "75", "160"}},
}

// heldOutMale and heldOutFemale replace the close pairs with -heldout:
// voices the diarizer's constants were not tuned on.
var heldOutMale = [][2]voice{
	{{"hy+m5", "42", "155"}, {"hy+m6", "49", "150"}},
	{{"hy+m2", "38", "150"}, {"hy+m3", "44", "165"}},
	{{"hy+m4", "50", "160"}, {"hy+m1", "55", "150"}},
}

var heldOutFemale = [][2]voice{
	{{"hy+f3", "68", "150"}, {"hy+f1", "74", "160"}},
	{{"hy+f4", "62", "155"}, {"hy+f5", "68", "150"}},
	{{"hy+f1", "72", "150"}, {"hy+f2", "78", "145"}},
}

// dialogue is a ten-turn call about a late order.
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

// longDialogue is a twenty-turn call about a tariff, with short turns
// (under a second: "Բարև։", "Խնդրեմ։", "Այո։", "Հա։") and pauses of
// 0.3–0.5 s, the case of the example.
var longDialogue = []line{
	{0, "Բարև ձեզ, բջջային կապի սպասարկման կենտրոնն է, լսում եմ ձեզ։", 0},
	{1, "Բարև։", 0.4},
	{0, "Ինչով կարող եմ օգնել։", 0.3},
	{1, "Ես ուզում եմ փոխել իմ սակագնային փաթեթը և միացնել ինտերնետը։", 0.4},
	{0, "Իհարկե, խնդրում եմ ասեք ձեր հեռախոսահամարը և անունը։", 0.3},
	{1, "Իննսունութ, տասներկու, երեսունչորս, հիսունվեց, Արամ Պետրոսյան։", 0.5},
	{0, "Շնորհակալություն։", 0.3},
	{1, "Խնդրեմ։", 0.4},
	{0, "Ձեր ներկայիս փաթեթը ամսական երեք հազար դրամ է։", 0.5},
	{1, "Այո։", 0.3},
	{0, "Կարող եմ առաջարկել նոր փաթեթ, որտեղ կա տասը գիգաբայթ ինտերնետ։", 0.4},
	{1, "Որքա՞ն արժե։", 0.3},
	{0, "Հինգ հազար դրամ ամսական։", 0.4},
	{1, "Լավ, համաձայն եմ։", 0.5},
	{0, "Փաթեթը կմիացվի այսօր երեկոյան։", 0.4},
	{1, "Հա։", 0.3},
	{0, "Էլ ինչով կարող եմ օգնել։", 0.4},
	{1, "Ոչ, շնորհակալություն։", 0.3},
	{0, "Բարի օր ձեզ։", 0.3},
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
	class        string // "distinct", "close", "flite", "mbrola" or "festival": which words-right target applies
	pairs        [][2]voice
	dialogue     []line
	noise        float64 // noise amplitude (sox vol); 0 for none
	pink         bool    // pink noise rather than white
	backchannels bool
	quick        float64 // > 0: every pause between turns is this (plus the jitter, up to 0.08 s)
	telephone    bool    // band-limited to 300–3400 Hz and encoded as 8 kHz MPEG-2.5, as telephony systems record
	music        string  // "start" or "middle": 12 s of music on hold there
	stereo       string  // "dual" (the call on both channels) or "onesilent" (beside a silent channel)
	minutes      float64 // > 0: the dialogue repeated to last this long, turns placed one after another
}

// The speech of a turn has an RMS of about 0.09 (sox stat); white noise
// at vol 0.02 has 0.0065 (SNR about 23 dB), at vol 0.06 0.0195 (about
// 14 dB); pink noise at vol 0.22 has 0.046 (about 6 dB).
var conditions = []condition{
	{name: "clean", class: "distinct", pairs: distinct, dialogue: dialogue},
	{name: "noise", class: "distinct", pairs: distinct, dialogue: dialogue, noise: 0.02},
	{name: "loud-noise", class: "distinct", pairs: distinct, dialogue: dialogue, noise: 0.06},
	{name: "pink-6db", class: "distinct", pairs: distinct, dialogue: dialogue, noise: 0.22, pink: true},
	{name: "backchannel", class: "distinct", pairs: distinct, dialogue: dialogue, backchannels: true},
	{name: "long-short", class: "distinct", pairs: distinct, dialogue: longDialogue},
	{name: "quick", class: "distinct", pairs: distinct, dialogue: longDialogue, quick: 0.08},
	{name: "close-male", class: "close", pairs: closeMale, dialogue: dialogue},
	{name: "close-male-long", class: "close", pairs: closeMale, dialogue: longDialogue},
	{name: "close-male-quick", class: "close", pairs: closeMale, dialogue: longDialogue, quick: 0.08},
	{name: "close-male-noise", class: "close", pairs: closeMale, dialogue: dialogue, noise: 0.02},
	{name: "close-female", class: "close", pairs: closeFemale, dialogue: dialogue},
	{name: "close-female-long", class: "close", pairs: closeFemale, dialogue: longDialogue},
	{name: "close-female-quick", class: "close", pairs: closeFemale, dialogue: longDialogue, quick: 0.08},
	// Call-centre audio (issue 21).
	{name: "telephone-8k", class: "distinct", pairs: distinct, dialogue: dialogue, telephone: true},
	{name: "music-start", class: "distinct", pairs: distinct, dialogue: dialogue, music: "start"},
	{name: "music-middle", class: "distinct", pairs: distinct, dialogue: dialogue, music: "middle"},
	{name: "dual-mono", class: "distinct", pairs: distinct, dialogue: dialogue, stereo: "dual"},
	{name: "one-silent", class: "distinct", pairs: distinct, dialogue: dialogue, stereo: "onesilent"},
	{name: "close-male-tel", class: "close", pairs: closeMale, dialogue: dialogue, telephone: true},
	{name: "close-female-tel", class: "close", pairs: closeFemale, dialogue: dialogue, telephone: true},
	{name: "flite", class: "flite", pairs: fliteDistinct, dialogue: dialogueEN},
	{name: "flite-tel", class: "flite", pairs: fliteDistinct, dialogue: dialogueEN, telephone: true},
	{name: "flite-male", class: "flite", pairs: fliteMale, dialogue: dialogueEN},
	{name: "flite-music", class: "flite", pairs: fliteDistinct, dialogue: dialogueEN, music: "middle"},
	{name: "call-30min", class: "distinct", pairs: distinct[:1], dialogue: longDialogue, minutes: 30},
	// Debian's MBROLA diphone voices (contrib and non-free), through
	// eSpeak NG's mb-* voices: never tuned on, so a held-out set.
	{name: "mbrola", class: "mbrola", pairs: mbrolaDistinct, dialogue: dialogueEN},
	{name: "mbrola-tel", class: "mbrola", pairs: mbrolaDistinct, dialogue: dialogueEN, telephone: true},
	{name: "mbrola-male", class: "mbrola", pairs: mbrolaMale, dialogue: dialogueEN},
	{name: "mbrola-male-tel", class: "mbrola", pairs: mbrolaMale, dialogue: dialogueEN, telephone: true},
	// Festival's voices (Debian main): also never tuned on.
	{name: "festival", class: "festival", pairs: festivalPairs, dialogue: dialogueEN},
	{name: "festival-tel", class: "festival", pairs: festivalPairs, dialogue: dialogueEN, telephone: true},
}

// festivalPairs are pairs of Festival's voices: rab (a British man's
// diphones), ked (a US man's diphones) and cmu_us_slt_arctic_hts (an HTS
// voice trained on CMU ARCTIC's slt, a US woman); the third pair is two men.
var festivalPairs = [][2]voice{
	{{"festival:cmu_us_slt_arctic_hts", "", ""}, {"festival:rab_diphone", "", ""}},
	{{"festival:ked_diphone", "", ""}, {"festival:cmu_us_slt_arctic_hts", "", ""}},
	{{"festival:rab_diphone", "", ""}, {"festival:ked_diphone", "", ""}},
}

// mbrolaDistinct and mbrolaMale are pairs of Debian's MBROLA voices, each
// a diphone database recorded by one real speaker (us1 a US woman, us2 and
// us3 US men, en1 a British man), spoken through eSpeak NG (mb-us1, …).
var mbrolaDistinct = [][2]voice{
	{{"mb-us1", "", ""}, {"mb-us2", "", ""}},
	{{"mb-us3", "", ""}, {"mb-us1", "", ""}},
	{{"mb-us1", "", ""}, {"mb-en1", "", ""}},
}

var mbrolaMale = [][2]voice{
	{{"mb-us2", "", ""}, {"mb-us3", "", ""}},
	{{"mb-us3", "", ""}, {"mb-en1", "", ""}},
	{{"mb-en1", "", ""}, {"mb-us2", "", ""}},
}

// fliteDistinct and fliteMale are pairs of Debian's flite voices, built
// from recordings of real speakers (CMU ARCTIC: slt a US woman, awb a
// Scottish man, rms a US man; kal a US man's diphones). They speak English:
// dialogueEN, the ten-turn call translated.
var fliteDistinct = [][2]voice{
	{{"flite:slt", "", ""}, {"flite:awb", "", ""}},
	{{"flite:rms", "", ""}, {"flite:slt", "", ""}},
	{{"flite:slt", "", ""}, {"flite:kal", "", ""}},
}

var fliteMale = [][2]voice{
	{{"flite:awb", "", ""}, {"flite:rms", "", ""}},
	{{"flite:rms", "", ""}, {"flite:kal", "", ""}},
	{{"flite:kal", "", ""}, {"flite:awb", "", ""}},
}

var dialogueEN = []line{
	{0, "Hello, this is the customer service centre, how can I help you?", 0},
	{1, "Hello, I placed an order yesterday, but I have not heard anything yet.", 0.5},
	{0, "Please tell me the order number and your name.", 0.4},
	{1, "The order number is twelve thousand three hundred, my name is Ani Sargsyan.", 0.6},
	{0, "Thank you, one moment please, I am checking. Your order is ready and will ship tomorrow.", 0.7},
	{1, "Can you tell me what time they will bring it?", 0.3},
	{0, "The courier will call you in the morning, between ten and twelve.", 0.5},
	{1, "Very good, thank you for your help.", 0.4},
	{0, "You are welcome, if you have other questions, call us. Goodbye.", 0.6},
	{1, "Goodbye.", 0.3},
}

// score is what one condition (or class) adds up.
type score struct {
	der               diarize.DERResult
	words, wordsRight int
	boundaries        []float64 // seconds, one per change of speaker found
	changes, missed   int       // changes of speaker in the reference; not found within maxMiss
	calls, ordered    int
}

func (s *score) add(o score) {
	s.der.Scored += o.der.Scored
	s.der.Missed += o.der.Missed
	s.der.FalseAlarm += o.der.FalseAlarm
	s.der.Confusion += o.der.Confusion
	s.words += o.words
	s.wordsRight += o.wordsRight
	s.boundaries = append(s.boundaries, o.boundaries...)
	s.changes += o.changes
	s.missed += o.missed
	s.calls += o.calls
	s.ordered += o.ordered
}

// telKbps is the bitrate of the 8 kHz telephone conditions' MP3s.
var telKbps = flag.String("telkbps", "16", "bitrate (kbit/s) of the 8 kHz telephone-band MP3s")

func main() {
	keep := flag.String("keep", "", "directory to keep the generated calls in (default: a temporary one)")
	collar := flag.Float64("collar", 0.25, "DER collar in seconds")
	verbose := flag.Bool("v", false, "print every call's DER and turns")
	only := flag.String("only", "", "run only the conditions whose name contains this")
	reuse := flag.Bool("reuse", false, "with -keep: reuse the calls a previous run kept instead of making them again")
	heldOut := flag.Bool("heldout", false, "use the held-out close pairs (voices the diarizer was not tuned on)")
	flag.Parse()
	if *heldOut {
		for i := range conditions {
			switch {
			case strings.HasPrefix(conditions[i].name, "close-male"):
				conditions[i].pairs = heldOutMale
			case strings.HasPrefix(conditions[i].name, "close-female"):
				conditions[i].pairs = heldOutFemale
			}
			conditions[i].name = strings.Replace(conditions[i].name, "close", "heldout", 1)
		}
	}
	for _, tool := range []string{"espeak-ng", "sox", "soxi", "lame", "flite", "text2wave"} {
		if _, err := exec.LookPath(tool); err != nil {
			fail(fmt.Errorf("%s is not installed (make eval installs it with .ci/eval-deps.sh)", tool))
		}
	}
	for _, v := range []string{"us1", "us2", "us3", "en1"} {
		if _, err := os.Stat("/usr/share/mbrola/" + v + "/" + v); err != nil {
			fail(fmt.Errorf("the MBROLA voice %s is not installed (make eval installs it with .ci/eval-deps.sh)", v))
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
	header := fmt.Sprintf("%-18s %5s %8s %7s %7s %8s %6s %11s %8s %8s %7s %s",
		"condition", "calls", "speech s", "missed", "false", "confused", "DER", "words right", "bound50", "bound90", "changes", "in order")
	fmt.Println(header)
	classes := map[string]*score{"distinct": {}, "close": {}, "flite": {}, "mbrola": {}, "festival": {}}
	var cpu time.Duration
	var audio float64
	for _, c := range conditions {
		if *only != "" && !strings.Contains(c.name, *only) {
			continue
		}
		var sum score
		for i, p := range c.pairs {
			name := filepath.Join(dir, fmt.Sprintf("%s-%d", c.name, i+1))
			ref, words, total, err := loadCall(name, *reuse && *keep != "")
			if err != nil {
				ref, words, total, err = makeCall(name, p, c, int64(i))
			}
			if err != nil {
				fail(err)
			}
			if err := saveCall(name, ref, words, total); err != nil {
				fail(err)
			}
			hyp, took, err := diarizeMP3(ctx, name+".mp3", dir)
			if err != nil {
				fail(err)
			}
			cpu += took
			audio += total
			s := scoreCall(ref, words, hyp, *collar)
			sum.add(s)
			if *verbose {
				fmt.Printf("  %s: DER %.1f%% (confusion %.1f%%), words right %d/%d, boundaries %v, changes missed %d/%d, in order: %v\n    ref %v\n    hyp %v\n",
					filepath.Base(name), 100*s.der.Rate(), 100*s.der.Confusion/s.der.Scored, s.wordsRight, s.words, ms(s.boundaries), s.missed, s.changes, s.ordered == 1, ref, hyp)
			}
		}
		classes[c.class].add(sum)
		printRow(c.name, sum)
	}
	fmt.Println()
	for _, k := range []string{"distinct", "close", "flite", "mbrola", "festival"} {
		if classes[k].calls > 0 {
			printRow("all "+k, *classes[k])
		}
	}
	if audio > 0 {
		fmt.Printf("\ndiarization CPU: %.2f s per audio minute (%.0f s of calls; user+system time of Diarize on the decoded WAV)\n", cpu.Seconds()/(audio/60), audio)
	}
	fmt.Println("words right: share of the reference words (overlapped back-channels excepted) that the transcript gives the right speaker;")
	fmt.Printf("bound50/bound90: median and 90th percentile of the distance (ms) from each change of speaker to the diarizer's nearest one;\n")
	fmt.Printf("changes: changes of speaker not found within %.0f s / all\n", maxMiss)
}

func printRow(name string, s score) {
	b := slices.Clone(s.boundaries)
	slices.Sort(b)
	fmt.Printf("%-18s %5d %8.1f %6.1f%% %6.1f%% %7.1f%% %5.1f%% %10.1f%% %6.0fms %6.0fms %3d/%-3d %d/%d\n", name, s.calls, s.der.Scored,
		100*s.der.Missed/s.der.Scored, 100*s.der.FalseAlarm/s.der.Scored, 100*s.der.Confusion/s.der.Scored, 100*s.der.Rate(),
		100*float64(s.wordsRight)/float64(max(s.words, 1)), 1000*quantile(b, 0.5), 1000*quantile(b, 0.9), s.missed, s.changes, s.ordered, s.calls)
}

func quantile(sorted []float64, q float64) float64 {
	if len(sorted) == 0 {
		return 0
	}
	return sorted[min(int(q*float64(len(sorted))), len(sorted)-1)]
}

func ms(v []float64) []int {
	out := make([]int, len(v))
	for i, x := range v {
		out[i] = int(math.Round(1000 * x))
	}
	return out
}

// maxMiss is how far (s) the diarizer's nearest change of speaker may be
// before a reference change counts as not found.
const maxMiss = 2.0

// scoreCall scores one call: DER; the share of words the transcript (the
// service's own domain.AssignSpeakers on the words' times) gives the right
// speaker, under the better of the two mappings of labels; the distance
// from each reference change of speaker (the pause between two turns) to
// the nearest change in hyp (the gap between two of its turns).
func scoreCall(ref []domain.Turn, words []refWord, hyp []domain.Turn, collar float64) score {
	s := score{der: diarize.DER(ref, hyp, collar), calls: 1}
	var ws []domain.Word
	for _, w := range words {
		ws = append(ws, w.Word)
	}
	segs := domain.AssignSpeakers(nil, ws, hyp)
	var got []string
	for _, seg := range segs {
		for range strings.Fields(seg.Text) {
			got = append(got, seg.Speaker)
		}
	}
	keys := map[string]int{}
	for _, t := range hyp {
		if _, ok := keys[t.Speaker]; !ok {
			keys[t.Speaker] = len(keys)
		}
	}
	var right [2]int // right words if hyp's first key is ref "1", or "2"
	for i, w := range words {
		if i >= len(got) {
			break
		}
		k := keys[got[i]]
		if (k == 0) == (w.speaker == "1") {
			right[0]++
		} else {
			right[1]++
		}
	}
	s.words, s.wordsRight = len(words), max(right[0], right[1])
	// Changes of speaker: between consecutive turns not overlapped.
	var solo []domain.Turn
	for i, t := range ref {
		if i > 0 && t.Start < ref[i-1].End {
			continue
		}
		solo = append(solo, t)
	}
	var hypChanges [][2]float64
	for i := 1; i < len(hyp); i++ {
		if hyp[i].Speaker != hyp[i-1].Speaker {
			hypChanges = append(hypChanges, [2]float64{hyp[i-1].End, hyp[i].Start})
		}
	}
	for i := 1; i < len(solo); i++ {
		if solo[i].Speaker == solo[i-1].Speaker {
			continue
		}
		s.changes++
		a, b := solo[i-1].End, solo[i].Start
		best := math.Inf(1)
		for _, h := range hypChanges {
			best = min(best, max(h[0]-b, a-h[1], 0))
		}
		if best > maxMiss {
			s.missed++
			continue
		}
		s.boundaries = append(s.boundaries, best)
	}
	if transcriptInOrder(ref, hyp) {
		s.ordered = 1
	}
	return s
}

// kept is what a kept call's name.json holds: what makeCall knows.
type kept struct {
	Ref   []domain.Turn
	Words []domain.Word
	Who   []string
	Total float64
}

func saveCall(name string, ref []domain.Turn, words []refWord, total float64) error {
	k := kept{Ref: ref, Total: total}
	for _, w := range words {
		k.Words = append(k.Words, w.Word)
		k.Who = append(k.Who, w.speaker)
	}
	b, err := json.Marshal(k)
	if err != nil {
		return err
	}
	return os.WriteFile(name+".json", b, 0o644)
}

func loadCall(name string, reuse bool) ([]domain.Turn, []refWord, float64, error) {
	if !reuse {
		return nil, nil, 0, os.ErrNotExist
	}
	if _, err := os.Stat(name + ".mp3"); err != nil {
		return nil, nil, 0, err
	}
	b, err := os.ReadFile(name + ".json")
	if err != nil {
		return nil, nil, 0, err
	}
	var k kept
	if err := json.Unmarshal(b, &k); err != nil || len(k.Who) != len(k.Words) {
		return nil, nil, 0, fmt.Errorf("%s.json: %v", name, err)
	}
	words := make([]refWord, len(k.Words))
	for i := range words {
		words[i] = refWord{k.Words[i], k.Who[i]}
	}
	return k.Ref, words, k.Total, nil
}

// refWord is a word of the reference with its speaker and estimated times.
type refWord struct {
	domain.Word
	speaker string
}

// wordTimes spreads an utterance's words over its known time, in
// proportion to their letters, a word before a comma or full stop taking
// a little more (eSpeak pauses there). eSpeak does not report word times;
// an engine's would be exact, but the first and last word of a turn, the
// ones a late or early change of speaker gives away, are pinned to the
// turn's edges either way.
func wordTimes(text string, start, end float64, speaker string) []refWord {
	fields := strings.Fields(text)
	weights := make([]float64, len(fields))
	var total float64
	for i, f := range fields {
		w := float64(utf8.RuneCountInString(strings.TrimRight(f, ",։՞.")))
		if strings.ContainsAny(f, ",։.") && i < len(fields)-1 {
			w += 4 // the pause after it
		}
		weights[i] = w
		total += w
	}
	var out []refWord
	at := start
	for i, f := range fields {
		d := (end - start) * weights[i] / total
		wEnd := at + d
		if strings.ContainsAny(f, ",։.") && i < len(fields)-1 {
			wEnd = at + d*float64(utf8.RuneCountInString(f))/weights[i]
		}
		out = append(out, refWord{domain.Word{Start: at, End: wEnd, Word: f}, speaker})
		at += d
	}
	return out
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

// makeCall writes name.mp3 and returns its known turns, its words with
// estimated times and its length in seconds.
func makeCall(name string, p [2]voice, c condition, seed int64) ([]domain.Turn, []refWord, float64, error) {
	var lines []line
	for rep := 0; rep == 0 || (c.minutes > 0 && float64(rep) < c.minutes*60/30); rep++ {
		for i, l := range c.dialogue {
			if rep > 0 && i == 0 {
				l.gap = 0.6 // the dialogue starts again after a pause, not on its last word
			}
			lines = append(lines, l)
			if b, ok := backchannels[i]; ok && c.backchannels {
				lines = append(lines, b)
			}
		}
	}
	var ref []domain.Turn
	var words []refWord
	var parts []string
	at := 0.3 // the call starts with a little silence
	prevEnd := at
	utts := map[string]string{} // a long call says each line many times: spoken once
	for i, l := range lines {
		v := p[l.speaker]
		key := fmt.Sprintf("%d|%s", l.speaker, l.text)
		utt, ok := utts[key]
		if !ok {
			utt = fmt.Sprintf("%s-u%03d.wav", name, len(utts))
			if err := speak(v, l.text, utt); err != nil {
				return nil, nil, 0, err
			}
			utts[key] = utt
		}
		d, err := run("soxi", "-D", utt)
		if err != nil {
			return nil, nil, 0, err
		}
		dur, err := strconv.ParseFloat(d, 64)
		if err != nil {
			return nil, nil, 0, fmt.Errorf("soxi %s: %w", utt, err)
		}
		gap := l.gap
		if c.quick > 0 && gap >= 0 {
			gap = c.quick
		}
		start := prevEnd + gap
		if i == 0 {
			start = at
		}
		// Jitter pauses a little per call so calls differ.
		start += float64((seed*7+int64(i)*13)%5) * 0.02
		padded := fmt.Sprintf("%s-%03d-pad.wav", name, i)
		if c.minutes > 0 {
			// One after another: each part is its pause and its turn, and
			// the call is their concatenation (mixing parts padded from
			// the call's start would write gigabytes for 30 minutes).
			lead := start - prevEnd
			if i == 0 {
				lead = start
			}
			// The pause is written to the millisecond: the known turn
			// must be where it lands, or 1,000 turns drift apart.
			lead = math.Round(lead*1000) / 1000
			start = lead
			if i > 0 {
				start += prevEnd
			}
			if _, err := run("sox", "-R", utt, padded, "pad", fmt.Sprintf("%.3f", lead), "0"); err != nil {
				return nil, nil, 0, err
			}
		} else if _, err := run("sox", "-R", utt, padded, "pad", fmt.Sprintf("%.3f", start), "0"); err != nil {
			return nil, nil, 0, err
		}
		parts = append(parts, padded)
		ref = append(ref, domain.Turn{Start: start, End: start + dur, Speaker: strconv.Itoa(l.speaker + 1)})
		if i == 0 || start >= prevEnd { // overlapped back-channels have no place in a one-line-at-a-time transcript
			words = append(words, wordTimes(l.text, start, start+dur, strconv.Itoa(l.speaker+1))...)
		}
		if gap >= 0 || start+dur > prevEnd {
			prevEnd = max(prevEnd, start+dur)
		}
	}
	for _, u := range utts {
		defer os.Remove(u)
	}
	total := prevEnd + 0.5
	var args []string
	if c.minutes > 0 {
		args = append([]string{"-R"}, parts...)
		args = append(args, name+"-speech.wav", "pad", "0", "0.5")
		if _, err := run("sox", args...); err != nil {
			return nil, nil, 0, err
		}
		args = []string{"-R", "-m", "-v", "1", name + "-speech.wav"}
		defer os.Remove(name + "-speech.wav")
	} else {
		// sox -m scales every input by 1/n unless told otherwise: keep levels.
		args = []string{"-R", "-m"}
		for _, p := range parts {
			args = append(args, "-v", "1", p)
		}
	}
	if c.noise > 0 {
		kind := "whitenoise"
		if c.pink {
			kind = "pinknoise"
		}
		noise := name + "-noise.wav"
		if _, err := run("sox", "-R", "-n", "-r", "16000", "-c", "1", "-b", "16", noise, "synth", fmt.Sprintf("%.3f", total), kind, "vol", fmt.Sprintf("%.3f", c.noise)); err != nil {
			return nil, nil, 0, err
		}
		args = append(args, "-v", "1", noise)
		defer os.Remove(noise)
	} else if len(args) == 5 { // the long call alone: sox -m needs two inputs
		args = []string{"-R", name + "-speech.wav"}
	}
	wav := name + ".wav"
	args = append(args, wav, "trim", "0", fmt.Sprintf("%.3f", total))
	if _, err := run("sox", args...); err != nil {
		return nil, nil, 0, err
	}
	for _, p := range parts {
		os.Remove(p)
	}
	defer os.Remove(wav)
	if c.music != "" {
		var err error
		if ref, words, total, err = addMusic(name, wav, c.music, ref, words, total); err != nil {
			return nil, nil, 0, err
		}
	}
	enc := []string{"--quiet", "-m", "m", "-b", "32"}
	switch {
	case c.telephone:
		// The telephone band, then 8 kHz: lame writes MPEG-2.5.
		tel := name + "-tel.wav"
		if _, err := run("sox", "-R", wav, tel, "sinc", "300-3400", "rate", "8000"); err != nil {
			return nil, nil, 0, err
		}
		defer os.Remove(tel)
		wav, enc = tel, []string{"--quiet", "-m", "m", "-b", *telKbps}
	case c.stereo != "":
		other := wav
		if c.stereo == "onesilent" {
			other = name + "-silent.wav"
			if _, err := run("sox", "-R", wav, other, "vol", "0"); err != nil {
				return nil, nil, 0, err
			}
			defer os.Remove(other)
		}
		st := name + "-stereo.wav"
		if _, err := run("sox", "-R", "-M", wav, other, st); err != nil {
			return nil, nil, 0, err
		}
		defer os.Remove(st)
		mode := map[string]string{"dual": "j", "onesilent": "s"}[c.stereo]
		wav, enc = st, []string{"--quiet", "-m", mode, "-b", "64"}
	}
	if _, err := run("lame", append(enc, wav, name+".mp3")...); err != nil {
		return nil, nil, 0, err
	}
	return ref, words, total, nil
}

// speak writes one turn as a 16 kHz mono WAV at out, trimmed of the
// voice's own leading and trailing silence so the known turn is where the
// speech is: eSpeak NG's Armenian (or an mb-* MBROLA voice), a flite voice
// ("flite:slt") or a Festival voice ("festival:rab_diphone").
func speak(v voice, text, out string) error {
	raw := out + "-raw.wav"
	defer os.Remove(raw)
	var err error
	if f, ok := strings.CutPrefix(v.name, "flite:"); ok {
		_, err = run("flite", "-voice", f, "-t", text, "-o", raw)
	} else if f, ok := strings.CutPrefix(v.name, "festival:"); ok {
		txt := out + "-text.txt"
		defer os.Remove(txt)
		if err := os.WriteFile(txt, []byte(text+"\n"), 0o644); err != nil {
			return err
		}
		_, err = run("text2wave", "-eval", "(voice_"+f+")", "-o", raw, txt)
	} else {
		args := []string{"-v", v.name, "-w", raw}
		if v.pitch != "" {
			args = append(args, "-p", v.pitch)
		}
		if v.speed != "" {
			args = append(args, "-s", v.speed)
		}
		_, err = run("espeak-ng", append(args, text)...)
	}
	if err != nil {
		return err
	}
	_, err = run("sox", "-R", raw, "-r", "16000", "-c", "1", "-b", "16", out,
		"silence", "1", "0.02", "0.5%", "reverse", "silence", "1", "0.02", "0.5%", "reverse")
	return err
}

// musicSeconds is the length of the music on hold put into a call.
const musicSeconds = 12

// addMusic puts 12 s of synthetic music on hold into the call at wav: an
// A-major pad swelling slowly under a plucked melody of half-second notes,
// as loud as the voices (testdata/audio/make.sh makes the same), at the
// start or in the pause in the middle of the call. The reference moves
// with it; the music has no speaker and no words.
func addMusic(name, wav, where string, ref []domain.Turn, words []refWord, total float64) ([]domain.Turn, []refWord, float64, error) {
	pad, mel, music := name+"-mpad.wav", name+"-mmel.wav", name+"-music.wav"
	defer os.Remove(pad)
	defer os.Remove(mel)
	defer os.Remove(music)
	if _, err := run("sox", "-R", "-n", "-r", "16000", "-c", "1", "-b", "16", pad, "synth", strconv.Itoa(musicSeconds),
		"sine", "220", "synth", "sine", "mix", "277.2", "synth", "sine", "mix", "329.6", "synth", "sine", "amod", "0.25", "30", "vol", "0.12"); err != nil {
		return nil, nil, 0, err
	}
	melody := []string{"E5", "C#5", "A4", "B4", "C#5", "E5", "F#5", "E5", "C#5", "B4", "A4", "B4", "C#5", "A4", "B4", "E4"}
	var notes []string
	for i := range 2 * musicSeconds {
		n := fmt.Sprintf("%s-note%02d.wav", name, i)
		if _, err := run("sox", "-R", "-n", "-r", "16000", "-c", "1", "-b", "16", n, "synth", "0.5", "pluck", melody[i%len(melody)], "vol", "0.4"); err != nil {
			return nil, nil, 0, err
		}
		defer os.Remove(n)
		notes = append(notes, n)
	}
	if _, err := run("sox", append(append([]string{"-R"}, notes...), mel)...); err != nil {
		return nil, nil, 0, err
	}
	if _, err := run("sox", "-R", "-m", "-v", "1", pad, "-v", "1", mel, music); err != nil {
		return nil, nil, 0, err
	}
	cut := 0.0
	if where == "middle" { // in the pause before the middle turn
		k := len(ref) / 2
		cut = (ref[k-1].End + ref[k].Start) / 2
	}
	a, b, out := name+"-a.wav", name+"-b.wav", name+"-with-music.wav"
	defer os.Remove(a)
	defer os.Remove(b)
	if _, err := run("sox", "-R", wav, a, "trim", "0", fmt.Sprintf("%.3f", cut)); err != nil {
		return nil, nil, 0, err
	}
	if _, err := run("sox", "-R", wav, b, "trim", fmt.Sprintf("%.3f", cut)); err != nil {
		return nil, nil, 0, err
	}
	inputs := []string{"-R", music, b, out}
	if cut > 0 {
		inputs = []string{"-R", a, music, b, out}
	}
	if _, err := run("sox", inputs...); err != nil {
		return nil, nil, 0, err
	}
	if err := os.Rename(out, wav); err != nil {
		return nil, nil, 0, err
	}
	for i := range ref {
		if ref[i].Start >= cut {
			ref[i].Start += musicSeconds
			ref[i].End += musicSeconds
		}
	}
	for i := range words {
		if words[i].Start >= cut {
			words[i].Start += musicSeconds
			words[i].End += musicSeconds
		}
	}
	return ref, words, total + musicSeconds, nil
}

// diarizeMP3 decodes the call as a job would and diarizes it; it returns
// the CPU time (user + system) of the diarization alone.
func diarizeMP3(ctx context.Context, path, dir string) ([]domain.Turn, time.Duration, error) {
	f, err := os.Open(path)
	if err != nil {
		return nil, 0, err
	}
	defer f.Close()
	tmp, err := os.MkdirTemp(dir, "decoded-")
	if err != nil {
		return nil, 0, err
	}
	defer os.RemoveAll(tmp)
	paths, err := mp3.Splitter{}.SplitChannels(ctx, f, tmp)
	if err != nil {
		return nil, 0, err
	}
	before := cpuTime()
	d := diarize.New()
	path = paths[0]
	if len(paths) == 2 { // as the transcribe stage: a call on one channel is diarized as mono
		layout, err := d.InspectChannels(ctx, paths[0], paths[1])
		if err != nil {
			return nil, 0, err
		}
		if !layout.Mono() {
			return nil, 0, fmt.Errorf("%s: a two-speaker stereo call (%+v), not a mono one", path, layout)
		}
		path = paths[layout.Channel]
	}
	turns, err := d.Diarize(ctx, path)
	return turns, cpuTime() - before, err
}

func cpuTime() time.Duration {
	var ru syscall.Rusage
	if err := syscall.Getrusage(syscall.RUSAGE_SELF, &ru); err != nil {
		return 0
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
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
