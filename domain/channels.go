package domain

import "fmt"

// ChannelLayout is what the two channels of a stereo recording turned out
// to hold. Many recorders write one mix to both channels (dual mono) or the
// mix to one channel and silence to the other; such a call has both of its
// speakers on one channel and is diarized as mono.
type ChannelLayout struct {
	Kind        ChannelKind
	Channel     int     // the channel that carries the call, 0 (left) or 1, when Mono
	Correlation float64 // of the two channels' samples, -1 to 1
	QuietDB     float64 // the quieter channel's energy against the louder's, in dB (≤ 0)
}

// ChannelKind names a ChannelLayout.
type ChannelKind string

// The layouts of a stereo recording.
const (
	TwoSpeakerStereo ChannelKind = "stereo"     // one speaker per channel
	DualMono         ChannelKind = "dual_mono"  // the same audio on both channels
	OneSilentChannel ChannelKind = "one_silent" // the call on one channel, silence on the other
)

// Mono reports whether the call is on one channel.
func (l ChannelLayout) Mono() bool { return l.Kind == DualMono || l.Kind == OneSilentChannel }

// Note is the line the job's history keeps about a stereo call taken as
// mono, for operators ("" for a genuine stereo call).
func (l ChannelLayout) Note() string {
	side := [2]string{"left", "right"}
	switch l.Kind {
	case DualMono:
		return fmt.Sprintf("stereo recording with the same audio on both channels (correlation %.2f): diarized as mono", l.Correlation)
	case OneSilentChannel:
		return fmt.Sprintf("stereo recording with the %s channel silent (%.0f dB below the %s): diarized as mono from the %s channel",
			side[1-l.Channel], l.QuietDB, side[l.Channel], side[l.Channel])
	}
	return ""
}
