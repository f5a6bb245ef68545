package mp3

import (
	"bytes"
	"context"
	"errors"
	"fmt"
	"io"
	"os/exec"
	"regexp"
	"strconv"
	"strings"
	"sync"
	"time"
)

// DefaultFFmpeg is the decoder program Splitter runs when its FFmpeg field
// is empty: Debian's ffmpeg, found on PATH.
const DefaultFFmpeg = "ffmpeg"

const (
	// stallTimeout is the time bound on the decoder: ffmpeg decodes an
	// hour of MP3 in seconds, so one that hands back no audio for a
	// minute is hung (or starved of CPU) and is killed. The job's own
	// context bounds the whole decode.
	stallTimeout = time.Minute

	// ffmpegMemory is the memory bound: the decoder's address space (an
	// MP3 decode maps about 270 MB, most of it shared libraries, and
	// keeps 55 MB resident). Audio streams through pipes, so it does not
	// grow with the recording.
	ffmpegMemory = 1 << 30

	// stderrKeep is how much of ffmpeg's complaints is kept for the
	// error: corrupt files make it log lines for every bad frame.
	stderrKeep = 4 << 10
)

// ffmpegArgs is the decoder's command line. The input is the frames the
// scanner found, and only them, on standard input: the format is forced to
// MP3 (no probing, so no other demuxer or decoder ever sees customer
// bytes), only the pipe protocol is allowed (no file, network or
// concatenation protocol can be reached from inside the data), and the
// output is raw 16-bit PCM of the stream's own channels and rate on
// standard output. Naming -ac and -ar keeps ffmpeg from converting: a mono
// stream stays mono (ffmpeg's own mono-to-stereo mix is 3 dB down).
//
// ffmpeg drops a frame it cannot decode (corrupt data that still looked
// like a frame); aresample's async mode puts silence where the frame's
// timestamp says it was, so later times in the recording stay right (it
// fills gaps over 10 ms, a frame is 24 ms or more, and never stretches).
// Every dropped frame is logged on its own line (repeat: no "Last message
// repeated"), which is how they are counted.
func ffmpegArgs(channels, rate int) []string {
	return []string{"-nostdin", "-hide_banner", "-loglevel", "repeat+error",
		"-protocol_whitelist", "pipe", "-f", "mp3", "-i", "pipe:0",
		"-map", "0:a:0", "-af", "aresample=async=1:min_hard_comp=0.01",
		"-f", "s16le", "-acodec", "pcm_s16le",
		"-ac", strconv.Itoa(channels), "-ar", strconv.Itoa(rate), "pipe:1"}
}

// CheckFFmpeg finds the decoder program name (a path, or a name looked up
// on PATH; empty is DefaultFFmpeg) and checks that it is an ffmpeg with an
// MP3 decoder. The worker calls it before it starts, so that a machine
// without the decoder refuses to start rather than fail every job.
func CheckFFmpeg(ctx context.Context, name string) (string, error) {
	if name == "" {
		name = DefaultFFmpeg
	}
	path, err := exec.LookPath(name)
	if err != nil {
		return "", fmt.Errorf("mp3.CheckFFmpeg: %w", err)
	}
	ctx, cancel := context.WithTimeout(ctx, 30*time.Second)
	defer cancel()
	// G204: path is the operator's HYSCRIBE_FFMPEG setting; the arguments are constants.
	out, err := exec.CommandContext(ctx, path, "-hide_banner", "-loglevel", "error", "-h", "decoder=mp3").Output() //nolint:gosec
	if err != nil {
		return "", fmt.Errorf("mp3.CheckFFmpeg: %s: %w", path, err)
	}
	if !bytes.Contains(out, []byte("Decoder mp3")) {
		return "", fmt.Errorf("mp3.CheckFFmpeg: %s has no MP3 decoder", path)
	}
	return path, nil
}

// errStalled is the cause a decoder is killed with when it hangs.
var errStalled = errors.New("ffmpeg hung: no audio came for too long, so it was killed")

// ffmpegDecoder is one ffmpeg process decoding a stream: frames go in
// through in, PCM comes out of out.
type ffmpegDecoder struct {
	cmd    *exec.Cmd
	in     io.WriteCloser
	out    io.ReadCloser
	stderr *ffmpegLog

	stall    *time.Timer
	stallFor time.Duration
}

// startFFmpeg starts the decoder for a stream of the given channels and
// rate. It dies with ctx; cancel is also called with errStalled when no
// PCM comes for stall (0: stallTimeout).
func startFFmpeg(ctx context.Context, cancel context.CancelCauseFunc, name string, stall time.Duration, channels, rate int) (*ffmpegDecoder, error) {
	if name == "" {
		name = DefaultFFmpeg
	}
	if stall <= 0 {
		stall = stallTimeout
	}
	// G204: name is the operator's HYSCRIBE_FFMPEG setting and the arguments are built from
	// two integers the frame scanner read; nothing of the customer's file reaches the command line.
	cmd := exec.CommandContext(ctx, name, ffmpegArgs(channels, rate)...) //nolint:gosec
	cmd.WaitDelay = 5 * time.Second
	d := &ffmpegDecoder{cmd: cmd, stderr: &ffmpegLog{max: stderrKeep}}
	cmd.Stderr = d.stderr
	var err error
	if d.in, err = cmd.StdinPipe(); err != nil {
		return nil, err
	}
	if d.out, err = cmd.StdoutPipe(); err != nil {
		return nil, err
	}
	if err := cmd.Start(); err != nil {
		return nil, err
	}
	limitMemory(cmd.Process.Pid, ffmpegMemory)
	d.stallFor = stall
	d.stall = time.AfterFunc(stall, func() { cancel(errStalled) })
	return d, nil
}

// read fills p with PCM, as io.ReadFull does.
func (d *ffmpegDecoder) read(p []byte) (int, error) {
	n, err := io.ReadFull(d.out, p)
	if n > 0 {
		d.stall.Reset(d.stallFor)
	}
	return n, err
}

// wait ends the process and reports how it ended: nil, or an error that
// quotes what ffmpeg said.
func (d *ffmpegDecoder) wait() error {
	d.stall.Stop()
	err := d.cmd.Wait()
	var exit *exec.ExitError
	if errors.As(err, &exit) {
		if msg := d.stderr.firstLine(); msg != "" {
			return fmt.Errorf("%s (%w)", msg, err)
		}
	}
	return err
}

// ffmpegLog is ffmpeg's standard error: it keeps the first max bytes and
// counts the frames ffmpeg dropped, one "Error while decoding stream" line
// each, over the whole run.
type ffmpegLog struct {
	mu      sync.Mutex
	max     int
	buf     []byte
	line    []byte // the line being written, up to lineMax bytes
	dropped int64
}

// droppedLine starts the line ffmpeg logs for every packet it could not
// decode; lineMax bounds what is kept of a line to find it.
const (
	droppedLine = "Error while decoding stream"
	lineMax     = 256
)

func (w *ffmpegLog) Write(p []byte) (int, error) {
	w.mu.Lock()
	defer w.mu.Unlock()
	w.buf = append(w.buf, p[:min(len(p), w.max-len(w.buf))]...)
	for _, c := range p {
		if c != '\n' {
			if len(w.line) < lineMax {
				w.line = append(w.line, c)
			}
			continue
		}
		if bytes.HasPrefix(w.line, []byte(droppedLine)) {
			w.dropped++
		}
		w.line = w.line[:0]
	}
	return len(p), nil
}

// droppedFrames is how many frames ffmpeg dropped.
func (w *ffmpegLog) droppedFrames() int64 {
	w.mu.Lock()
	defer w.mu.Unlock()
	return w.dropped
}

// ffmpegContext is the "[mp3float @ 0x55d1c0] " prefix of ffmpeg's messages:
// an address means nothing to a reader of the error.
var ffmpegContext = regexp.MustCompile(`^\[[^\]]* @ 0x[0-9a-f]+\] `)

// firstLine is ffmpeg's first complaint, without its context.
func (w *ffmpegLog) firstLine() string {
	w.mu.Lock()
	defer w.mu.Unlock()
	line, _, _ := strings.Cut(strings.TrimSpace(string(w.buf)), "\n")
	return ffmpegContext.ReplaceAllString(strings.TrimSpace(line), "")
}
