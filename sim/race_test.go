//go:build race

package sim

// raceEnabled is true when the race detector is on: the 30-second stability tests then skip, since
// they run ten times slower and check physics, not concurrency (make test runs them without -race).
const raceEnabled = true
