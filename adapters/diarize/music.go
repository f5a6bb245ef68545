package diarize

import "slices"

// Music on hold, and other sound that goes on without a break, is kept out
// of the speakers. Voice activity is energy-based, so 45 s of hold music
// is "speech" to it; with two speakers to find, the music took one label
// and both voices the other. Speech is never steady: between syllables,
// words and turns its energy falls toward the noise floor several times a
// second (consonants, closures, pauses), whatever the voice or the noise
// (the floor is measured with the noise in it). Music rides on sustained
// notes, pads and reverberation, and does not.
//
// A second of frames (every half second) is steady when fewer than
// steadyDips of them dip: fall dipDB below the loud level of that second
// (its 90th percentile), and below halfway, in dB, from the recording's
// floor to that level (in noise, speech's dips reach the noise). A run of steady
// seconds lasting musicFrames or more is not speech. Three seconds is
// far longer than any stretch of speech without a dip (a held vowel lasts
// under a second), so speech, in noise or not, is never taken for music,
// and ring-back tones (1–2 s on) and DTMF stay what they were.
const (
	musicBlock  = 100 // frames: 1 s
	musicHop    = 50
	steadyDips  = 0.03
	musicFrames = 300 // 3 s
	dipDB       = 12  // a dip is at least this far below the loud level too
)

// dropMusic clears the speech frames of speech that lie in long steady runs
// and returns how many it cleared.
func dropMusic(energy []float32, speech []bool) int {
	if len(energy) < musicFrames {
		return 0
	}
	floor := floorOf(energy)
	steady := make([]bool, len(energy))
	mids := make([]float64, len(energy)) // the halfway level of the steady block over each frame
	block := make([]float32, musicBlock)
	for s := 0; s+musicBlock <= len(energy); s += musicHop {
		copy(block, energy[s:s+musicBlock])
		slices.Sort(block)
		loud := float64(block[musicBlock*9/10])
		mid := max(loud-dipDB, floor+(loud-floor)/2)
		dips := 0
		for _, e := range energy[s : s+musicBlock] {
			if float64(e) < mid {
				dips++
			}
		}
		if float64(dips) < steadyDips*musicBlock && loud-floor >= 6 {
			for f := s; f < s+musicBlock; f++ {
				steady[f], mids[f] = true, mid
			}
		}
	}
	cleared := 0
	for i := 0; i < len(steady); {
		if !steady[i] {
			i++
			continue
		}
		j := i
		for j < len(steady) && steady[j] {
			j++
		}
		if j-i >= musicFrames {
			// The run's edges lie on the half-second grid: the music goes
			// on, frame by frame, until its first dip.
			first, last := mids[i], mids[j-1]
			for i > 0 && float64(energy[i-1]) >= first {
				i--
			}
			for j < len(energy) && float64(energy[j]) >= last {
				j++
			}
			for f := i; f < j; f++ {
				if speech[f] {
					speech[f] = false
					cleared++
				}
			}
		}
		i = j
	}
	return cleared
}
