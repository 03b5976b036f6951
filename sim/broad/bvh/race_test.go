//go:build race

package bvh

// raceEnabled is true under the race detector: the million-body test then skips (make test runs it
// without -race).
const raceEnabled = true
