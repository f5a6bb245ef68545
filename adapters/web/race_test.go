//go:build race

package web_test

// raceMemory is how much more memory the race detector makes a program use
// (its shadow memory): the peak-RSS bounds are multiplied by it.
const raceMemory = 2
