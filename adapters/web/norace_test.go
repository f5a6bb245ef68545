//go:build !race

package web_test

// raceMemory is 1 without the race detector (race_test.go).
const raceMemory = 1
