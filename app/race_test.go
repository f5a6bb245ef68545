//go:build race

package app_test

// raceDetector: the race detector makes MP3 decoding about 2.5 times
// slower (15 s of CPU per minute of stereo audio), so tests that decode
// long recordings scale them down (see TestHourRecordingInPiecesSizedForTheEnginesSlots).
const raceDetector = true
