//go:build race

package collide

// raceEnabled is true when the race detector is on: sync.Pool then drops a share of what is put back
// at random, so the pooled scratch of the cylinder pairs is allocated anew and the allocation checks
// skip (make test runs them without -race too).
const raceEnabled = true
