package mp3

import (
	"bytes"
	"context"
	"errors"
	"io"
	"math"
	"os"
	"path/filepath"
	"runtime"
	"strings"
	"testing"
	"testing/iotest"
	"time"

	"github.com/hyscribe/hyscribe/domain"
)

const fixtures = "../../testdata/audio"

func fixture(t testing.TB, name string) []byte {
	t.Helper()
	b, err := os.ReadFile(filepath.Join(fixtures, name))
	if err != nil {
		t.Fatal(err)
	}
	return b
}

func probe(t testing.TB, r io.Reader) (domain.AudioInfo, error) {
	t.Helper()
	return Prober{}.Probe(context.Background(), r)
}

// The expected durations are the sample counts FFmpeg 5.1 decodes from
// each fixture (ffmpeg -i F -f s16le -ac 1 - | wc -c, halved) over the
// sample rate: FFmpeg trims LAME's encoder delay and padding too. ffprobe's
// own "duration" is a container estimate that includes them (6.060408 for
// the 6 s call) and sox's libmad reader does not trim at all, so neither is
// the reference. Files too small to hold a LAME tag (low-bitrate CBR) keep
// the delay in their length, exactly as every decoder plays them.
var probeCases = []struct {
	file     string
	duration float64
	channels int
	rate     int
	bitrate  int
	frames   int64
}{
	{"speech-mono-16k.mp3", 89280.0 / 16000, 1, 16000, 32000, 155},
	{"junk-prefix.mp3", 89280.0 / 16000, 1, 16000, 32000, 155},
	{"call-stereo-22k.mp3", 132300.0 / 22050, 2, 22050, 64000, 232},
	{"tone-mono-22k.mp3", 23616.0 / 22050, 1, 22050, 31999, 41},
	{"tone-mono-11k.mp3", 12672.0 / 11025, 1, 11025, 23999, 22},
	{"tone-mono-8k.mp3", 17280.0 / 8000, 1, 8000, 16000, 30},
	{"silence-mono-44k.mp3", 133632.0 / 44100, 1, 44100, 32000, 116},
	{"vbr-stereo-44k.mp3", 132300.0 / 44100, 2, 44100, 0, 116}, // bitrate varies: checked below
	{"id3-stereo-44k.mp3", 88200.0 / 44100, 2, 44100, 127997, 78},
}

func TestProbeFixtures(t *testing.T) {
	for _, c := range probeCases {
		t.Run(c.file, func(t *testing.T) {
			info, err := probe(t, bytes.NewReader(fixture(t, c.file)))
			if err != nil {
				t.Fatal(err)
			}
			frame := float64(map[bool]int{true: 1152, false: 576}[c.rate >= 32000]) / float64(c.rate)
			if math.Abs(info.Duration-c.duration) > frame {
				t.Errorf("duration %.6f s, want %.6f ± %.3f", info.Duration, c.duration, frame)
			}
			if info.Format != "mp3" || info.Channels != c.channels || info.SampleRate != c.rate || info.Frames != c.frames {
				t.Errorf("got %+v, want %d channels at %d Hz, %d frames", info, c.channels, c.rate, c.frames)
			}
			if c.bitrate != 0 && info.Bitrate != c.bitrate {
				t.Errorf("bitrate %d, want %d", info.Bitrate, c.bitrate)
			}
			if info.Bitrate < 8000 || info.Bitrate > 320000 {
				t.Errorf("bitrate %d out of range", info.Bitrate)
			}
		})
	}
}

// The gapless trim makes LAME-tagged files exact to the sample, tighter
// than the table's one-frame tolerance.
func TestProbeGaplessIsExact(t *testing.T) {
	for file, want := range map[string]float64{
		"call-stereo-22k.mp3": 6, "vbr-stereo-44k.mp3": 3, "id3-stereo-44k.mp3": 2,
	} {
		info, err := probe(t, bytes.NewReader(fixture(t, file)))
		if err != nil || info.Duration != want {
			t.Errorf("%s: %v s, %v; want exactly %v s", file, info.Duration, err, want)
		}
	}
}

func TestProbeRefusesWithReason(t *testing.T) {
	cases := []struct{ file, want string }{
		{"empty.mp3", "the file is empty"},
		{"tone.wav", "the file is WAV audio, not MP3; only MP3 is supported"},
		{"tone.m4a", `the file is M4A/MP4 audio, not MP3 (ftyp brand "M4A "); only MP3 is supported`},
		{"tone.ogg", "the file is Ogg Vorbis audio, not MP3; only MP3 is supported"},
		{"tone.flac", "the file is FLAC audio, not MP3; only MP3 is supported"},
		{"tone.aiff", "the file is AIFF audio, not MP3; only MP3 is supported"},
		{"tone.aac", "the file is AAC audio, not MP3 (ADTS); only MP3 is supported"},
		{"tone.mp2", "the file is MPEG-2 layer II audio (MP2), not MP3; only MP3 is supported"},
		{"random.bin", "the file is not MP3 audio (no MPEG audio frames found)"},
		{"truncated.mp3", "the MP3 file is truncated or corrupt: the file ends after 1 complete audio frame while its Info header announces 78"},
	}
	for _, c := range cases {
		t.Run(c.file, func(t *testing.T) {
			_, err := probe(t, bytes.NewReader(fixture(t, c.file)))
			if err == nil || err.Error() != c.want || !domain.IsPermanent(err) {
				t.Errorf("got %v (permanent: %v), want permanent %q", err, domain.IsPermanent(err), c.want)
			}
		})
	}
}

// Variations built from the fixtures in memory.
func TestProbeTolerates(t *testing.T) {
	speech := fixture(t, "speech-mono-16k.mp3")
	vbr := fixture(t, "vbr-stereo-44k.mp3")
	want, err := probe(t, bytes.NewReader(speech))
	if err != nil {
		t.Fatal(err)
	}
	id3v24Footer := append([]byte("ID3\x04\x00\x10\x00\x00\x01\x00"), make([]byte, 128)...)
	id3v24Footer = append(id3v24Footer, "3DI\x04\x00\x10\x00\x00\x01\x00"...)
	id3v23 := append([]byte("ID3\x03\x00\x00\x00\x00\x00\x20"), bytes.Repeat([]byte{0xFF}, 32)...) // 0xFF inside a tag is not a frame
	id3v1 := append([]byte("TAG"), make([]byte, 125)...)
	ape := append([]byte("APETAGEX\xd0\x07\x00\x00\x30\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\xa0\x00\x00\x00\x00\x00\x00\x00\x00"), make([]byte, 16)...)
	ape = append(ape, []byte("APETAGEX\xd0\x07\x00\x00\x30\x00\x00\x00\x00\x00\x00\x00\x00\x00\x00\x80\x00\x00\x00\x00\x00\x00\x00\x00")...)
	mid := 144 * 70 // speech frames are 144 bytes

	cases := map[string][]byte{
		"ID3v2.4 with footer":           cat(id3v24Footer, speech),
		"two ID3v2 tags":                cat(id3v23, id3v24Footer, speech),
		"ID3v1 and APE tags at the end": cat(speech, ape, id3v1),
		"ID3v2 tag appended":            cat(speech, id3v23),
		"zeros before the first frame":  cat(make([]byte, 5000), speech),
		"garbage between frames":        cat(speech[:mid], []byte("\xff\xfb\x00garbage\xff\xe0"), speech[mid:]),
		"trailing partial frame":        cat(speech, speech[:100]),
		"trailing junk":                 cat(speech, bytes.Repeat([]byte("junk\xff"), 300)),
	}
	for name, data := range cases {
		t.Run(name, func(t *testing.T) {
			got, err := probe(t, bytes.NewReader(data))
			if err != nil || got != want {
				t.Errorf("got %+v, %v; want %+v", got, err, want)
			}
		})
	}
	t.Run("one byte at a time", func(t *testing.T) {
		for _, data := range [][]byte{speech, vbr} {
			want, _ := probe(t, bytes.NewReader(data))
			got, err := probe(t, iotest.OneByteReader(bytes.NewReader(data)))
			if err != nil || got != want {
				t.Errorf("got %+v, %v; want %+v", got, err, want)
			}
		}
	})
	t.Run("cut in the middle", func(t *testing.T) {
		// The Xing header announces 116 frames; the counted ones win and
		// only the encoder delay is trimmed: the padded end is gone.
		got, err := probe(t, bytes.NewReader(vbr[:len(vbr)/2]))
		if err != nil {
			t.Fatal(err)
		}
		if got.Frames >= 116 || got.Duration != float64(got.Frames*1152-576)/44100 {
			t.Errorf("got %+v", got)
		}
	})
}

func cat(parts ...[]byte) []byte { return bytes.Join(parts, nil) }

func TestProbeVBRI(t *testing.T) {
	// A Fraunhofer VBRI frame announcing 40 frames, then 40 frames.
	first := syntheticFrame(0xFFFB9064)
	copy(first[36:], "VBRI\x00\x01\x00\x00\x00\x00\x00\x00\x41\x00\x00\x00\x00\x28")
	data := cat(first, bytes.Repeat(syntheticFrame(0xFFFB9064), 40))
	got, err := probe(t, bytes.NewReader(data))
	if err != nil || got.Frames != 40 || got.Duration != 40*1152/44100.0 || got.Bitrate != unpadded128k {
		t.Errorf("got %+v, %v", got, err)
	}
}

func TestProbeOtherMPEGLayers(t *testing.T) {
	layer1 := bytes.Repeat(syntheticFrame(0xFFFF9000), 10) // MPEG-1 layer I, 288 kbit/s
	_, err := probe(t, bytes.NewReader(layer1))
	if want := "the file is MPEG-1 layer I audio (MP1), not MP3; only MP3 is supported"; err == nil || err.Error() != want {
		t.Errorf("got %v, want %q", err, want)
	}
}

func TestProbeTooLittleAudio(t *testing.T) {
	frame := syntheticFrame(0xFFFB9064)
	cases := map[string]struct {
		data []byte
		want string
	}{
		"ID3 tag only":       {[]byte("ID3\x03\x00\x00\x00\x00\x00\x05hello"), "the MP3 file is truncated or corrupt: it holds an ID3 tag and no audio"},
		"ID3 tag cut short":  {[]byte("ID3\x03\x00\x00\x00\x00\x01\x00hello"), "the MP3 file is truncated or corrupt: its ID3 tag announces 138 bytes but the file ends after 15"},
		"ID3 tag then junk":  {cat([]byte("ID3\x03\x00\x00\x00\x00\x00\x00"), []byte("no audio here")), "the MP3 file is truncated or corrupt: it has an ID3 tag but no MPEG audio frames"},
		"one frame and half": {cat(frame, frame[:200]), "the MP3 file is truncated or corrupt: the file ends after 1 complete audio frame"},
		"half a frame":       {frame[:200], "the MP3 file is truncated or corrupt: the file ends after 0 complete audio frames"},
		"one header in junk": {cat([]byte("junk"), frame[:4], []byte("more junk")), "the file is not MP3 audio (no MPEG audio frames found)"},
	}
	for name, c := range cases {
		t.Run(name, func(t *testing.T) {
			_, err := probe(t, bytes.NewReader(c.data))
			if err == nil || err.Error() != c.want || !domain.IsPermanent(err) {
				t.Errorf("got %v, want permanent %q", err, c.want)
			}
		})
	}
	// Two whole frames that end the file are a (very short) MP3.
	if info, err := probe(t, bytes.NewReader(cat(frame, frame))); err != nil || info.Frames != 2 {
		t.Errorf("two frames: %+v, %v", info, err)
	}
}

func TestSniff(t *testing.T) {
	cases := map[string]string{
		"RIFF\x24\x00\x00\x00WAVEfmt ":                           "WAV",
		"\x00\x00\x00\x20ftypisom\x00\x00\x02\x00":               "M4A/MP4",
		"OggS\x00\x02" + strings.Repeat("\x00", 22) + "OpusHead": "Ogg Opus",
		"fLaC\x00\x00\x00\x22":                                   "FLAC",
		"FORM\x00\x00\x00\x00AIFC":                               "AIFF",
		"\x1a\x45\xdf\xa3\x9f\x42\x86\x81\x01\x42\x82\x84webm":   "WebM",
		"#!AMR\n":                         "AMR",
		"%PDF-1.7":                        "PDF",
		"  <!DOCTYPE html><html>":         "HTML",
		"\xff\xf1\x50\x80\x02\x1f\xfc":    "AAC",
		"\xff\xfb\x90\x64\x00\x00":        "", // MP3
		"ID3\x04\x00\x00\x00\x00\x00\x00": "", // tagged, could be MP3
		"hello":                           "",
	}
	for in, want := range cases {
		if got := Sniff([]byte(in)); got != want {
			t.Errorf("Sniff(%q) = %q, want %q", in, got, want)
		}
	}
}

func TestProbeReadErrorIsNotPermanent(t *testing.T) {
	boom := errors.New("connection reset")
	r := io.MultiReader(bytes.NewReader(fixture(t, "speech-mono-16k.mp3")[:5000]), iotest.ErrReader(boom))
	_, err := probe(t, r)
	if !errors.Is(err, boom) || domain.IsPermanent(err) {
		t.Errorf("got %v, want a transient error wrapping %v", err, boom)
	}
}

func TestProbeCancel(t *testing.T) {
	ctx, cancel := context.WithCancel(context.Background())
	cancel()
	_, err := Prober{}.Probe(ctx, cbrStream(time.Hour))
	if !errors.Is(err, context.Canceled) || domain.IsPermanent(err) {
		t.Errorf("got %v, want context.Canceled", err)
	}
}

// An hour of CBR is measured in constant memory, whatever its length.
func TestProbeOneHourConstantMemory(t *testing.T) {
	var before, after runtime.MemStats
	runtime.ReadMemStats(&before)
	info, err := probe(t, cbrStream(time.Hour))
	runtime.ReadMemStats(&after)
	if err != nil || math.Abs(info.Duration-3600) > 0.03 || info.Bitrate != unpadded128k {
		t.Fatalf("got %+v, %v", info, err)
	}
	if alloc := after.TotalAlloc - before.TotalAlloc; alloc > 1<<20 {
		t.Errorf("allocated %d bytes for 57 MB of input", alloc)
	}
}

func BenchmarkProbeOneHour(b *testing.B) {
	b.SetBytes(cbrStream(time.Hour).left)
	b.ReportAllocs()
	for b.Loop() {
		if _, err := probe(b, cbrStream(time.Hour)); err != nil {
			b.Fatal(err)
		}
	}
}

// syntheticFrame is a valid frame with the header raw and a zero body (zero
// side information: silence).
func syntheticFrame(raw uint32) []byte {
	h, ok := parseHeader([]byte{byte(raw >> 24), byte(raw >> 16), byte(raw >> 8), byte(raw)})
	if !ok {
		panic("bad header")
	}
	f := make([]byte, h.size)
	copy(f, []byte{byte(raw >> 24), byte(raw >> 16), byte(raw >> 8), byte(raw)})
	return f
}

// unpadded128k is the bitrate of syntheticFrame(0xFFFB9064) repeated: 417
// bytes per 1152 samples at 44.1 kHz. Real 128 kbit/s streams pad one frame
// in about fifty to reach 128000 exactly.
const unpadded128k = 127706

// repeatReader serves one frame over and over, as a long file would.
type repeatReader struct {
	frame []byte
	off   int
	left  int64
}

// cbrStream is d of 128 kbit/s, 44.1 kHz joint stereo: 417-byte frames.
func cbrStream(d time.Duration) *repeatReader {
	f := syntheticFrame(0xFFFB9064)
	frames := int64(math.Ceil(d.Seconds() * 44100 / 1152))
	return &repeatReader{frame: f, left: frames * int64(len(f))}
}

func (r *repeatReader) Read(p []byte) (int, error) {
	if r.left == 0 {
		return 0, io.EOF
	}
	n := 0
	for n < len(p) && r.left > 0 {
		k := copy(p[n:min(len(p), n+int(min(r.left, int64(len(r.frame)))))], r.frame[r.off:])
		r.off = (r.off + k) % len(r.frame)
		n += k
		r.left -= int64(k)
	}
	return n, nil
}
