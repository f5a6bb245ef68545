package mp3

import (
	"context"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"os"
	"path/filepath"
	"time"

	"github.com/hyscribe/hyscribe/adapters/internal/diskfull"
	"github.com/hyscribe/hyscribe/domain"
	"github.com/hyscribe/hyscribe/ports"
)

var _ ports.ChannelSplitter = Splitter{}

// SpeechRate is the sample rate of the WAV files Splitter writes.
const SpeechRate = 16000

// decoderDelay is the delay of the standard MP3 synthesis filter bank, in
// samples: LAME's gapless fields assume a decoder skips it along with the
// encoder delay.
const decoderDelay = 529

// Splitter decodes MP3 files into one 16 kHz WAV file per channel, with
// FFmpeg (docs/decisions.md, "MP3 decoder"). The zero value runs
// DefaultFFmpeg.
type Splitter struct {
	// FFmpeg is the decoder program: a path, or a name looked up on PATH
	// (HYSCRIBE_FFMPEG); empty: DefaultFFmpeg.
	FFmpeg string

	stall time.Duration // the decoder's time bound; 0: stallTimeout (tests shorten it)
}

// SplitChannels decodes the MP3 in r and writes its channels to dir as
// 16 kHz, 16-bit mono WAV files: mono.wav for a mono recording, left.wav
// and right.wav for any stereo mode. Existing files of those names are
// replaced. LAME's encoder delay and padding are trimmed, so the files last
// what Prober measures and times in them are times in the recording.
//
// Memory stays constant: frames stream through the decoder, and its PCM is
// resampled and written as it comes. Audio that cannot be decoded is a
// domain.Permanent error; a full disk is domain.ErrStorageFull; nothing is
// left in dir after an error.
func (sp Splitter) SplitChannels(ctx context.Context, r io.Reader, dir string) (paths []string, err error) {
	var outs []*channelOut
	defer func() { err = diskfull.Translate(err) }()
	defer func() {
		for _, o := range outs {
			if o != nil && err != nil {
				_ = o.w.f.Close() // the split failed (err is returned) and the file is removed
				os.Remove(o.w.f.Name())
			}
		}
	}()
	open := func(st start) error {
		names := []string{"mono.wav"}
		if st.ref.channels() == 2 {
			names = []string{"left.wav", "right.wav"}
		}
		for _, name := range names {
			w, err := createWAV(filepath.Join(dir, name), SpeechRate)
			if err != nil {
				return fmt.Errorf("mp3.SplitChannels: %w", err)
			}
			outs = append(outs, &channelOut{w: w, rs: newResampler(st.ref.sampleRate, SpeechRate)})
			paths = append(paths, w.f.Name())
		}
		return nil
	}
	if err := decodePCM(ctx, sp, r, open, func(pcm []byte) error { return emit(pcm, outs) }); err != nil {
		return nil, err
	}
	for _, o := range outs {
		o.pcm = o.rs.flush(o.pcm[:0])
		if err := o.w.write(o.pcm); err != nil {
			return nil, fmt.Errorf("mp3.SplitChannels: %w", err)
		}
		if err := o.w.close(); err != nil {
			return nil, fmt.Errorf("mp3.SplitChannels: %w", err)
		}
	}
	return paths, nil
}

// decodePCM decodes the MP3 in r with sp's ffmpeg: open learns what
// the stream is before any audio, then sink receives its interleaved 16-bit
// PCM (one or two channels) at the stream's own rate, LAME's encoder delay
// and padding trimmed. Errors of the file are domain.Permanent.
//
// The scanner that measures the file for billing (Prober) chooses what is
// decoded: ffmpeg is given exactly the audio frames it counts (no tags,
// junk or Info frame), so the decoded audio and the charged duration are of
// the same frames, and the trimming is this package's.
func decodePCM(ctx context.Context, sp Splitter, r io.Reader, open func(start) error, sink func(pcm []byte) error) (err error) {
	s := newScanner(ctx, r)
	defer s.release()
	st, err := s.begin()
	if err != nil {
		return splitError(err)
	}
	if err := checkLayer(st.ref); err != nil {
		return err
	}
	if err := open(st); err != nil {
		return err
	}
	dctx, cancel := context.WithCancelCause(ctx)
	defer cancel(nil)
	dec, err := startFFmpeg(dctx, cancel, sp.FFmpeg, sp.stall, st.ref.channels(), st.ref.sampleRate)
	if err != nil {
		return fmt.Errorf("mp3.SplitChannels: ffmpeg: %w", err)
	}
	fed := make(chan feedResult, 1)
	go func() { fed <- feed(s, dec.in, cancel) }()

	bpf := 2 * st.ref.channels() // bytes per sample frame
	t := newTrimmer(st.tag, bpf)
	buf := make([]byte, 32<<10-(32<<10)%bpf)
	var decoded int64 // sample frames
	var sinkErr error
	for {
		n, rerr := dec.read(buf)
		n -= n % bpf
		decoded += int64(n / bpf)
		if sinkErr == nil && n > 0 {
			if sinkErr = t.push(buf[:n], sink); sinkErr != nil {
				cancel(sinkErr) // stop the decoder; the feeder then stops too
			}
		}
		if rerr != nil {
			break
		}
	}
	in := <-fed
	werr := dec.wait()
	switch {
	case sinkErr != nil:
		// First: the feeder's error then is only the decoder stopping
		// (cancel above), and the sink's (a full disk) is the cause.
		return fmt.Errorf("mp3.SplitChannels: %w", sinkErr)
	case in.err != nil:
		return splitError(in.err)
	case ctx.Err() != nil:
		return fmt.Errorf("mp3.SplitChannels: %w", ctx.Err())
	case errors.Is(context.Cause(dctx), errStalled):
		return fmt.Errorf("mp3.SplitChannels: %w", errStalled)
	case werr != nil:
		return domain.UndecodableMP3(werr)
	}
	// ffmpeg drops a frame it cannot decode (corrupt data that still looked
	// like a frame) and fills its time with silence (ffmpegArgs); a stream
	// with more than one in ten bad is refused. Frames dropped at the very
	// end leave no later time to fill: silence is added there, so the
	// recording lasts what was measured.
	if lost := dec.stderr.droppedFrames(); lost > 10 && lost*10 > in.frames {
		return domain.UndecodableMP3(fmt.Errorf("%d of its %d audio frames are corrupt", lost, in.frames))
	}
	if want := in.frames * int64(st.ref.samples); want > decoded {
		if err := t.push(make([]byte, bpf*int(want-decoded)), sink); err != nil {
			return fmt.Errorf("mp3.SplitChannels: %w", err)
		}
	}
	if err := t.finish(st.tag, in.frames, sink); err != nil {
		return fmt.Errorf("mp3.SplitChannels: %w", err)
	}
	return nil
}

// feedResult is what feed did: the frames it wrote and the scanner's error
// other than io.EOF.
type feedResult struct {
	frames int64
	err    error
}

// feed writes the stream's frames to the decoder's input and closes it. A
// scanner error (a read error, a change of format) stops the decoder too;
// a write error means the decoder ended, and its exit says why.
func feed(s *scanner, in io.WriteCloser, cancel context.CancelCauseFunc) feedResult {
	// Closing the pipe is the decoder's end of input; a failure to close means
	// the decoder already ended, and its exit status says why.
	defer in.Close() //nolint:errcheck
	var res feedResult
	for {
		_, f, err := s.next()
		if err == io.EOF {
			return res
		}
		if err != nil {
			res.err = err
			cancel(err)
			return res
		}
		if _, err := in.Write(f); err != nil {
			return res
		}
		res.frames++
	}
}

// channelOut is one channel on its way to its file.
type channelOut struct {
	w   *wavWriter
	rs  *resampler
	in  []float64
	pcm []int16
}

// trimmer removes the encoder delay and padding LAME's tag declares from the
// decoded PCM: delay plus the decoder's own delay at the start, and
// at the end padding less the decoder delay, held back until the end shows
// whether the encoder's last frame is there (a cut file keeps its tail).
type trimmer struct {
	bpf  int    // bytes per sample frame (every channel's sample)
	skip int    // sample frames still to drop at the start
	hold int    // sample frames kept back at the end
	tail []byte // held-back PCM, at most hold sample frames
}

func newTrimmer(tag *infoTag, bpf int) *trimmer {
	t := &trimmer{bpf: bpf}
	if tag != nil && tag.hasGap {
		t.skip = tag.delay + decoderDelay
		t.hold = max(tag.padding-decoderDelay, 0)
	}
	return t
}

func (t *trimmer) push(pcm []byte, sink func([]byte) error) error {
	drop := min(t.skip, len(pcm)/t.bpf)
	t.skip -= drop
	pcm = pcm[t.bpf*drop:]
	if t.hold == 0 {
		return sink(pcm)
	}
	t.tail = append(t.tail, pcm...)
	if over := len(t.tail) - t.bpf*t.hold; over > 0 {
		if err := sink(t.tail[:over]); err != nil {
			return err
		}
		t.tail = append(t.tail[:0], t.tail[over:]...)
	}
	return nil
}

// finish emits the held-back tail unless the stream ended where the encoder
// ended it, in which case the tail is padding.
func (t *trimmer) finish(tag *infoTag, frames int64, sink func([]byte) error) error {
	if tag != nil && tag.frames == frames {
		return nil
	}
	return sink(t.tail)
}

// emit splits interleaved 16-bit PCM into its channels, one per out,
// resamples and writes them.
func emit(pcm []byte, outs []*channelOut) error {
	stride := 2 * len(outs)
	for ch, o := range outs {
		o.in = o.in[:0]
		for i := 2 * ch; i+1 < len(pcm); i += stride {
			o.in = append(o.in, float64(int16(binary.LittleEndian.Uint16(pcm[i:]))))
		}
		o.pcm = o.rs.push(o.in, o.pcm[:0])
		if err := o.w.write(o.pcm); err != nil {
			return err
		}
	}
	return nil
}

// splitError wraps errors that are not the customer's file's fault.
func splitError(err error) error {
	if domain.IsPermanent(err) {
		return err
	}
	return fmt.Errorf("mp3.SplitChannels: %w", err)
}
