package diarize

import (
	"context"
	"math/rand/v2"
	"runtime"
	"sync/atomic"
	"testing"

	"github.com/hyscribe/hyscribe/internal/heaptest"
)

// BenchmarkDiarize30MinuteCall diarizes a 30-minute two-speaker call (the
// test suite's 16.9 s call, 107 times over) and reports the time per audio
// minute and the peak heap in use while it runs: the long-call memory
// figure of make bench (docs/quality.md). Diarization keeps a few bytes per
// frame and the features of speech frames, never the audio.
func BenchmarkDiarize30MinuteCall(b *testing.B) {
	call := readSamples(b, decode(b, "call-mono-16k.mp3"))
	const seconds = 107 * 16.884
	path := writeWAV(b, seconds, func(i int, _ *rand.Rand) float64 { return call[i%len(call)] })
	call = nil
	runtime.GC()
	var peak atomic.Uint64
	stop := heaptest.SamplePeak(&peak)
	b.ResetTimer()
	for range b.N {
		turns, err := New().Diarize(context.Background(), path)
		if err != nil || len(turns) < 300 {
			b.Fatalf("%d turns, %v", len(turns), err)
		}
	}
	b.StopTimer()
	stop()
	b.ReportMetric(b.Elapsed().Seconds()/float64(b.N)/(seconds/60), "s/audio-min")
	b.ReportMetric(float64(peak.Load())/1e6, "MB-peak-heap")
}
