package ui

import (
	"testing"

	"tumble/scenes"
	"tumble/sim"
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

// The camera frames what moves, and a static body only near it: Box3D's large_pyramid stands on a
// ground box 800 m across, which framed whole shrank the 100 m pyramid to a speck; framed, the
// pyramid's width is at least 80 % of the framed box's and the ground's top under it is in the box.
// With all (F twice), the ground is framed whole.
func TestFrameBoundsClipAStaticGroundToTheMovingBodies(t *testing.T) {
	s, ok := scenes.Preset("large_pyramid")
	if !ok {
		t.Fatal("no large_pyramid preset")
	}
	w, err := s.World(scenes.Options{})
	if err != nil {
		t.Fatal(err)
	}
	defer w.Close()
	lo, hi, _, ok := frameBounds(w, false)
	if !ok {
		t.Fatal("nothing to frame")
	}
	var pyramid float32 // the moving boxes' width along x
	for i := range w.Bodies.Len() {
		if w.Bodies.Type[i] != sim.Static {
			pyramid = max(pyramid, 2*abs32(w.Bodies.Position[i][0])+1)
		}
	}
	if span := hi.Sub(lo); span[0] > pyramid/0.8 || span[2] > pyramid/0.8 || lo[1] > 0 || lo[1] < -2 {
		t.Errorf("framed %v to %v (%v across) for a pyramid %v m wide: want it at least 80%% of the box, the ground's top (y = 0) in",
			lo, hi, span, pyramid)
	}
	lo, hi, _, _ = frameBounds(w, true)
	if span := hi.Sub(lo); span[0] < 800 {
		t.Errorf("framed all: %v across, want the 800 m ground whole", span)
	}
}

func abs32(x float32) float32 { return max(x, -x) }
