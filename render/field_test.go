package render

import (
	"math"
	"testing"

	"tumble/render/instance"
	"tumble/sim/geom"
)

// hills is a 513 x 513 field of gentle hills, 0.0625 m apart (32 m across).
func hills(t *testing.T) *geom.HeightGrid {
	const n = 513
	hs := make([]float32, n*n)
	for j := range n {
		for i := range n {
			x, z := float64(i)*0.0625-16, float64(j)*0.0625-16
			hs[j*n+i] = float32(2 + 1.5*math.Sin(0.2*x)*math.Cos(0.17*z))
		}
	}
	f, err := geom.NewHeightField(n, n, 0.0625, 0.0625, hs)
	if err != nil {
		t.Fatal(err)
	}
	return f
}

// frame places the levels field f is drawn with from camera c as a frame of the renderer does, and
// returns them and how many were copied (fresh).
func frame(s *fieldSlots, f *geom.HeightGrid, c instance.FieldCamera) (ls []*instance.FieldLevel, copied int) {
	s.nextFrame()
	instance.FieldView(f, c, func(l *instance.FieldLevel) { ls = append(ls, l) })
	for _, l := range ls {
		if _, fresh, _ := s.place(l); fresh {
			copied++
		}
	}
	return ls, copied
}

// A frame copies to GL only the levels not already there: none while the view holds or turns
// among chunks already drawn, only the new ones when the eye moves; no two levels share a slot, each
// slot holds its level, and the slots of levels left behind are freed and reused.
func TestFieldSlotsCopyOnlyTheLevelsAFrameBrings(t *testing.T) {
	f := hills(t)
	var s fieldSlots
	c := instance.FieldCamera{Eye: geom.Vec3{0, 6, 10}, Look: geom.Vec3{0, -0.5, -1}.Normalize(), Cone: 0.6}
	ls, copied := frame(&s, f, c)
	if copied != len(ls) || copied == 0 {
		t.Fatalf("first frame: %d levels copied of %d", copied, len(ls))
	}
	if _, copied = frame(&s, f, c); copied != 0 {
		t.Errorf("the same view again: %d levels copied, want none", copied)
	}
	c.Eye[0] += 0.001
	if _, copied = frame(&s, f, c); copied != 0 {
		t.Errorf("a 1 mm move: %d levels copied, want none", copied)
	}
	// Turning the camera: only the chunks it brings into view are new.
	for turn := range 12 {
		a := 0.1 * float64(turn+1)
		c.Look = geom.Vec3{float32(-math.Sin(a)), -0.5, float32(-math.Cos(a))}.Normalize()
		had := len(s.at)
		ls, copied = frame(&s, f, c)
		if copied != len(s.at)-had {
			t.Fatalf("turn %d: %d levels copied, %d new in the slots", turn, copied, len(s.at)-had)
		}
		if copied == len(ls) {
			t.Errorf("turn %d: all %d levels copied again", turn, copied)
		}
	}
	checkSlots(t, &s)
	// Away from the field for longer than the slots are kept: every slot is freed, then reused.
	made := s.pools
	for range fieldKeepFrames + fieldKeepFrames/2 {
		s.nextFrame()
	}
	if len(s.at) != 0 {
		t.Fatalf("%d levels still hold slots after %d frames undrawn", len(s.at), fieldKeepFrames+fieldKeepFrames/2)
	}
	c.Eye = geom.Vec3{-8, 3, -8}
	frame(&s, f, c)
	checkSlots(t, &s)
	for p := range s.pools {
		if s.pools[p].n > max(made[p].n, fieldSlotsFirst) {
			t.Errorf("stride %d: %d slots after the view moved, %d before: freed slots not reused", 1<<p, s.pools[p].n, made[p].n)
		}
	}
}

// checkSlots fails unless every placed level has a slot of its own, below its pool's count, in the
// pool of its stride, whose vertices fit it.
func checkSlots(t *testing.T, s *fieldSlots) {
	t.Helper()
	held := map[[2]int]bool{}
	for l, sl := range s.at {
		k := [2]int{sl.pool, sl.slot}
		if held[k] || sl.slot >= s.pools[sl.pool].n || 1<<sl.pool != l.Stride || len(l.Verts) > instance.FieldLevelVerts(l.Stride) {
			t.Fatalf("level of stride %d (%d vertices) in slot %v of %d: shared, out of range or too small", l.Stride, len(l.Verts), k, s.pools[sl.pool].n)
		}
		held[k] = true
	}
}
