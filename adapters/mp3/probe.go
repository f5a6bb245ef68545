package mp3

import (
	"context"
	"fmt"
	"io"
	"math"

	"github.com/hyscribe/hyscribe/domain"
	"github.com/hyscribe/hyscribe/ports"
)

var _ ports.AudioProbe = Prober{}

// Prober measures MP3 files without decoding them. The zero value is ready.
type Prober struct{}

// Probe reads r to its end and measures the MP3 stream in it: channels,
// sample rate, average bitrate, audio frames and the exact duration. Files
// that are empty, not MP3 or too damaged to hold a stream yield a
// domain.Permanent error whose message says what the file is; read errors
// and a done ctx are returned as they are, wrapped.
//
// The duration is counted, not read from a header: the file has to be read
// to its end anyway to be validated, and the frames counted are exactly what
// a decoder will play. A Xing/Info or VBRI frame count describes the file
// the encoder wrote, which is wrong when the upload was cut short (the
// header promises more than is there), when files were concatenated (it
// promises less) or when a damaged stretch was skipped. The header is used
// for what only it knows: the frame that carries it is not audio, and
// LAME's encoder delay and padding are subtracted, the padding only when
// the count matches the header, i.e. when the end the encoder padded is
// still there.
func (Prober) Probe(ctx context.Context, r io.Reader) (domain.AudioInfo, error) {
	s := newScanner(ctx, r)
	defer s.release()
	st, err := s.begin()
	if err != nil {
		return domain.AudioInfo{}, probeError(err)
	}
	if err := checkLayer(st.ref); err != nil {
		return domain.AudioInfo{}, err
	}
	var frames, size int64
	for {
		_, f, err := s.next()
		if err == io.EOF {
			break
		}
		if err != nil {
			return domain.AudioInfo{}, probeError(err)
		}
		frames++
		size += int64(len(f))
	}
	if frames == 0 {
		return domain.AudioInfo{}, corruptError("it holds no audio frames")
	}
	ref := st.ref
	samples := frames * int64(ref.samples)
	played := samples - trim(st.tag, frames)
	return domain.AudioInfo{
		Format:     "mp3",
		Duration:   float64(max(played, 0)) / float64(ref.sampleRate),
		Channels:   ref.channels(),
		SampleRate: ref.sampleRate,
		Bitrate:    int(math.Round(float64(size*8) * float64(ref.sampleRate) / float64(samples))),
		Frames:     frames,
	}, nil
}

// MaxGaplessSamples bounds the encoder delay and the padding a LAME tag
// may take off the charge (docs/security.md): encoders write at most about
// one frame and a half of each (LAME 576 and up to 1,700, FFmpeg 1,105);
// the 12-bit fields allow 4,095, a second at 8 kHz. A tag past the bound
// is not an encoder's: nothing is taken off.
const MaxGaplessSamples = 2304

// trim is how many decoded samples are encoder delay and padding rather than
// the recording, for a stream of frames audio frames.
func trim(tag *infoTag, frames int64) int64 {
	if tag == nil || !tag.hasGap || tag.delay > MaxGaplessSamples || tag.padding > MaxGaplessSamples {
		return 0
	}
	n := int64(tag.delay)
	if tag.frames == frames {
		n += int64(tag.padding)
	}
	return n
}

// checkLayer refuses MPEG audio that is not layer III: .mp2 and .mp1 files
// are MPEG audio too, but not what the service accepts (the API takes MP3).
func checkLayer(h header) error {
	if h.layer == 3 {
		return nil
	}
	return domain.NotMP3(fmt.Sprintf("%s audio (MP%d)", h.describe(), h.layer), "")
}

// probeError wraps errors that are not the customer's file's fault.
func probeError(err error) error {
	if domain.IsPermanent(err) {
		return err
	}
	return fmt.Errorf("mp3.Probe: %w", err)
}
