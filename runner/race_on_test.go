//go:build race

package runner_test

// raceEnabled: the race detector is on, and allocation counts differ.
const raceEnabled = true
