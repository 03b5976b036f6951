//go:build !race

package bvh

const raceEnabled = false
