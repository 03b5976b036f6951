package ui

import (
	"testing"

	"tumble/scenes"
)

// On a height field the camera frames the bodies, as on a plane: the hills preset's 64 m terrain is
// the ground, and framed whole it would shrink the bodies in its middle to dots.
func TestFrameBoundsLeaveOutAHeightField(t *testing.T) {
	s, ok := scenes.Preset("hills")
	if !ok {
		t.Fatal("no hills preset")
	}
	w, err := s.World(scenes.Options{})
	if err != nil {
		t.Fatal(err)
	}
	lo, hi, _, ok := frameBounds(w, true)
	if !ok {
		t.Fatal("nothing to frame")
	}
	if span := hi.Sub(lo); span[0] > 30 || span[2] > 30 {
		t.Errorf("framed %v to %v (%v across): the 64 m field, not the bodies on it", lo, hi, span)
	}
}
