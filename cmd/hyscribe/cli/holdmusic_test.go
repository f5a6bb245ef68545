package cli_test

import (
	"testing"
	"time"

	"github.com/hyscribe/hyscribe/client"
)

// TestHoldMusicTakesNoSpeaker runs the two-speaker call of
// call-mono-16k.mp3 with 12 s of synthetic music on hold (a sustained pad
// under a plucked melody, as loud as the voices) before it, and in the
// pause after its first turn, through the real service as a mono
// phone_call. The fake engine transcribes every stretch of sound, the music
// included (as engines do hallucinate on music); every word of the call's
// turns must carry its speaker's label, one label per speaker. Before the
// diarizer kept music out, the music took one label and both voices the
// other.
func TestHoldMusicTakesNoSpeaker(t *testing.T) {
	if testing.Short() {
		t.Skip("starts the whole service")
	}
	vars, _, key, svc := clientService(t, nil)
	c := client.New("http://"+svc.HTTPAddr(), key)
	c.PollInterval = 100 * time.Millisecond
	for fixture, music := range map[string][2]float64{
		"call-musicfirst-16k.mp3": {0, 12},
		"call-musicmid-16k.mp3":   {5.16, 17.16},
	} {
		t.Run(fixture, func(t *testing.T) {
			_, words, _ := phoneCallOf(t, c, env(vars), fixture, client.PhoneCall)
			labelOf := map[int]map[string]int{1: {}, 2: {}}
			inTurns := 0
			for _, w := range words {
				mid := (w.Start + w.End) / 2
				if mid >= music[0] {
					mid -= music[1] - music[0] // back to the call's own time
					if mid < music[0] {
						continue // a word the engine heard in the music
					}
				}
				mid -= 0.069
				for _, tr := range fakeStereoTurns {
					if mid >= tr.start-0.3 && mid <= tr.end+0.3 {
						labelOf[tr.speaker][*w.Speaker]++
						inTurns++
					}
				}
			}
			t.Logf("labels by turn speaker: %v", labelOf)
			if inTurns < 8 {
				t.Fatalf("only %d words in the call's turns: %+v", inTurns, words)
			}
			if len(labelOf[1]) != 1 || len(labelOf[2]) != 1 {
				t.Errorf("each speaker's turns should carry one label: %v", labelOf)
			}
			for l := range labelOf[1] {
				if labelOf[2][l] > 0 {
					t.Errorf("both speakers got label %q: %v", l, labelOf)
				}
			}
		})
	}
}
