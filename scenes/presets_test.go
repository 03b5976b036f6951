package scenes

import (
	"math"
	"sort"
	"strings"
	"testing"
)

func TestPresetsAreValidAndBuildWorlds(t *testing.T) {
	want := map[string]int{ // bodies, including static ones
		"bowling": 12, "bunny": 9, "rocks": 54, "dominoes": 41, "incline": 16, "mixed": 76, "pile": 10001, "pile100k": 100001, "pile1m": 1000001, "pyramid": 386,
		"pyramid20": 211, "rain": 10005, "stack": 21, "terrain": 37, "hills": 81, "tumbling": 1, "wall": 97,
		"pendulum": 3, "cradle": 6, "chain": 31, "bridge": 28, "door": 4, "engine": 4, "car": 6, "ragdoll": 221, "chain100": 101, "impulse-stack": 16, "penalty-drop": 5, "jelly": 82, "furniture": 11,
		"large_pyramid": 5051, "many_pyramids": 10781, "joint_grid": 10000,
	}
	names := Names()
	if !sort.StringsAreSorted(names) || len(names) != len(want) {
		t.Fatalf("Names() = %v", names)
	}
	for _, name := range names {
		s, ok := Preset(name)
		if !ok {
			t.Fatalf("Preset(%q) missing", name)
		}
		// Box3D's scenes keep the names of the peer files they export as, byte for byte
		// (box3d_presets.go): "box3d NAME: what it is".
		if s.Name != name && !strings.HasPrefix(s.Name, "box3d "+name+": ") {
			t.Errorf("%s: scene name %q", name, s.Name)
		}
		w, err := s.World(Options{})
		if err != nil {
			t.Fatalf("%s: %v", name, err)
		}
		if w.Bodies.Len() != want[name] {
			t.Errorf("%s: %d bodies, want %d", name, w.Bodies.Len(), want[name])
		}
	}
	if _, ok := Preset("nope"); ok {
		t.Error("Preset(nope) found")
	}
}

func TestPresetReturnsAFreshCopy(t *testing.T) {
	a, _ := Preset("stack")
	a.Bodies[1].Position[1] = 99
	b, _ := Preset("stack")
	if b.Bodies[1].Position[1] == 99 {
		t.Error("presets share state")
	}
}

func TestPyramid20IsTheBenchmarkPyramid(t *testing.T) {
	s, _ := Preset("pyramid20")
	if s.Bodies[0].Shape.Type != "plane" || *s.Dt != 1.0/60 {
		t.Fatal("want a ground plane first and dt 1/60")
	}
	boxes := s.Bodies[1:]
	if len(boxes) != 210 {
		t.Fatalf("%d boxes", len(boxes))
	}
	k := 0
	for i := 0; i < 20; i++ {
		n := 20 - i
		for j := 0; j < n; j++ {
			b := boxes[k]
			k++
			wantX := (float64(j) - float64(n-1)/2) * 1.05
			if math.Abs(b.Position[0]-wantX) > 1e-9 || b.Position[1] != 0.5+float64(i) || b.Position[2] != 0 ||
				*b.Shape.HalfExtents != (Vec3{0.5, 0.5, 0.5}) {
				t.Fatalf("row %d box %d at %v", i, j, *b.Position)
			}
		}
	}
}

func TestPileDrawsJitterFromTheGeneratorInOrder(t *testing.T) {
	s, _ := Preset("pile")
	boxes := s.Bodies[1:]
	if len(boxes) != 10000 {
		t.Fatalf("%d boxes", len(boxes))
	}
	// Computed independently from s = s*1664525 + 1013904223 (uint32, seed 12345),
	// r = (s >> 8) / 2^24, value = (r - 0.5) * range, three draws per box (x, z, yaw).
	want := []struct{ x, y, z, yaw float64 }{
		{-5.203775839805603, 0.55, -5.204007132053375, 0.004315578937530518},
		{-5.1669057583808895, 0.55, -4.000398231744765, -0.03875383734703064},
		{-5.175246638059616, 0.55, -2.8720990693569184, 0.00961000919342041},
	}
	for i, w := range want {
		b := boxes[i]
		q := b.Rotation
		yaw := 2 * math.Atan2(q[1], q[3])
		if math.Abs(b.Position[0]-w.x) > 1e-9 || b.Position[1] != w.y || math.Abs(b.Position[2]-w.z) > 1e-9 ||
			math.Abs(yaw-w.yaw) > 1e-9 || q[0] != 0 || q[2] != 0 {
			t.Errorf("box %d: position %v yaw %v, want %+v", i, *b.Position, yaw, w)
		}
	}
	// Layer pitch, grid centring and jitter bounds.
	var sumX, sumZ float64
	for i, b := range boxes {
		layer := i / 100
		if math.Abs(b.Position[1]-(0.55+1.1*float64(layer))) > 1e-9 {
			t.Fatalf("box %d at y %v", i, b.Position[1])
		}
		ix, iz := (i/10)%10, i%10
		if math.Abs(b.Position[0]-(float64(ix)-4.5)*1.15) > 0.03 || math.Abs(b.Position[2]-(float64(iz)-4.5)*1.15) > 0.03 {
			t.Fatalf("box %d jittered too far: %v", i, *b.Position)
		}
		sumX += b.Position[0]
		sumZ += b.Position[2]
	}
	if math.Abs(sumX/10000) > 0.005 || math.Abs(sumZ/10000) > 0.005 {
		t.Errorf("grid not centred: mean x %v, z %v", sumX/10000, sumZ/10000)
	}
}

func TestInclineNamesSayWhetherTanThetaExceedsMu(t *testing.T) {
	s, _ := Preset("incline")
	n := 0
	for _, b := range s.Bodies {
		if b.Type != "" {
			continue
		}
		n++
		th, mu, sticks, ok := InclineBox(b.Name)
		if !ok {
			t.Fatalf("%s: not an incline box's name", b.Name)
		}
		if slides := math.Tan(th) > mu; slides != !sticks {
			t.Errorf("%s: tan %v, mu %v", b.Name, math.Tan(th), mu)
		}
		if got := math.Sqrt(*b.Friction * 1); math.Abs(got-mu) > 1e-9 { // sqrt(box x ramp), ramps have 1
			t.Errorf("%s: effective friction %v", b.Name, got)
		}
	}
	if n != 12 {
		t.Errorf("%d boxes", n)
	}
	for _, name := range []string{"ramp15", "ground", "ramp15_tan0.27_mu0.4_rolls", "ramp_x"} {
		if _, _, _, ok := InclineBox(name); ok {
			t.Errorf("InclineBox(%q) took it for a box", name)
		}
	}
}

// sscan parses "ramp<deg>_tan<tan>_mu<mu>_<verdict>".
func TestTumblingSpinsAboutTheIntermediateAxis(t *testing.T) {
	s, _ := Preset("tumbling")
	if len(s.Bodies) != 1 || s.Bodies[0].Name != "handle" || *s.Gravity != (Vec3{}) {
		t.Fatalf("want one body named handle in zero gravity")
	}
	d := s.BodyDef(0)
	I := d.Shape.UnitInertia()
	w := s.Bodies[0].AngularVelocity
	// The largest spin component must be about the axis with the middle moment.
	axis := 0
	for k := 1; k < 3; k++ {
		if math.Abs(w[k]) > math.Abs(w[axis]) {
			axis = k
		}
	}
	lo, hi := min(I[0], I[1], I[2]), max(I[0], I[1], I[2])
	if I[axis] == lo || I[axis] == hi || I[0] == I[1] || I[1] == I[2] || I[0] == I[2] {
		t.Errorf("spin axis %d, moments %v", axis, I)
	}
	if w[(axis+1)%3] == 0 && w[(axis+2)%3] == 0 {
		t.Error("no perturbation")
	}
}

func TestRainHasTenThousandBoxesAboveAFiveBoxBin(t *testing.T) {
	s, _ := Preset("rain")
	static, boxes := 0, 0
	for _, b := range s.Bodies {
		switch {
		case b.Type == "static" && b.Shape.Type == "box":
			static++
		case b.Type == "" && b.Shape.Type == "box":
			boxes++
			if b.Position[1] < 6 || math.Abs(b.Position[0]) > 6.5 || math.Abs(b.Position[2]) > 6.5 {
				t.Fatalf("%s at %v: not above the bin", b.Name, *b.Position)
			}
		default:
			t.Fatalf("unexpected body %+v", b)
		}
	}
	if static != 5 || boxes != 10000 {
		t.Errorf("%d static boxes, %d falling", static, boxes)
	}
}
