//go:build !race

package collide

const raceEnabled = false
