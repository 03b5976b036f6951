package scenes

import (
	"math"
	"testing"

	"tumble/sim"
)

// Every joint preset runs two seconds under every solver without blowing up, keeps its joints, and
// keeps limited joints within their limits: to 1 degree or 1 cm, except in the ragdoll pile, where 20
// ragdolls land on each other and contacts push limbs past their limits for a few steps (measured
// worst: PGS 2.0 degrees, Jacobi 4.1, XPBD 3.5; the isolated hinge test holds every solver within 1
// degree). ragdollTolerance holds those figures with some margin.
//
// Jacobi's worst excesses are elbows at their straight stop as a ragdoll lands: a Jacobi pass's
// limit row moves each body by its split share of the impulse (1/c of it, c the rows on the body),
// so it stops a blow over more passes than PGS's sequential pass does, the more so with the
// shoulders' friction making the upper arm and torso one body behind the elbow. Its limit rows run
// at twice the contact frequency, as PGS's joints do (stepSoftness), which holds the pile's worst to
// 4.1 degrees (at the contact frequency, its equality rows', 9.0).
func TestJointPresetsRunUnderEverySolver(t *testing.T) {
	for _, name := range []string{"pendulum", "cradle", "chain", "bridge", "door", "engine", "car", "ragdoll"} {
		for _, solver := range []sim.SolverKind{sim.PGS, sim.Jacobi, sim.XPBD} {
			s, _ := Preset(name)
			w, err := s.World(Options{Solver: solver})
			if err != nil {
				t.Fatal(err)
			}
			steps := int(2 / s.TimeStep())
			if name == "ragdoll" && testing.Short() {
				steps = 30
			}
			tol := float32(math.Pi / 180)
			if name == "ragdoll" {
				tol = ragdollTolerance[solver]
			}
			worst := float32(0)
			for i := 0; i < steps; i++ {
				if err := w.Step(); err != nil {
					t.Fatalf("%s %v: %v", name, solver, err)
				}
				for k := 0; k < w.NumJoints(); k++ {
					d := w.Joint(k)
					if !d.HasLimits {
						continue
					}
					c := w.JointCoordinate(k)
					over := max(d.Limits[0]-c, c-d.Limits[1])
					if d.Type == sim.Piston {
						over *= tol / 0.01 // 1 cm counts as much as the angle tolerance
					}
					worst = max(worst, over)
				}
			}
			if worst > tol {
				t.Errorf("%s %v: a joint passed its limit by %.3f degrees (or cm), want <= %.1f", name, solver, worst*180/math.Pi, tol*180/math.Pi)
			} else if worst > 0 {
				t.Logf("%s %v: worst excess over a limit %.3f degrees (or cm)", name, solver, worst*180/math.Pi)
			}
			if w.NumJoints() != len(s.Joints) {
				t.Errorf("%s %v: %d joints left of %d", name, solver, w.NumJoints(), len(s.Joints))
			}
			w.Close()
		}
	}
}

// The car drives: its wheel motors (8 rad/s on 0.3 m wheels) carry it forward at close to 2.4 m/s.
func TestCarPresetDrives(t *testing.T) {
	for _, solver := range []sim.SolverKind{sim.PGS, sim.Jacobi, sim.XPBD} {
		s, _ := Preset("car")
		w, _ := s.World(Options{Solver: solver})
		for i := 0; i < 180; i++ {
			if err := w.Step(); err != nil {
				t.Fatal(err)
			}
		}
		h, _ := w.Find("chassis")
		i, _ := w.Index(h)
		if v := w.Bodies.Velocity[i][2]; v < 2.0 || v > 2.5 {
			t.Errorf("%v: car at %.3f m/s, want about 2.4", solver, v)
		}
		w.Close()
	}
}

// ragdollTolerance is how far (rad) a ragdoll joint may pass its limit in the pile.
var ragdollTolerance = map[sim.SolverKind]float32{sim.PGS: 3 * math.Pi / 180, sim.Jacobi: 8 * math.Pi / 180, sim.XPBD: 6 * math.Pi / 180}

// The engine runs: the crank motor turns the crank and the rod drives the piston through its stroke
// (2 x 0.3 m) within two seconds.
func TestEnginePresetStrokesThePiston(t *testing.T) {
	for _, solver := range []sim.SolverKind{sim.PGS, sim.Jacobi, sim.XPBD} {
		s, _ := Preset("engine")
		w, _ := s.World(Options{Solver: solver})
		lo, hi := float32(1), float32(-1)
		for i := 0; i < 120; i++ {
			if err := w.Step(); err != nil {
				t.Fatal(err)
			}
			c := w.JointCoordinate(3) // the piston joint
			lo, hi = min(lo, c), max(hi, c)
		}
		if hi-lo < 0.55 || hi-lo > 0.7 {
			t.Errorf("%v: piston travelled over [%.3f, %.3f], want the 0.6 m stroke", solver, lo, hi)
		}
		w.Close()
	}
}

// The ragdoll pile and the 100-link chain hold their joints together under the direct joint solve,
// with contacts still iterative: the anchors stay within 1e-4 m (float32 rounding and the projection's
// tolerance of 1e-5 m; contacts pushing limbs act through the same exact solve), while the iterative
// soft joints let them part by millimetres to centimetres.
func TestDirectJointsHoldTheRagdollsAndTheChain(t *testing.T) {
	for _, name := range []string{"ragdoll", "chain100"} {
		gaps := map[bool]float32{}
		for _, direct := range []bool{true, false} {
			s, _ := Preset(name)
			if s.Solver == nil {
				s.Solver = &Solver{}
			}
			s.Solver.DirectJoints = &direct
			w, err := s.World(Options{})
			if err != nil {
				t.Fatal(err)
			}
			steps := 90
			if testing.Short() {
				steps = 30
			}
			for range steps {
				if err := w.Step(); err != nil {
					t.Fatalf("%s: %v", name, err)
				}
				gaps[direct] = max(gaps[direct], w.MaxJointGap())
			}
		}
		t.Logf("%s: largest joint gap %.2e m direct, %.2e m iterative", name, gaps[true], gaps[false])
		if gaps[true] > 1e-4 {
			t.Errorf("%s: the direct solve let a joint part by %.2e m, want < 1e-4", name, gaps[true])
		}
		if gaps[false] < 10*gaps[true] {
			t.Errorf("%s: the iterative joints parted by %.2e m, not clearly more than the direct %.2e m", name, gaps[false], gaps[true])
		}
	}
}
