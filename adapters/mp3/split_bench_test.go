package mp3

import (
	"bytes"
	"context"
	"testing"
)

// BenchmarkSplitChannels decodes a short call (one upload's start-up cost)
// and five minutes of stereo speech into the 16 kHz WAV files speech
// recognition reads; audio-s/s is seconds of recording per second of
// wall time.
func BenchmarkSplitChannels(b *testing.B) {
	one := fixture(b, "call-stereo-22k.mp3")
	info, err := probe(b, bytes.NewReader(one))
	if err != nil {
		b.Fatal(err)
	}
	long := bytes.Repeat(one, int(300/info.Duration)+1)
	for _, c := range []struct {
		name string
		data []byte
	}{{"call", one}, {"5min", long}} {
		b.Run(c.name, func(b *testing.B) {
			in, err := probe(b, bytes.NewReader(c.data))
			if err != nil {
				b.Fatal(err)
			}
			b.SetBytes(int64(len(c.data)))
			for b.Loop() {
				if _, err := (Splitter{}).SplitChannels(context.Background(), bytes.NewReader(c.data), b.TempDir()); err != nil {
					b.Fatal(err)
				}
			}
			b.ReportMetric(in.Duration*float64(b.N)/b.Elapsed().Seconds(), "audio-s/s")
		})
	}
}
