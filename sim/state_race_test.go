//go:build race

package sim_test

// underRace is true with the race detector on: the slower state tests then run their small scenes only.
const underRace = true
