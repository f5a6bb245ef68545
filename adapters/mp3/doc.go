// Package mp3 measures and decodes uploaded MP3 recordings.
//
// Prober (a ports.AudioProbe) streams a file once, without decoding it: it
// skips ID3v2 tags, finds the MPEG audio frames, tells non-MP3 files apart
// with a readable reason and computes the exact duration from the frames it
// counts. Splitter (a ports.ChannelSplitter) decodes with the copy of
// go-mp3 kept in internal/gomp3 and writes each channel as a 16 kHz mono
// WAV file for speech recognition. Chunker (a ports.AudioChunker) cuts
// recordings longer than a speech engine takes into pieces at their
// silences: MP3 uploads into runs of frames, without decoding, and
// Splitter's WAV files (a stereo call's channels) into WAV pieces.
//
// Both stream in constant memory whatever the length of the recording: a
// bufio.Reader holds the only window onto the file, and frames are handed on
// one at a time.
//
// Every MPEG-1, MPEG-2 and MPEG-2.5 layer III sample rate (8 to 48 kHz) in
// every channel mode decodes; TestDecodeMatchesFFmpeg holds the PCM to
// Debian's ffmpeg. go-mp3 v0.3.4 lacked MPEG-2.5 and got padded MPEG-2
// frame sizes wrong: both are fixed in internal/gomp3 (its README lists
// every change; docs/decisions.md says why a copy). Frames still pass
// through frameSource (repack.go), which keeps a cut stream's first frames
// from reading a reservoir that is not there. go-mp3 panics on some corrupt
// frames: the panic is recovered and the frame becomes silence.
package mp3
