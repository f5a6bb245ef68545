package mp3

import (
	"bytes"
	"context"
	"errors"
	"io"
	"os"
	"path/filepath"
	"runtime"
	"slices"
	"strings"
	"testing"
	"time"

	"github.com/hyscribe/hyscribe/domain"
	"github.com/hyscribe/hyscribe/internal/testenv"
)

// fakeFFmpeg writes a shell script standing in for ffmpeg and returns its
// path.
func fakeFFmpeg(t *testing.T, body string) string {
	t.Helper()
	path := filepath.Join(t.TempDir(), "ffmpeg")
	if err := os.WriteFile(path, []byte("#!/bin/sh\n"+body+"\n"), 0o755); err != nil {
		t.Fatal(err)
	}
	return path
}

// setBits writes the n low bits of v into b big-endian from bit offset pos.
func setBits(b []byte, pos, n, v int) {
	for i := range n {
		bit := pos + i
		mask := byte(1) << (7 - bit%8)
		if v>>(n-1-i)&1 == 1 {
			b[bit/8] |= mask
		} else {
			b[bit/8] &^= mask
		}
	}
}

// corruptFrames returns call-stereo-22k.mp3 (MPEG-2 joint stereo, no CRC)
// with every kth audio frame corrupt inside but intact to the scanner:
// each granule's big_values is over the 288 the standard allows, so ffmpeg
// drops the frame.
func corruptFrames(t *testing.T, k int) []byte {
	t.Helper()
	s := newScanner(context.Background(), bytes.NewReader(fixture(t, "call-stereo-22k.mp3")))
	defer s.release()
	if _, err := s.begin(); err != nil {
		t.Fatal(err)
	}
	var out []byte
	for i := 0; ; i++ {
		h, f, err := s.next()
		if err == io.EOF {
			return out
		}
		if err != nil {
			t.Fatal(err)
		}
		f = bytes.Clone(f)
		for ch := range h.channels() {
			if i%k == k-1 {
				// main_data_begin 8, private 2; part2_3_length 12, then big_values 9
				setBits(f[4:], 8+2+ch*63+12, 9, 511)
			}
		}
		out = append(out, f...)
	}
}

// A file with more than one frame in ten corrupt is refused as
// undecodable, with a permanent error of the same class as before the
// decoder was ffmpeg, whether ffmpeg gives up (every frame bad) or drops
// the bad ones (every other frame), and leaves nothing behind. A few bad
// frames become silence where they were: the audio lasts what was
// measured, and the frames after them keep their times.
func TestSplitRefusesCorruptAudio(t *testing.T) {
	needTools(t, "ffmpeg")
	const want = "the MP3 file cannot be decoded: "
	for _, k := range []int{1, 2} {
		paths, dir, err := split(t, corruptFrames(t, k))
		if err == nil || !domain.IsPermanent(err) || !strings.HasPrefix(err.Error(), want) || paths != nil {
			t.Errorf("every %d frames: got %v, %v; want permanent %q…", k, paths, err, want)
		}
		t.Logf("every %d frames: %v", k, err)
		assertEmpty(t, dir)
	}
	_, whole, err := decodeWith(Splitter{}, corruptFrames(t, 1000)) // none
	if err != nil {
		t.Fatal(err)
	}
	_, pcm, err := decodeWith(Splitter{}, corruptFrames(t, 40)) // frames 39, 79, …, 199
	if err != nil || len(pcm) != len(whole) {
		t.Fatalf("5 bad frames: %d bytes of PCM, %v; want %d", len(pcm), err, len(whole))
	}
	const frame = 576 * 4                 // stereo 16-bit samples of an MPEG-2 frame; no tag, so no trimming
	for i := 1; i < len(pcm)/frame; i++ { // frame 0 is the encoder's delay: silent
		at := pcm[i*frame : (i+1)*frame]
		if silent := !slices.ContainsFunc(at, func(b byte) bool { return b != 0 }); silent != (i%40 == 39) {
			t.Errorf("frame %d: silent %v", i, silent)
		}
	}
}

// A decoder that hangs is killed once no audio has come for the stall
// bound, and the job gets a transient error (retrying may help; the file
// is not known to be at fault).
func TestSplitKillsAHungDecoder(t *testing.T) {
	hung := fakeFFmpeg(t, "exec sleep 600")
	dir := t.TempDir()
	start := time.Now()
	paths, err := Splitter{FFmpeg: hung, stall: 200 * time.Millisecond}.SplitChannels(context.Background(), bytes.NewReader(fixture(t, "call-stereo-22k.mp3")), dir)
	if !errors.Is(err, errStalled) || domain.IsPermanent(err) || paths != nil {
		t.Errorf("got %v, %v; want the transient %v", paths, err, errStalled)
	}
	if took := time.Since(start); took > 30*time.Second {
		t.Errorf("returned after %s", took)
	}
	assertEmpty(t, dir)
}

// The decoder runs with its address space bounded (checked by a stand-in
// that reports its limit once the first frame reaches it), and what it
// says when it fails is the reason the job is given.
func TestDecoderRunsUnderAMemoryBound(t *testing.T) {
	if runtime.GOOS != "linux" {
		testenv.Missing(t, "prlimit(2), which only Linux has: the decoder's memory bound is Linux's")
	}
	report := fakeFFmpeg(t, `head -c 1 >/dev/null; echo "[mp3float @ 0x55d1c0] limit $(ulimit -v) KiB" >&2; exit 1`)
	_, _, err := decodeWith(Splitter{FFmpeg: report}, fixture(t, "speech-mono-16k.mp3"))
	const want = "the MP3 file cannot be decoded: limit 1048576 KiB (exit status 1)"
	if err == nil || err.Error() != want || !domain.IsPermanent(err) {
		t.Errorf("got %v, want permanent %q", err, want)
	}
}

// decodeWith runs decodePCM with sp and returns the PCM.
func decodeWith(sp Splitter, data []byte) (start, []byte, error) {
	var st start
	var out []byte
	err := decodePCM(context.Background(), sp, bytes.NewReader(data),
		func(s start) error { st = s; return nil },
		func(pcm []byte) error { out = append(out, pcm...); return nil })
	return st, out, err
}

func TestCheckFFmpeg(t *testing.T) {
	needTools(t, "ffmpeg")
	if path, err := CheckFFmpeg(context.Background(), ""); err != nil || !filepath.IsAbs(path) {
		t.Errorf("Debian's ffmpeg: %q, %v", path, err)
	}
	if _, err := CheckFFmpeg(context.Background(), "/nonexistent/ffmpeg"); err == nil {
		t.Error("a missing program passed")
	}
	if _, err := CheckFFmpeg(context.Background(), fakeFFmpeg(t, "echo ffmpeg version 0")); err == nil || !strings.Contains(err.Error(), "no MP3 decoder") {
		t.Errorf("a program that is not ffmpeg: %v", err)
	}
}
