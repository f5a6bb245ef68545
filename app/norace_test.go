//go:build !race

package app_test

// raceDetector is false without the race detector (race_test.go).
const raceDetector = false
