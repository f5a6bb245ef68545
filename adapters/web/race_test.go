//go:build race

package web_test

// raceMemory is how much more memory the race detector makes a program use
// (its shadow memory): the peak-RSS bounds are multiplied by it. 30 gated
// sign-ins peaked at 1.0–1.7 GiB under -race against 0.5 GiB without it,
// so 2 was too tight on a loaded machine. Without the gate the same test
// times out under -race, and the plain run (factor 1) measures 1.5 GiB
// against its 768 MiB bound, so the bound still tells the two apart.
const raceMemory = 3
