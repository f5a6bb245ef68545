// Package mp3 measures and decodes uploaded MP3 recordings.
//
// Prober (a ports.AudioProbe) streams a file once, without decoding it: it
// skips ID3v2 tags, finds the MPEG audio frames, tells non-MP3 files apart
// with a readable reason and computes the exact duration from the frames it
// counts. Splitter (a ports.ChannelSplitter) decodes with
// github.com/hajimehoshi/go-mp3 and writes each channel as a 16 kHz mono WAV
// file for speech recognition. Chunker (a ports.AudioChunker) cuts recordings
// longer than a speech engine takes into pieces at their silences: MP3
// uploads into runs of frames, without decoding, and Splitter's WAV files (a
// stereo call's channels) into WAV pieces.
//
// Both stream in constant memory whatever the length of the recording: a
// bufio.Reader holds the only window onto the file, and frames are handed on
// one at a time.
//
// Three defects of go-mp3 v0.3.4 are worked around here rather than patched.
// It computes the size of padded MPEG-2 frames one byte short, which turns
// 22.05 kHz files at 8–32, 80 and 96 kbit/s into noise, and it refuses
// MPEG-2.5: frames are rewritten before go-mp3 sees them (repack.go), so
// MPEG-2 decodes as it should and MPEG-2.5 at 11.025 and 12 kHz decodes
// too; MPEG-2.5 at 8 kHz cannot (go-mp3 lacks its scale-factor bands) and
// Splitter refuses it with a permanent error. And it panics on some corrupt
// frames: the panic is recovered and the frame becomes silence.
package mp3
