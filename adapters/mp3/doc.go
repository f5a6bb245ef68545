// Package mp3 measures and decodes uploaded MP3 recordings.
//
// Prober (a ports.AudioProbe) streams a file once, without decoding it: it
// skips ID3v2 tags, finds the MPEG audio frames, tells non-MP3 files apart
// with a readable reason and computes the exact duration from the frames it
// counts. Splitter (a ports.ChannelSplitter) hands those same frames to
// FFmpeg, run as a bounded subprocess (ffmpeg.go), and writes each channel
// of the PCM it gets back as a 16 kHz mono WAV file for speech recognition.
// Chunker (a ports.AudioChunker) cuts recordings longer than a speech
// engine takes into pieces at their silences: MP3 uploads into runs of
// frames, without decoding, and Splitter's WAV files (a stereo call's
// channels) into WAV pieces.
//
// All three stream in constant memory whatever the length of the
// recording: a bufio.Reader holds the only window onto the file, frames
// are handed on one at a time, and the decoder's PCM is resampled and
// written as it comes.
//
// Every MPEG-1, MPEG-2 and MPEG-2.5 layer III sample rate (8 to 48 kHz) in
// every channel mode decodes; TestDecodeMatchesFFmpeg holds the adapter's
// PCM to Debian's ffmpeg decoding the file on its own, sample for sample.
// docs/decisions.md ("MP3 decoder") says why FFmpeg.
package mp3
