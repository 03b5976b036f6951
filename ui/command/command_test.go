package command

import (
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"tumble/scenes"
	"tumble/sim"
	"tumble/sim/geom"
)

func preset(t *testing.T, name string) *Session {
	t.Helper()
	s, err := NewPreset(name)
	if err != nil {
		t.Fatal(err)
	}
	s.SetBackends(testBackends)
	return s
}

// ground returns a session on a scene with only a ground plane.
func ground(t *testing.T) *Session {
	t.Helper()
	sc, err := scenes.Parse("ground.json", []byte(`{"bodies": [{"name": "ground", "type": "static",
		"shape": {"type": "plane", "normal": [0, 1, 0]}}]}`))
	if err != nil {
		t.Fatal(err)
	}
	s, err := New("ground", sc)
	if err != nil {
		t.Fatal(err)
	}
	s.SetBackends(testBackends)
	return s
}

func TestSpawningAHundredBoxesAddsBodiesThatFallAndLand(t *testing.T) {
	for _, pat := range []Pattern{Rain, Wall, Pyramid} {
		t.Run(PatternNames[pat], func(t *testing.T) {
			s := ground(t)
			s.Do(Spawn(Spec{Kind: geom.Box, Pattern: pat, Count: 100, Size: sim.Vec3{0.25, 0.25, 0.25},
				Friction: 0.6, At: sim.Vec3{0, 0, 0}}))
			if err := s.Apply(); err != nil {
				t.Fatal(err)
			}
			var n int
			var y0 []float32
			s.View(func(w *sim.World) {
				n = w.Bodies.Len()
				for i := 1; i < n; i++ {
					y0 = append(y0, w.Bodies.Position[i][1])
				}
			})
			if n != 101 {
				t.Fatalf("%d bodies after spawning 100 on a ground, want 101", n)
			}
			if err := s.Steps(360); err != nil { // 6 s
				t.Fatal(err)
			}
			s.View(func(w *sim.World) {
				b := &w.Bodies
				maxV, fell := float32(0), 0
				for i := 1; i < b.Len(); i++ {
					y := b.Position[i][1]
					if y < 0.2 {
						t.Errorf("box %s sank to y = %.3f", b.Name[i], y)
					}
					if y < y0[i-1]-0.5 {
						fell++
					}
					maxV = max(maxV, b.Velocity[i].Len())
				}
				if pat == Rain && fell != 100 {
					t.Errorf("%d of 100 rained boxes fell", fell)
				}
				if maxV > 0.5 {
					t.Errorf("after 6 s a box still moves at %.2f m/s: not landed", maxV)
				}
			})
		})
	}
}

func TestSpawnPatternsRefuseBadSpecsWhole(t *testing.T) {
	s := ground(t)
	for _, sp := range []Spec{
		{Kind: geom.Box, Pattern: Stack, Count: 3, Size: sim.Vec3{0, 1, 1}},
		{Kind: geom.Sphere, Pattern: Stack, Count: 0, Size: sim.Vec3{1}},
		{Kind: geom.Plane, Pattern: Single, Count: 1, Size: sim.Vec3{1, 1, 1}},
	} {
		s.Do(Spawn(sp))
		if err := s.Apply(); err == nil {
			t.Errorf("%+v: accepted", sp)
		}
	}
	s.View(func(w *sim.World) {
		if w.Bodies.Len() != 1 {
			t.Errorf("%d bodies after refused spawns", w.Bodies.Len())
		}
	})
}

// pickAt casts straight down onto the point (x, z).
func pickAt(t *testing.T, s *Session, x, z float32) Hit {
	t.Helper()
	h, ok := s.Pick(sim.Vec3{x, 50, z}, sim.Vec3{0, -1, 0})
	if !ok {
		t.Fatalf("nothing under (%v, %v)", x, z)
	}
	return h
}

func TestPickFindsTheNearestShapeAlongTheRay(t *testing.T) {
	s := preset(t, "mixed")
	s.View(func(w *sim.World) {
		b := &w.Bodies
		for i := range b.Len() {
			if b.Shape[i].Kind == geom.Plane {
				continue
			}
			// From far out along +z, aimed at the centre: the first hit is this body or one in front.
			o := b.Position[i].Add(sim.Vec3{0, 0, 40})
			h, ok := RayCast(w, o, sim.Vec3{0, 0, -1})
			if !ok {
				t.Fatalf("ray at %s hit nothing", b.Name[i])
			}
			if h.Point[2] < b.Position[i][2]-1e-3 {
				t.Errorf("ray at %s hit %s behind it", b.Name[i], b.Name[h.Index])
			}
		}
	})
	// Down onto the stack preset's column: the top box, at its top face.
	s = preset(t, "stack")
	h := pickAt(t, s, 0.1, 0.1)
	s.View(func(w *sim.World) {
		if name := w.Bodies.Name[h.Index]; name != "box19" || math.Abs(float64(h.Point[1]-20)) > 1e-3 {
			t.Errorf("picked %s at %v, want box19 at y 20", name, h.Point)
		}
	})
	// Beside it: the ground plane.
	h = pickAt(t, s, 5, 5)
	s.View(func(w *sim.World) {
		if w.Bodies.Shape[h.Index].Kind != geom.Plane || math.Abs(float64(h.Point[1])) > 1e-4 {
			t.Errorf("picked %s at %v, want the ground at y 0", w.Bodies.Name[h.Index], h.Point)
		}
	})
}

func TestHingeBetweenTwoPickedBodiesIsCreated(t *testing.T) {
	s := preset(t, "stack")
	top := pickAt(t, s, 0.2, 0)
	var under Hit
	s.View(func(w *sim.World) {
		// box18, picked from the side.
		h, ok := RayCast(w, sim.Vec3{10, 18.5, 0}, sim.Vec3{-1, 0, 0})
		if !ok || w.Bodies.Name[h.Index] != "box18" {
			t.Fatalf("side pick found %v", h)
		}
		under = h
	})
	created := -1
	s.Do(Join(JoinSpec{Type: sim.Hinge, A: top.Body, B: under.Body, PickA: top.Point, PickB: under.Point,
		Anchor: AnchorMidpoint, Axis: sim.Vec3{0, 0, 1}, Limits: &[2]float32{-0.5, 0.5},
		Created: func(k int) { created = k }}))
	if err := s.Apply(); err != nil {
		t.Fatal(err)
	}
	s.View(func(w *sim.World) {
		if w.NumJoints() != 1 || created != 0 {
			t.Fatalf("%d joints, created %d", w.NumJoints(), created)
		}
		j := w.Joint(0)
		if j.Type != sim.Hinge || j.BodyA != top.Body || j.BodyB != under.Body || !j.HasLimits ||
			j.Anchor.Sub(sim.Vec3{0, 19, 0}).Len() > 1e-4 || j.Axis != (sim.Vec3{0, 0, 1}) {
			t.Errorf("joint %+v", j)
		}
	})
	// Saved with the current state, it names both bodies and the anchor where the bodies are now.
	sc := s.CurrentScene()
	if len(sc.Joints) != 1 || sc.Joints[0].BodyA != "box19" || sc.Joints[0].BodyB != "box18" {
		t.Errorf("saved joints %+v", sc.Joints)
	}
	// The same body twice, and a stale body, are refused.
	s.Do(Join(JoinSpec{Type: sim.Ball, A: top.Body, B: top.Body}))
	if err := s.Apply(); err == nil {
		t.Error("a joint from a body to itself was accepted")
	}
}

func TestHingeHoldsTwoBodiesTogether(t *testing.T) {
	s := ground(t)
	s.Do(Spawn(Spec{Kind: geom.Box, Pattern: Single, Count: 1, Size: sim.Vec3{0.5, 0.1, 0.1}, At: sim.Vec3{0, 3, 0}}))
	s.Apply()
	var a sim.Handle
	s.View(func(w *sim.World) { a = w.HandleAt(1) })
	s.Do(Join(JoinSpec{Type: sim.Hinge, A: a, PickA: sim.Vec3{-0.5, 3.11, 0}, Axis: sim.Vec3{0, 0, 1}}))
	s.Apply()
	s.Steps(120)
	s.View(func(w *sim.World) {
		if y := w.Bodies.Position[1][1]; y < 2 {
			t.Errorf("a hinged bar fell to y %.2f", y)
		}
	})
}

func TestTogglingFrictionChangesTheInclinesOutcome(t *testing.T) {
	slid := func(friction bool) float32 {
		s := preset(t, "incline")
		s.Do(SetFriction(friction))
		var h sim.Handle
		var p0 sim.Vec3
		s.View(func(w *sim.World) {
			for i, n := range w.Bodies.Name {
				if strings.HasPrefix(n, "ramp25_") && strings.HasSuffix(n, "_sticks") {
					h, p0 = w.HandleAt(i), w.Bodies.Position[i]
					break
				}
			}
		})
		if err := s.Steps(90); err != nil {
			t.Fatal(err)
		}
		var d float32
		s.View(func(w *sim.World) {
			i, _ := w.Index(h)
			d = w.Bodies.Position[i].Sub(p0).Len()
			if friction == w.Resolved().NoFriction {
				t.Errorf("friction %v: settings say NoFriction %v", friction, w.Resolved().NoFriction)
			}
		})
		return d
	}
	with, without := slid(true), slid(false)
	if with > 0.05 {
		t.Errorf("with friction the sticking box moved %.3f m", with)
	}
	if without < 0.5 {
		t.Errorf("without friction the box moved only %.3f m in 1.5 s", without)
	}
}

func TestContactTableOfAPickedBodyMatchesTheSimulationsContacts(t *testing.T) {
	s := preset(t, "pyramid")
	if err := s.Steps(30); err != nil {
		t.Fatal(err)
	}
	h := pickAt(t, s, 0.3, 0.2) // the apex
	s.View(func(w *sim.World) {
		name := w.Bodies.Name[h.Index]
		rows := ContactTable(w, name, ByPair)
		var want []sim.ContactPoint
		for _, c := range w.Contacts(nil) {
			if c.BodyA == h.Index || c.BodyB == h.Index {
				want = append(want, c)
			}
		}
		if len(rows) == 0 || len(rows) != len(want) {
			t.Fatalf("%s: %d rows, simulation has %d contacts on it", name, len(rows), len(want))
		}
		for _, c := range want {
			found := false
			for _, r := range rows {
				if r.IA == c.BodyA && r.IB == c.BodyB && r.Point == c.Position && r.Normal == c.Normal &&
					r.Depth == -c.Separation && r.NormalImp == c.NormalImpulse {
					found = true
				}
			}
			if !found {
				t.Errorf("contact %+v missing from the table", c)
			}
		}
		for i := 1; i < len(rows); i++ {
			if d := ContactTable(w, name, ByNormalImpulse); d[i].NormalImp > d[i-1].NormalImp {
				t.Error("not sorted by normal impulse")
			}
		}
	})
}

func TestSaveWritesTheCurrentStateNotTheInitialOne(t *testing.T) {
	s := preset(t, "bowling")
	s.Steps(30)
	p := filepath.Join(t.TempDir(), "now.json")
	s.Do(SaveFile(p))
	if err := s.Apply(); err != nil {
		t.Fatal(err)
	}
	sc, err := scenes.Load(p)
	if err != nil {
		t.Fatal(err)
	}
	s.View(func(w *sim.World) {
		for i := range w.Bodies.Len() {
			got := sc.Bodies[i].Position
			want := w.Bodies.Position[i]
			if math.Abs(got[0]-float64(want[0])) > 1e-5 || math.Abs(got[1]-float64(want[1])) > 1e-5 {
				t.Errorf("%s saved at %v, is at %v", w.Bodies.Name[i], *got, want)
			}
		}
	})
	// Loading it back continues from there.
	s2, err := New("now", sc)
	if err != nil {
		t.Fatal(err)
	}
	s2.View(func(w *sim.World) {
		if w.Bodies.Len() != len(sc.Bodies) {
			t.Errorf("%d bodies", w.Bodies.Len())
		}
	})
}

func TestSnapshotRestoreAndReset(t *testing.T) {
	s := preset(t, "bowling")
	s.Steps(20)
	s.Do(Snapshot())
	s.Apply()
	var at sim.Vec3
	s.View(func(w *sim.World) { at = w.Bodies.Position[w.Bodies.Len()-1] })
	s.Steps(20)
	s.Do(Restore())
	if err := s.Apply(); err != nil {
		t.Fatal(err)
	}
	s.View(func(w *sim.World) {
		if p := w.Bodies.Position[w.Bodies.Len()-1]; p.Sub(at).Len() > 1e-5 {
			t.Errorf("restored ball at %v, snapshot had %v", p, at)
		}
		// The clock goes back to the snapshot's too, and runs on from there.
		if w.StepCount != 20 || math.Abs(w.Time-20.0/60) > 1e-6 {
			t.Errorf("restored at step %d, t %.4f s; the snapshot was at step 20, t 0.3333 s", w.StepCount, w.Time)
		}
	})
	s.Steps(1)
	s.View(func(w *sim.World) {
		if w.StepCount != 21 || math.Abs(w.Time-21.0/60) > 1e-6 {
			t.Errorf("a step after Restore: step %d, t %.4f s", w.StepCount, w.Time)
		}
	})
	s.Do(Reset())
	s.Apply()
	sc, _ := scenes.Preset("bowling")
	s.View(func(w *sim.World) {
		last := sc.Bodies[len(sc.Bodies)-1].Position
		if p := w.Bodies.Position[w.Bodies.Len()-1]; math.Abs(float64(p[0])-last[0]) > 1e-5 || w.StepCount != 0 {
			t.Errorf("reset ball at %v step %d", p, w.StepCount)
		}
	})
}

func TestEditBodyInPlaceAndRemove(t *testing.T) {
	s := preset(t, "stack")
	h := pickAt(t, s, 0, 0).Body
	st, m, mu, v := sim.Static, float32(5), float32(0.9), sim.Vec3{1, 0, 0}
	s.Do(EditBody(h, BodyEdit{Mass: &m, Friction: &mu, Velocity: &v}))
	s.Apply()
	s.View(func(w *sim.World) {
		i, _ := w.Index(h)
		b := &w.Bodies
		if b.Mass[i] != 5 || b.InvMass[i] != 0.2 || b.Friction[i] != 0.9 || b.Velocity[i] != v {
			t.Errorf("mass %v inv %v friction %v velocity %v", b.Mass[i], b.InvMass[i], b.Friction[i], b.Velocity[i])
		}
	})
	roll, spin, bad := float32(0.1), float32(0.05), float32(-1)
	s.Do(EditBody(h, BodyEdit{RollingResistance: &roll, SpinningResistance: &spin}))
	s.Apply()
	s.Do(EditBody(h, BodyEdit{RollingResistance: &bad}))
	if err := s.Apply(); err == nil {
		t.Error("a negative rolling resistance was accepted")
	}
	s.View(func(w *sim.World) {
		i, _ := w.Index(h)
		if b := &w.Bodies; b.RollingResistance[i] != 0.1 || b.SpinningResistance[i] != 0.05 {
			t.Errorf("rolling resistance %v, spinning %v", b.RollingResistance[i], b.SpinningResistance[i])
		}
	})
	s.Do(EditBody(h, BodyEdit{Type: &st}))
	s.Apply()
	s.Steps(10)
	s.View(func(w *sim.World) {
		i, _ := w.Index(h)
		if w.Bodies.InvMass[i] != 0 || w.Bodies.Position[i][1] != 19.5 {
			t.Errorf("static top box: inv mass %v, y %v", w.Bodies.InvMass[i], w.Bodies.Position[i][1])
		}
	})
	s.Do(RemoveBody(h))
	s.Apply()
	s.View(func(w *sim.World) {
		if w.Bodies.Len() != 20 {
			t.Errorf("%d bodies after removing one of 21", w.Bodies.Len())
		}
	})
	s.Do(RemoveBody(h))
	if err := s.Apply(); err == nil {
		t.Error("removing a removed body succeeded")
	}
}

func TestMouseDragLiftsABodyWithACappedForce(t *testing.T) {
	s := ground(t)
	s.Do(Spawn(Spec{Kind: geom.Box, Pattern: Single, Size: sim.Vec3{0.5, 0.5, 0.5}}))
	s.Apply()
	var h sim.Handle
	s.View(func(w *sim.World) { h = w.HandleAt(1) })
	s.Do(StartDrag(h, sim.Vec3{0, 1, 0}))
	s.Do(MoveDrag(sim.Vec3{0, 3, 0}))
	s.Steps(180)
	s.View(func(w *sim.World) {
		if y := w.Bodies.Position[1][1]; math.Abs(float64(y)-2.5) > 0.1 {
			t.Errorf("dragged box at y %.3f, want about 2.5 (grabbed at its top face, target 3)", y)
		}
	})
	// A target far away: the speed the cap allows in one step is bounded.
	s.Do(MoveDrag(sim.Vec3{0, 1000, 0}))
	s.Step()
	s.View(func(w *sim.World) {
		if v := w.Bodies.Velocity[1].Len(); v > DefaultMaxAccel/60+0.5 {
			t.Errorf("one step of dragging gave %.1f m/s, over the cap", v)
		}
	})
	s.Do(EndDrag())
	s.Apply()
	if _, ok := s.Dragging(); ok {
		t.Error("still dragging")
	}
}

func TestSettingsCommandsChangeTheRunningWorld(t *testing.T) {
	s := preset(t, "stack")
	s.Do(SetSettings(func(set *sim.Settings) {
		set.Gravity = sim.Vec3{0, -1, 0}
		set.Substeps, set.Iterations, set.Solver = 3, 5, sim.Jacobi
		set.NoWarmStart = true
	}))
	s.Apply()
	s.View(func(w *sim.World) {
		r := w.Resolved()
		if r.Gravity[1] != -1 || r.Substeps != 3 || r.Iterations != 5 || r.Solver != sim.Jacobi || !r.NoWarmStart {
			t.Errorf("resolved %+v", r)
		}
	})
	s.Do(SetSettings(func(set *sim.Settings) { set.Solver, set.Broadphase = sim.XPBD, sim.Grid }))
	if err := s.Apply(); err != nil {
		t.Fatal(err)
	}
	s.Steps(2)
	s.View(func(w *sim.World) {
		if r := w.Resolved(); r.Solver != sim.XPBD || r.Broadphase != sim.Grid {
			t.Errorf("resolved %+v", r)
		}
	})
	s.Do(SetSettings(func(set *sim.Settings) { set.Broadphase = 99 }))
	if err := s.Apply(); err == nil {
		t.Error("an unknown broad phase was accepted")
	}
}

func TestAdvanceIsAFixedStepAccumulator(t *testing.T) {
	s := preset(t, "stack")
	acc, n := s.Advance(0, 2.5/60)
	if n != 2 || math.Abs(acc-0.5/60) > 1e-6 {
		t.Errorf("2.5 steps of time: %d steps, %v left", n, acc)
	}
	if _, n = s.Advance(0, 10); n != maxCatchUp {
		t.Errorf("a long stall took %d steps, want the cap %d", n, maxCatchUp)
	}
	s.Do(Pause(true))
	if _, n = s.Advance(0, 1); n != 0 {
		t.Errorf("paused: %d steps", n)
	}
	s.Do(StepOnce())
	if _, n = s.Advance(0, 0); n != 1 {
		t.Errorf("single step: %d steps", n)
	}
}

func TestJointListEditDeleteAndRemovingABodyDropsItsJoints(t *testing.T) {
	s := preset(t, "stack")
	var h [4]sim.Handle
	s.View(func(w *sim.World) {
		for k := range h {
			h[k], _ = w.Find("box" + string(rune('0'+k)))
		}
	})
	s.Do(Join(JoinSpec{Type: sim.Ball, A: h[0], B: h[1], Anchor: AnchorMidpoint}))
	s.Do(Join(JoinSpec{Type: sim.Hinge, A: h[1], B: h[2], Anchor: AnchorMidpoint, Axis: sim.Vec3{1, 0, 0}, Frame: AxisLocalA}))
	s.Do(Join(JoinSpec{Type: sim.Fixed, A: h[3], PickA: sim.Vec3{0, 3.5, 0}})) // to the world
	if err := s.Apply(); err != nil {
		t.Fatal(err)
	}
	lim := [2]float32{-0.1, 0.2}
	s.Do(EditJoint(1, JointEdit{Limits: &lim, Motor: &sim.Motor{Speed: 1, MaxForce: 5}}))
	if err := s.Apply(); err != nil {
		t.Fatal(err)
	}
	s.View(func(w *sim.World) {
		// The edited joint stays where it is, its bodies, type and axis kept, its limits and motor new.
		j := w.Joint(1)
		if j.Type != sim.Hinge || j.BodyA != h[1] || !j.HasLimits || j.Limits != lim || !j.HasMotor || j.Axis.Len() < 0.99 {
			t.Errorf("edited joint %+v", j)
		}
		if j := w.Joint(0); j.Type != sim.Ball || j.HasLimits || j.HasMotor {
			t.Errorf("joint 0 %+v", j)
		}
		if j := w.Joint(2); j.Type != sim.Fixed || j.BodyB != (sim.Handle{}) || j.Anchor != (sim.Vec3{0, 3.5, 0}) {
			t.Errorf("world joint %+v", j)
		}
	})
	// Saved and loaded back: three joints, with the right bodies.
	sc := s.CurrentScene()
	if len(sc.Joints) != 3 || sc.Joints[2].BodyB != "" || sc.Joints[1].Type != "hinge" || sc.Joints[1].Limits == nil {
		t.Errorf("saved joints %+v", sc.Joints)
	}
	if _, err := New("again", sc); err != nil {
		t.Errorf("the saved scene does not load: %v", err)
	}
	s.Do(RemoveBody(h[1])) // box1 is in the ball (0-1) and the edited hinge (1-2)
	if err := s.Apply(); err != nil {
		t.Fatal(err)
	}
	s.View(func(w *sim.World) {
		if w.NumJoints() != 1 || w.Joint(0).Type != sim.Fixed {
			t.Errorf("%d joints left after removing box1, want only the fixed one", w.NumJoints())
		}
	})
	if sc := s.CurrentScene(); len(sc.Joints) != 1 {
		t.Errorf("saved %d joints", len(sc.Joints))
	}
	s.Do(RemoveJoint(0))
	s.Do(RemoveJoint(0))
	if err := s.Apply(); err == nil {
		t.Error("removing a joint that is not there succeeded")
	}
}

func TestShootAddsAMovingBallAndAboveSceneIsOverTheBodies(t *testing.T) {
	s := preset(t, "stack")
	if p := s.AboveScene(); p[1] < 20.5 || p.Len() > 30 {
		t.Errorf("above the stack: %v", p)
	}
	s.Do(Shoot(sim.Vec3{0, 5, 10}, sim.Vec3{0, 0, -2}, ShotSpec{Kind: geom.Sphere, Size: [3]float32{0.3}, Mass: 10, Speed: 20}))
	s.Apply()
	s.View(func(w *sim.World) {
		i := w.Bodies.Len() - 1
		if w.Bodies.Shape[i].Kind != geom.Sphere || w.Bodies.Velocity[i] != (sim.Vec3{0, 0, -20}) || w.Bodies.Mass[i] != 10 {
			t.Errorf("ball %v %v %v", w.Bodies.Shape[i], w.Bodies.Velocity[i], w.Bodies.Mass[i])
		}
	})
}

// Each kind fires with the spec's mass (or 1000 kg/m^3 with mass 0) and speed along the direction; a
// box flies face-first (its local +z along the flight), a capsule point-first.
func TestShootFiresEachKindWithItsMassAndSpeed(t *testing.T) {
	dir := sim.Vec3{1, 0.5, -2}
	d := dir.Normalize()
	for _, tc := range []struct {
		spec  ShotSpec
		mass  float32
		ahead sim.Vec3 // the local axis that must point along the flight; zero: none
	}{
		{ShotSpec{Kind: geom.Sphere, Size: [3]float32{0.3}, Mass: 10, Speed: 25}, 10, sim.Vec3{}},
		{ShotSpec{Kind: geom.Box, Size: [3]float32{0.4, 0.2, 0.1}, Mass: 3, Speed: 40}, 3, sim.Vec3{0, 0, 1}},
		{ShotSpec{Kind: geom.Capsule, Size: [3]float32{0.1, 0.5}, Mass: 2.5, Speed: 0}, 2.5, sim.Vec3{0, 1, 0}},
		{ShotSpec{Kind: geom.Box, Size: [3]float32{0.5, 0.5, 0.5}, Speed: 10}, 1000, sim.Vec3{0, 0, 1}}, // 1 m^3 at 1000 kg/m^3
		{ShotSpec{Kind: geom.Box, Size: [3]float32{0.5, 0.25, 0.5}, Speed: 500}, 500, sim.Vec3{0, 0, 1}},
	} {
		s := preset(t, "stack")
		s.Do(Shoot(sim.Vec3{0, 5, 10}, dir, tc.spec))
		if err := s.Apply(); err != nil {
			t.Fatalf("%+v: %v", tc.spec, err)
		}
		s.View(func(w *sim.World) {
			b := &w.Bodies
			i := b.Len() - 1
			if b.Len() != 22 || b.Shape[i].Kind != tc.spec.Kind {
				t.Fatalf("%+v: %d bodies, the last a %s", tc.spec, b.Len(), b.Shape[i].Kind)
			}
			if math.Abs(float64(b.Mass[i]-tc.mass)) > 1e-3*float64(tc.mass) {
				t.Errorf("%+v: mass %v, want %v", tc.spec, b.Mass[i], tc.mass)
			}
			if v := b.Velocity[i]; v.Sub(d.Mul(tc.spec.Speed)).Len() > 1e-5*max(1, tc.spec.Speed) {
				t.Errorf("%+v: velocity %v, want %v", tc.spec, v, d.Mul(tc.spec.Speed))
			}
			if tc.ahead != (sim.Vec3{}) {
				if a := b.Rotation[i].Rotate(tc.ahead); a.Sub(d).Len() > 1e-5 {
					t.Errorf("%+v: local %v points along %v, want %v", tc.spec, tc.ahead, a, d)
				}
			}
		})
	}
}

// A box fired level flies upright, and one fired straight up or down still face-first.
func TestShootBoxFacesTheFlight(t *testing.T) {
	for _, dir := range []sim.Vec3{{0, 0, -1}, {3, 0, 4}, {0, 1, 0}, {0, -1, 0}, {1e-4, -1, 0}} {
		q := facing(dir.Normalize())
		if z := q.Rotate(sim.Vec3{0, 0, 1}); z.Sub(dir.Normalize()).Len() > 1e-5 {
			t.Errorf("dir %v: +z goes to %v", dir, z)
		}
		if math.Abs(float64(q.Len()-1)) > 1e-5 {
			t.Errorf("dir %v: |q| = %v", dir, q.Len())
		}
		if dir[1] == 0 {
			if y := q.Rotate(sim.Vec3{0, 1, 0}); y.Sub(sim.Vec3{0, 1, 0}).Len() > 1e-5 {
				t.Errorf("dir %v: fired level, local y goes to %v", dir, y)
			}
		}
	}
}

// A bad spec fires nothing and says which field is wrong, and its value.
func TestShootRefusesBadSpecs(t *testing.T) {
	inf, nan := float32(math.Inf(1)), float32(math.NaN())
	ok := DefaultShot()
	for _, tc := range []struct {
		origin, dir sim.Vec3
		spec        ShotSpec
		want        string
	}{
		{sim.Vec3{}, sim.Vec3{0, 0, -1}, ShotSpec{Kind: geom.Plane, Size: [3]float32{1, 1, 1}, Speed: 1}, "kind: must be box, sphere or capsule, got plane"},
		{sim.Vec3{}, sim.Vec3{0, 0, -1}, ShotSpec{Kind: geom.Sphere, Size: [3]float32{0}, Speed: 1}, "size[0] (sphere radius): must be positive and finite, got 0"},
		{sim.Vec3{}, sim.Vec3{0, 0, -1}, ShotSpec{Kind: geom.Sphere, Size: [3]float32{inf}, Speed: 1}, "size[0] (sphere radius): must be positive and finite, got +Inf"},
		{sim.Vec3{}, sim.Vec3{0, 0, -1}, ShotSpec{Kind: geom.Box, Size: [3]float32{1, -1, 1}, Speed: 1}, "size[1] (box half extent y): must be positive and finite, got -1"},
		{sim.Vec3{}, sim.Vec3{0, 0, -1}, ShotSpec{Kind: geom.Box, Size: [3]float32{1, 1, nan}, Speed: 1}, "size[2] (box half extent z): must be positive and finite, got NaN"},
		{sim.Vec3{}, sim.Vec3{0, 0, -1}, ShotSpec{Kind: geom.Capsule, Size: [3]float32{0.2, 0}, Speed: 1}, "size[1] (capsule half height): must be positive and finite, got 0"},
		{sim.Vec3{}, sim.Vec3{0, 0, -1}, ShotSpec{Kind: geom.Sphere, Size: [3]float32{1}, Mass: -1, Speed: 1}, "mass: must be >= 0 and finite (0: 1000 kg/m^3), got -1"},
		{sim.Vec3{}, sim.Vec3{0, 0, -1}, ShotSpec{Kind: geom.Sphere, Size: [3]float32{1}, Mass: inf, Speed: 1}, "mass: must be >= 0 and finite (0: 1000 kg/m^3), got +Inf"},
		{sim.Vec3{}, sim.Vec3{0, 0, -1}, ShotSpec{Kind: geom.Sphere, Size: [3]float32{1}, Speed: 501}, "speed: must be 0..500 m/s, got 501"},
		{sim.Vec3{}, sim.Vec3{0, 0, -1}, ShotSpec{Kind: geom.Sphere, Size: [3]float32{1}, Speed: -1}, "speed: must be 0..500 m/s, got -1"},
		{sim.Vec3{}, sim.Vec3{0, 0, -1}, ShotSpec{Kind: geom.Sphere, Size: [3]float32{1}, Speed: nan}, "speed: must be 0..500 m/s, got NaN"},
		{sim.Vec3{}, sim.Vec3{}, ok, "direction: must be a non-zero finite vector"},
		{sim.Vec3{0, nan, 0}, sim.Vec3{0, 0, -1}, ok, "origin: must be finite"},
	} {
		s := preset(t, "stack")
		s.Do(Shoot(tc.origin, tc.dir, tc.spec))
		err := s.Apply()
		if err == nil || !strings.Contains(err.Error(), tc.want) {
			t.Errorf("%+v: got %v, want %q", tc.spec, err, tc.want)
		}
		s.View(func(w *sim.World) {
			if w.Bodies.Len() != 21 {
				t.Errorf("%+v: a refused shot added a body", tc.spec)
			}
		})
	}
}

// The sleeping switch: with it on, the resting stack falls asleep; switched off, it wakes.
func TestSleepingSwitchPutsARestingStackToSleep(t *testing.T) {
	s := preset(t, "stack")
	s.Do(SetSettings(func(set *sim.Settings) { set.Sleep = true }))
	s.Apply()
	s.Steps(120)
	asleep := 0
	s.View(func(w *sim.World) { asleep = w.Stats.Asleep })
	if asleep != 20 {
		t.Fatalf("%d of 20 boxes asleep after 2 s with sleeping on", asleep)
	}
	s.Do(SetSettings(func(set *sim.Settings) { set.Sleep = false }))
	s.Apply()
	s.Steps(1)
	s.View(func(w *sim.World) {
		for i, a := range w.Bodies.Asleep {
			if a {
				t.Fatalf("body %d still asleep with sleeping off", i)
			}
		}
	})
}

func TestResetKeepsChangedSettingsAndRevertSettingsRestoresTheScenes(t *testing.T) {
	s := preset(t, "stack")
	var scene sim.Settings
	s.View(func(w *sim.World) { scene = w.Settings() })
	s.Do(SetSettings(func(set *sim.Settings) { set.Iterations, set.NoFriction, set.Gravity = 17, true, sim.Vec3{0, -3, 0} }))
	s.Steps(10)
	s.Do(Reset())
	if err := s.Apply(); err != nil {
		t.Fatal(err)
	}
	s.View(func(w *sim.World) {
		got := w.Settings()
		if got.Iterations != 17 || !got.NoFriction || got.Gravity != (sim.Vec3{0, -3, 0}) || w.StepCount != 0 {
			t.Errorf("after reset: iterations %d, no friction %v, gravity %v, step %d; want the changed settings at step 0",
				got.Iterations, got.NoFriction, got.Gravity, w.StepCount)
		}
	})
	s.Do(RevertSettings())
	if err := s.Apply(); err != nil {
		t.Fatal(err)
	}
	s.View(func(w *sim.World) {
		if got := w.Settings(); got != scene {
			t.Errorf("after revert: %+v, want the scene's %+v", got, scene)
		}
	})
}

// A saved world's joints keep their limits, cones, twist ranges and break forces, and a hinge or
// piston saved away from its creation pose keeps the same room to its limits once loaded (a loaded
// joint's coordinate starts at zero); a swung ball joint loads swung as much, its cone where it was
// (B's twist axis is saved as axisB).
// The scene's view (the body the window follows) is saved while that body is there, and dropped with
// it: a saved file that named a missing body would not load.
func TestSaveKeepsTheViewWhileItsBodyIsThere(t *testing.T) {
	s := preset(t, "car")
	if v := s.SceneView(); v.Follow != "chassis" {
		t.Fatalf("car's view: %+v, want it to follow the chassis", v)
	}
	if sc := s.CurrentScene(); sc.View == nil || sc.View.Follow != "chassis" {
		t.Errorf("saved car's view: %+v, want it to follow the chassis", sc.View)
	}
	var h sim.Handle
	s.View(func(w *sim.World) { h, _ = w.Find("chassis") })
	s.Do(RemoveBody(h))
	if err := s.Apply(); err != nil {
		t.Fatal(err)
	}
	sc := s.CurrentScene()
	if sc.View != nil {
		t.Errorf("saved with the chassis removed: view %+v, want none", sc.View)
	}
	if err := sc.Validate(); err != nil {
		t.Errorf("saved without the chassis: %v", err)
	}
	if v := preset(t, "stack").SceneView(); v != (scenes.View{}) {
		t.Errorf("stack's view: %+v, want none", v)
	}
}

func TestSaveKeepsTheJointsLimitsWhereTheyWere(t *testing.T) {
	s := preset(t, "ragdoll")
	s.Steps(90) // the ragdolls fall and their limbs swing
	var before []limitRoom
	var swings []float32
	var defs []sim.JointDef
	moved, swung := 0, 0
	s.View(func(w *sim.World) {
		for k := range w.NumJoints() {
			defs = append(defs, w.Joint(k))
			before = append(before, roomOf(w, k))
			st := w.JointState(k)
			swings = append(swings, st.Swing)
			if math.Abs(float64(st.Coordinate)) > 0.05 {
				moved++
			}
			if st.Swing > 0.05 {
				swung++
			}
		}
	})
	if moved == 0 || swung == 0 {
		t.Fatalf("%d joints moved and %d ball joints swung from their creation pose: the test shows nothing", moved, swung)
	}
	_, s2 := saveAndReload(t, s)
	s2.View(func(w *sim.World) {
		if w.NumJoints() != len(defs) {
			t.Fatalf("%d joints loaded, %d saved", w.NumJoints(), len(defs))
		}
		for k := range w.NumJoints() {
			j, was := w.Joint(k), defs[k]
			if j.Type != was.Type || j.HasLimits != was.HasLimits || j.HasTwist != was.HasTwist ||
				j.Swing != was.Swing || j.BreakForce != was.BreakForce {
				t.Errorf("joint %d loaded as %+v, saved from %+v", k, j, was)
				continue
			}
			got := roomOf(w, k)
			// float32 angles through a decimal file: a few 1e-6 rad.
			if math.Abs(got.lo-before[k].lo) > 1e-4 || math.Abs(got.hi-before[k].hi) > 1e-4 {
				t.Errorf("joint %d (%v): room to its limits %+v after loading, %+v before", k, j.Type, got, before[k])
			}
			// A swung ball joint loads as swung, its cone where it was (not re-centred on the pose).
			if sw := w.JointState(k).Swing; math.Abs(float64(sw-swings[k])) > 1e-4 {
				t.Errorf("joint %d (%v): swing %.5f rad after loading, %.5f before", k, j.Type, sw, swings[k])
			}
		}
	})
}

// limitRoom is how far joint k's coordinate is from its lower and upper limits (hinge and piston
// limits, ball twist limits); zero for a joint without them.
type limitRoom struct{ lo, hi float64 }

func roomOf(w *sim.World, k int) limitRoom {
	j, c := w.Joint(k), float64(w.JointState(k).Coordinate)
	switch {
	case (j.Type == sim.Hinge || j.Type == sim.Piston) && j.HasLimits:
		return limitRoom{c - float64(j.Limits[0]), float64(j.Limits[1]) - c}
	case j.Type == sim.Ball && j.HasTwist:
		return limitRoom{c - float64(j.Twist[0]), float64(j.Twist[1]) - c}
	}
	return limitRoom{}
}

// Save writes a static mesh inline: the terrain saved mid-run loads back with the same triangles.
func TestSaveWritesAMeshInline(t *testing.T) {
	s := preset(t, "terrain")
	s.Steps(10)
	_, s2 := saveAndReload(t, s)
	var a, b *geom.Mesh
	s.View(func(w *sim.World) { a = w.Bodies.Shape[0].Mesh })
	s2.View(func(w *sim.World) { b = w.Bodies.Shape[0].Mesh })
	if a == nil || b == nil || len(a.Tris) != len(b.Tris) || a.Verts[7] != b.Verts[7] || a.Tris[9] != b.Tris[9] {
		t.Fatalf("the terrain's mesh was not saved whole")
	}
}

// A ray meets the terrain's mesh on its surface: straight down at a grid vertex (x = z = 5, outside
// the heap) it hits the mesh at the vertex's height, 0.03 (x^2 + z^2) + 0.15 sin(1.3 x) sin(1.1 z).
func TestPickHitsAMesh(t *testing.T) {
	s := preset(t, "terrain")
	s.View(func(w *sim.World) {
		h, ok := RayCast(w, sim.Vec3{5, 20, 5}, sim.Vec3{0, -1, 0})
		want := 0.03*50 + 0.15*math.Sin(6.5)*math.Sin(5.5)
		if !ok || w.Bodies.Shape[h.Index].Kind != geom.TriMesh || math.Abs(float64(h.Point[1])-want) > 1e-4 {
			t.Fatalf("hit %+v (ok %v), want the mesh at y %.4f", h, ok, want)
		}
	})
}

// A moving closed mesh is saved as its mesh, not as the hull of its vertices: loaded back it keeps
// the mesh's centre of mass and inertia. The body is a unit cube with a dimple 0.4 m deep in its top
// (volume 1 - 0.4/3): its hull is the whole cube, whose centre of mass is 2.4 cm higher and whose
// inertia differs.
func TestSaveKeepsAMovingMeshsOwnMassProperties(t *testing.T) {
	const file = `{"name": "dimple", "bodies": [
	  {"name": "ground", "type": "static", "shape": {"type": "plane", "normal": [0, 1, 0]}},
	  {"name": "dimpled", "position": [0, 2, 0], "angularVelocity": [1, 2, 0.5], "shape": {"type": "mesh",
	   "vertices": [[-0.5,-0.5,-0.5],[0.5,-0.5,-0.5],[0.5,0.5,-0.5],[-0.5,0.5,-0.5],
	                [-0.5,-0.5,0.5],[0.5,-0.5,0.5],[0.5,0.5,0.5],[-0.5,0.5,0.5],[0,0.1,0]],
	   "triangles": [[0,1,5],[0,5,4],[0,3,2],[0,2,1],[4,5,6],[4,6,7],[0,4,7],[0,7,3],[1,2,6],[1,6,5],
	                 [8,7,6],[8,6,2],[8,2,3],[8,3,7]]}}]}`
	sc, err := scenes.Parse("dimple.json", []byte(file))
	if err != nil {
		t.Fatal(err)
	}
	s, err := New("dimple", sc)
	if err != nil {
		t.Fatal(err)
	}
	s.Steps(20) // falling and turning
	type props struct {
		mass    float32
		inertia sim.Vec3 // the inverse principal moments
		world   sim.Mat3 // the inverse inertia in the world
		at      sim.Vec3
	}
	get := func(s *Session) (p props) {
		s.View(func(w *sim.World) {
			h, ok := w.Find("dimpled")
			if !ok {
				t.Fatal("no body dimpled")
			}
			i, _ := w.Index(h)
			b := &w.Bodies
			p = props{b.Mass[i], b.InvInertiaLocal[i], b.InvInertiaWorld[i], b.Position[i]}
		})
		return p
	}
	before := get(s)
	// Through the state's binary form (replay files) too: the mesh comes back with the hull.
	s.View(func(w *sim.World) {
		var st, back sim.State
		if err := w.SaveState(&st); err != nil {
			t.Fatal(err)
		}
		data, err := st.MarshalBinary()
		if err != nil {
			t.Fatal(err)
		}
		if err := back.UnmarshalBinary(data); err != nil {
			t.Fatal(err)
		}
		if err := w.RestoreState(&back); err != nil {
			t.Fatal(err)
		}
	})
	saved, s2 := saveAndReload(t, s)
	if got := saved.Bodies[1].Shape.Type; got != "mesh" || len(saved.Bodies[1].Shape.Triangles) != 14 {
		t.Fatalf("saved as %q with %d triangles, want the mesh's 14", got, len(saved.Bodies[1].Shape.Triangles))
	}
	after := get(s2)
	if math.Abs(float64(after.mass-before.mass)) > 1e-3*float64(before.mass) || after.at.Sub(before.at).Len() > 1e-4 {
		t.Errorf("mass %v at %v after loading, %v at %v before", after.mass, after.at, before.mass, before.at)
	}
	for r := range 3 {
		for c := range 3 {
			if d := math.Abs(float64(after.world.At(r, c) - before.world.At(r, c))); d > 1e-3*float64(before.inertia.Len()) {
				t.Errorf("inverse world inertia [%d][%d] %v after loading, %v before", r, c, after.world.At(r, c), before.world.At(r, c))
			}
		}
	}
}

// saveAndReload saves s's world through SaveFile, as the panel's Save does, and loads the file into a
// new session.
func saveAndReload(t *testing.T, s *Session) (*scenes.Scene, *Session) {
	t.Helper()
	p := filepath.Join(t.TempDir(), "saved.json")
	s.Do(SaveFile(p))
	if err := s.Apply(); err != nil {
		t.Fatal(err)
	}
	sc, err := scenes.Load(p)
	if err != nil {
		t.Fatal(err)
	}
	s2, err := New("saved", sc)
	if err != nil {
		t.Fatal(err)
	}
	return sc, s2
}

// Save and Snapshot/Restore keep every solver setting the panel sets, each under a solver that reads
// it: a scene loaded from the file, or the restored world, has the same settings, sleeping, the direct
// joint solve, the broad phase, the relax passes, XPBD's joint damping and the contact cache turned
// off included.
func TestSaveAndRestoreKeepThePanelsSettings(t *testing.T) {
	for _, edit := range []func(*sim.Settings){
		func(s *sim.Settings) {
			s.Sleep, s.DirectJoints, s.Broadphase, s.RelaxIterations = true, true, sim.SAP, 3
			s.Substeps, s.Iterations, s.ContactHertz, s.DampingRatio, s.NoFriction = 5, 3, 60, 4, true
		},
		func(s *sim.Settings) {
			s.Solver, s.JointDamping, s.Substeps, s.Broadphase = sim.XPBD, 7.5, 12, sim.Grid
			s.NoContactCache = true
		},
		func(s *sim.Settings) { s.Solver, s.PenaltyStiffness, s.PenaltyDamping = sim.Penalty, 5e4, 30 },
	} {
		s := preset(t, "pendulum")
		s.Do(SetSettings(edit))
		if err := s.Apply(); err != nil {
			t.Fatal(err)
		}
		var want sim.Settings
		s.View(func(w *sim.World) { want = w.Settings() })
		p := filepath.Join(t.TempDir(), "s.json")
		s.Do(SaveFile(p))
		s.Do(Snapshot())
		s.Do(SetSettings(func(set *sim.Settings) { *set = sim.Settings{Gravity: set.Gravity, Dt: set.Dt} }))
		s.Do(Restore())
		if err := s.Apply(); err != nil {
			t.Fatal(err)
		}
		var restored sim.Settings
		s.View(func(w *sim.World) { restored = w.Settings() })
		sc, err := scenes.Load(p)
		if err != nil {
			t.Fatal(err)
		}
		loaded := sc.Settings()
		for _, got := range []struct {
			how string
			set sim.Settings
		}{{"saved and loaded", loaded}, {"restored", restored}} {
			got.set.Workers = want.Workers
			if got.set != want {
				t.Errorf("%s: %+v, want %+v", got.how, got.set, want)
			}
		}
	}
}

// MoveDrag moves the mouse joint's target as a queued command, between steps (the window moves it
// at once with SetDragTarget).
func MoveDrag(target sim.Vec3) Command {
	return func(s *Session) error {
		if s.drag != nil {
			s.drag.Target = target
		}
		return nil
	}
}

// A servo saved mid-move keeps its target where it was: the loaded joint's coordinate starts at zero,
// so the target is saved shifted by the coordinate (as the limits are), and the arm goes on to the
// same pose. The hinge's target stays in its angle range.
func TestSaveKeepsAServosTargetWhereItWas(t *testing.T) {
	sc, err := scenes.Load("../../examples/joint-servo.json")
	if err != nil {
		t.Fatal(err)
	}
	s, err := New("servo", sc)
	if err != nil {
		t.Fatal(err)
	}
	s.SetBackends(testBackends)
	s.Steps(20) // under way: the shoulder turns at up to 1.5 rad/s
	var room []float32
	s.View(func(w *sim.World) {
		for k := range w.NumJoints() {
			room = append(room, w.Joint(k).Motor.Target-w.JointCoordinate(k))
		}
	})
	if room[0] < 0.1 {
		t.Fatalf("the shoulder is %.3f rad from its target: the test shows nothing", room[0])
	}
	saved, s2 := saveAndReload(t, s)
	s2.View(func(w *sim.World) {
		for k := range w.NumJoints() {
			m := w.Joint(k).Motor
			if m.Mode != sim.MotorPosition || math.Abs(float64(m.Target-room[k])) > 1e-4 {
				t.Errorf("joint %d loaded with motor %+v (saved %+v), want a servo %.5f from its coordinate", k, m,
					*saved.Joints[k].Motor, room[k])
			}
		}
	})
}

// A height field saves inline and loads back as the same surface: every sample within half a
// quantisation step of the heights the field held.
func TestHeightFieldSavesAndLoadsBack(t *testing.T) {
	s := preset(t, "hills")
	var f *geom.HeightGrid
	s.View(func(w *sim.World) { f = w.Bodies.Shape[0].Field })
	sc := s.CurrentScene()
	back, err := sc.World(scenes.Options{})
	if err != nil {
		t.Fatal(err)
	}
	g := back.Bodies.Shape[0].Field
	if g == nil || g.NX != f.NX || g.NZ != f.NZ || g.DX != f.DX || g.DZ != f.DZ {
		t.Fatalf("saved field %+v, want the hills' %d x %d", g, f.NX, f.NZ)
	}
	for j := range f.NZ {
		for i := range f.NX {
			if d := math.Abs(float64(g.Height(i, j) - f.Height(i, j))); d > float64(g.Step)/2+1e-6 {
				t.Fatalf("sample (%d, %d): %v saved and loaded as %v", i, j, f.Height(i, j), g.Height(i, j))
			}
		}
	}
}

// A URDF file loads as a scene (scenes/urdf's mapping): bodies named by their links, what it leaves
// out in Notes, kept over a reset and gone with the next scene.
func TestLoadFileReadsURDF(t *testing.T) {
	// The pointer with a visual on its arm, which the mapping leaves out with a note.
	src, err := os.ReadFile("../../scenes/urdf/testdata/simple/pointer.urdf")
	if err != nil {
		t.Fatal(err)
	}
	file := filepath.Join(t.TempDir(), "pointer.urdf")
	withVisual := strings.Replace(string(src), `<link name="arm">`,
		`<link name="arm"><visual><geometry><box size="0.5 0.05 0.05"/></geometry></visual>`, 1)
	if err := os.WriteFile(file, []byte(withVisual), 0o644); err != nil {
		t.Fatal(err)
	}
	s := preset(t, "stack")
	s.Do(LoadFile(file))
	if err := s.Apply(); err != nil {
		t.Fatal(err)
	}
	s.View(func(w *sim.World) {
		if _, ok := w.Find("arm"); !ok || w.NumJoints() != 2 || w.Joint(1).Motor.Mode != sim.MotorPosition {
			t.Errorf("the pointer loaded as %d bodies, %d joints", w.Bodies.Len(), w.NumJoints())
		}
	})
	if n := s.Notes(); len(n) != 1 || !strings.Contains(n[0], "visuals are not read") {
		t.Errorf("notes %q", n)
	}
	s.Do(Reset())
	if err := s.Apply(); err != nil {
		t.Fatal(err)
	}
	if len(s.Notes()) != 1 {
		t.Errorf("notes after a reset: %q", s.Notes())
	}
	s.Do(LoadPreset("stack"))
	if err := s.Apply(); err != nil {
		t.Fatal(err)
	}
	if len(s.Notes()) != 0 {
		t.Errorf("notes after loading a preset: %q", s.Notes())
	}
}
