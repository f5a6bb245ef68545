package diarize

import (
	"context"
	"encoding/binary"
	"errors"
	"fmt"
	"io"
	"math"

	"github.com/hyscribe/hyscribe/domain"
	"github.com/hyscribe/hyscribe/ports"
)

var _ ports.ChannelInspector = (*Diarizer)(nil)

// Thresholds of InspectChannels. A genuine agent/customer call has each
// voice on its own channel: the channels' samples are nearly uncorrelated
// (crosstalk at -25 dB gives about 0.1) and the quieter side is rarely more
// than 20 dB below the louder (a customer 18 dB quieter still is one).
const (
	dualMonoCorrelation = 0.9 // at or above: the same mix on both channels
	silentChannelDB     = -40 // at or below: the quieter channel is silence (or hiss)
)

// InspectChannels reads the two 16 kHz mono WAV files of a stereo call
// (SplitChannels' left.wav and right.wav) side by side, in constant memory,
// and says whether they are two speakers' channels or one call written
// twice (dual mono) or beside silence. The channel chosen for a mono call
// is the louder one.
func (d *Diarizer) InspectChannels(ctx context.Context, left, right string) (domain.ChannelLayout, error) {
	l, err := openFrames(left)
	if err != nil {
		return domain.ChannelLayout{}, fmt.Errorf("diarize: %w", err)
	}
	defer l.Close()
	r, err := openFrames(right)
	if err != nil {
		return domain.ChannelLayout{}, fmt.Errorf("diarize: %w", err)
	}
	defer r.Close()
	const block = 4096 // samples per read
	lb, rb := make([]byte, 2*block), make([]byte, 2*block)
	var ll, rr, lr float64
	for n := 0; ; n++ {
		if n%64 == 0 {
			if err := ctx.Err(); err != nil {
				return domain.ChannelLayout{}, err
			}
		}
		k := int(min(l.left, r.left, 2*block)) &^ 1
		if k == 0 {
			break
		}
		if _, err := io.ReadFull(l.r, lb[:k]); err != nil {
			return domain.ChannelLayout{}, fmt.Errorf("diarize: %s: %w", left, unexpected(err))
		}
		if _, err := io.ReadFull(r.r, rb[:k]); err != nil {
			return domain.ChannelLayout{}, fmt.Errorf("diarize: %s: %w", right, unexpected(err))
		}
		l.left, r.left = l.left-int64(k), r.left-int64(k)
		for i := 0; i < k; i += 2 {
			a := float64(int16(binary.LittleEndian.Uint16(lb[i:])))
			b := float64(int16(binary.LittleEndian.Uint16(rb[i:])))
			ll, rr, lr = ll+a*a, rr+b*b, lr+a*b
		}
	}
	return classify(ll, rr, lr), nil
}

// classify decides the layout from the channels' energies and their
// product sum.
func classify(ll, rr, lr float64) domain.ChannelLayout {
	out := domain.ChannelLayout{Kind: domain.TwoSpeakerStereo}
	loud, quiet := ll, rr
	if rr > ll {
		out.Channel, loud, quiet = 1, rr, ll
	}
	if loud == 0 { // both digitally silent: nothing to say
		return out
	}
	out.QuietDB = 10 * math.Log10(max(quiet/loud, 1e-12))
	if quiet > 0 {
		out.Correlation = lr / math.Sqrt(ll*rr)
	}
	switch {
	case out.QuietDB <= silentChannelDB:
		out.Kind = domain.OneSilentChannel
	case out.Correlation >= dualMonoCorrelation:
		out.Kind = domain.DualMono
	}
	return out
}

func unexpected(err error) error {
	if errors.Is(err, io.EOF) {
		return io.ErrUnexpectedEOF
	}
	return err
}
