// Command trainubm makes the diarizer's background model,
// adapters/diarize/ubm.json (see adapters/diarize/ubm.go). It speaks
// two-voice calls with Debian's eSpeak NG in 41 voice variants (48 voices:
// some variants at two pitches) that no evaluation uses (cmd/evaldiarize
// uses the default voice, f1–f5 and m1–m7), from Armenian sentences that
// no evaluation speaks (sentences.txt: the service's own messages), twelve
// alternating turns a call, 24 calls; takes each call full band and
// through the telephone band (sox sinc 300–3400 Hz at 8 kHz, LAME's
// 16 kbit/s MPEG-2.5, decoded back to 16 kHz by FFmpeg); and fits the
// 64-component mixture to their speech with the diarizer's own features.
// `make ubm` runs it, after `make eval-deps` installs the tools. Every SoX
// call runs with -R (repeatable dither), so the output is the same bytes
// on every run.
package main

import (
	"context"
	_ "embed"
	"flag"
	"fmt"
	"os"
	"os/exec"
	"path/filepath"
	"strconv"
	"strings"

	"github.com/hyscribe/hyscribe/adapters/diarize"
)

//go:embed sentences.txt
var sentences string

// voice is an eSpeak NG variant with its pitch (0–99) and speed (words a
// minute).
type voice struct {
	variant      string
	pitch, speed int
}

// pairs are the training calls' two voices: men with women, and pairs of
// one gender.
var pairs = [][2]voice{
	{{"Alex", 40, 150}, {"Annie", 65, 160}}, {{"Andy", 45, 155}, {"Alicia", 70, 150}},
	{{"Denis", 35, 165}, {"Andrea", 60, 145}}, {{"Gene", 50, 150}, {"belinda", 72, 160}},
	{{"Hugo", 30, 160}, {"linda", 68, 150}}, {{"Jacky", 55, 150}, {"shelby", 62, 165}},
	{{"Lee", 42, 170}, {"steph", 66, 150}}, {{"Marco", 38, 150}, {"anika", 74, 155}},
	{{"Michael", 46, 160}, {"aunty", 58, 150}}, {{"Mike", 52, 145}, {"Alicia", 64, 165}},
	{{"adam", 36, 155}, {"boris", 44, 150}}, {{"benjamin", 48, 150}, {"caleb", 41, 160}},
	{{"david", 39, 165}, {"edward", 47, 150}}, {{"iven", 33, 150}, {"john", 43, 160}},
	{{"m8", 45, 155}, {"max", 51, 150}}, {{"michel", 37, 160}, {"pablo", 49, 150}},
	{{"paul", 44, 150}, {"quincy", 40, 165}}, {{"rob", 50, 155}, {"robert", 42, 150}},
	{{"sandro", 36, 150}, {"travis", 46, 160}}, {{"victor", 41, 155}, {"zac", 53, 150}},
	{{"Annie", 63, 150}, {"linda", 71, 160}}, {{"belinda", 69, 155}, {"steph", 61, 150}},
	{{"Diogo", 47, 150}, {"Henrique", 39, 160}}, {{"anika", 67, 150}, {"shelby", 73, 160}},
}

const (
	turnsPerCall = 12
	callsPerPair = 1 // 2 (other sentences in the second) was measured too: docs/quality.md
)

func main() {
	out := flag.String("out", "adapters/diarize/ubm.json", "where to write the background model")
	keep := flag.String("keep", "", "directory to keep the training calls in (default: a temporary one)")
	flag.Usage = func() {
		fmt.Fprintf(flag.CommandLine.Output(), "usage: trainubm [-out FILE] [-keep DIR]\n\n"+
			"Makes the diarizer's background model from synthetic two-voice calls\n"+
			"(eSpeak NG, sox, LAME, FFmpeg; `make eval-deps` installs them).\n\n")
		flag.PrintDefaults()
	}
	flag.Parse()
	if err := run(*out, *keep); err != nil {
		fmt.Fprintln(os.Stderr, "trainubm:", err)
		os.Exit(1)
	}
}

func run(out, keep string) error {
	for _, tool := range []string{"espeak-ng", "sox", "lame", "ffmpeg"} {
		if _, err := exec.LookPath(tool); err != nil {
			return fmt.Errorf("%s is not installed (make eval-deps installs it)", tool)
		}
	}
	dir := keep
	if dir == "" {
		d, err := os.MkdirTemp("", "trainubm-")
		if err != nil {
			return err
		}
		defer os.RemoveAll(d)
		dir = d
	} else if err := os.MkdirAll(dir, 0o755); err != nil {
		return err
	}
	lines := strings.Split(strings.TrimSpace(sentences), "\n")
	var wavs []string
	for k := 0; k < callsPerPair*len(pairs); k++ {
		full, tel, err := makeCall(dir, k, pairs[k%len(pairs)], lines)
		if err != nil {
			return fmt.Errorf("call %d: %w", k, err)
		}
		wavs = append(wavs, full, tel)
	}
	variants := map[string]bool{}
	for _, p := range pairs {
		variants[p[0].variant], variants[p[1].variant] = true, true
	}
	about := fmt.Sprintf("cmd/trainubm: %d two-voice calls of %d eSpeak NG variants not used by cmd/evaldiarize, each full band and through the telephone band", callsPerPair*len(pairs), len(variants))
	b, err := diarize.TrainBackground(context.Background(), wavs, about)
	if err != nil {
		return err
	}
	if err := os.WriteFile(out, append(b, '\n'), 0o644); err != nil {
		return err
	}
	fmt.Printf("wrote %s (%d bytes) from %d calls\n", out, len(b)+1, len(wavs))
	return nil
}

// makeCall speaks call k: turns alternating between the pair's voices,
// each trimmed of its silence and followed by 0.45 s of it, the whole
// normalised to −3 dBFS; then the same call through the telephone band.
func makeCall(dir string, k int, p [2]voice, lines []string) (full, tel string, err error) {
	var turns []string
	for t := 0; t < turnsPerCall; t++ {
		v := p[t%2]
		text := lines[(k*turnsPerCall+t)%len(lines)]
		raw := filepath.Join(dir, fmt.Sprintf("turn-%d-%d.raw.wav", k, t))
		turn := filepath.Join(dir, fmt.Sprintf("turn-%d-%d.wav", k, t))
		if err := sh("espeak-ng", "-v", "hy+"+v.variant, "-p", strconv.Itoa(v.pitch), "-s", strconv.Itoa(v.speed), "-w", raw, text); err != nil {
			return "", "", err
		}
		if err := sh("sox", "-R", raw, "-r", "16000", "-c", "1", turn,
			"silence", "1", "0.02", "0.5%", "reverse", "silence", "1", "0.02", "0.5%", "reverse", "pad", "0", "0.45"); err != nil {
			return "", "", err
		}
		os.Remove(raw)
		turns = append(turns, turn)
	}
	full = filepath.Join(dir, fmt.Sprintf("call-%d.wav", k))
	if err := sh("sox", append(append([]string{"-R"}, turns...), full, "norm", "-3")...); err != nil {
		return "", "", err
	}
	for _, t := range turns {
		os.Remove(t)
	}
	narrow := filepath.Join(dir, fmt.Sprintf("tel-%d.8k.wav", k))
	mp3 := filepath.Join(dir, fmt.Sprintf("tel-%d.mp3", k))
	tel = filepath.Join(dir, fmt.Sprintf("tel-%d.wav", k))
	if err := sh("sox", "-R", full, "-r", "8000", narrow, "sinc", "300-3400"); err != nil {
		return "", "", err
	}
	if err := sh("lame", "--quiet", "-b", "16", narrow, mp3); err != nil {
		return "", "", err
	}
	if err := sh("ffmpeg", "-loglevel", "error", "-y", "-i", mp3, "-ar", "16000", "-ac", "1", tel); err != nil {
		return "", "", err
	}
	os.Remove(narrow)
	os.Remove(mp3)
	return full, tel, nil
}

func sh(name string, args ...string) error {
	if out, err := exec.Command(name, args...).CombinedOutput(); err != nil {
		return fmt.Errorf("%s: %v: %s", name, err, strings.TrimSpace(string(out)))
	}
	return nil
}
