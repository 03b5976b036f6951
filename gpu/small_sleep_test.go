package gpu

import (
	"testing"

	"tumble/sim"
	"tumble/sim/geom"
)

// smallSleepCases are sleepCases of worlds within the small path's reach (the pyramid preset's 386
// bodies are not), with pyramid20's 210 boxes woken by an impulse in place of the pyramid's.
func smallSleepCases() []sleepCase {
	var cases []sleepCase
	for _, c := range sleepCases {
		if c.name == "pyramid" {
			c.name, c.world = "pyramid20", preset("pyramid20")
			c.wake = func(w *sim.World) error {
				h, _ := w.Find("box0_0") // a corner of the bottom row
				i, _ := w.Index(h)
				return w.ApplyImpulse(h, sim.Vec3{0, 0, 20}, w.Bodies.Position[i])
			}
		}
		cases = append(cases, c)
	}
	return cases
}

// TestEmulatedSmallPathSleepsAsTheCPU: with sleeping on, a small world takes the small path (small.go)
// at every step, while it settles, falls asleep, and wakes again by a velocity set, an impulse (the
// window's drag), a box dropped onto a sleeping pile, a removal and the joints of a hanging pair
// (smallSleepCases), and every body's pose, velocity, sleep and rest time stays the CPU's Jacobi
// step's, bit for bit (runSleepParity); so does PGS's.
func TestEmulatedSmallPathSleepsAsTheCPU(t *testing.T) {
	checkSmallPathSleeps(t, func(testing.TB) *Backend { return NewEmulated() })
}

// checkSmallPathSleeps is TestEmulatedSmallPathSleepsAsTheCPU on the backends newBackend opens.
func checkSmallPathSleeps(t *testing.T, newBackend func(testing.TB) *Backend) {
	pgs := smallSleepCases()
	for k := range pgs {
		world := pgs[k].world
		pgs[k].world = func(t testing.TB) *sim.World {
			w := world(t)
			s := w.Settings()
			s.Solver, s.NoContactCache = sim.PGS, true
			w.SetSettings(s)
			return w
		}
	}
	for _, set := range []struct {
		name  string
		cases []sleepCase
	}{{"jacobi", smallSleepCases()}, {"pgs", pgs}} {
		for _, c := range set.cases {
			t.Run(set.name+"/"+c.name, func(t *testing.T) {
				b := newBackend(t)
				fell := 0
				before, least, _ := runSleepParityWith(t, b, c, func(step int) {
					// The step before this one: a step of a world that sleeps whole launches nothing
					// (Idle), whichever path it would take.
					if step > 1 && !b.solver.small {
						fell++
					}
				})
				if fell > 0 {
					t.Errorf("%s: %d of %d steps fell back to the per-pass kernels", c.name, fell, c.settle+c.more)
				}
				if before == 0 || least >= before {
					t.Errorf("%s: %d bodies slept in %d steps, and the edit woke %d", c.name, before, c.settle, before-least)
				}
			})
		}
	}
}

// TestEmulatedSmallPathLaunchesWithSleeping: the stack with sleeping on, stepped on the small path and
// on the per-pass kernels (one launch per kernel, no graph) beside the CPU: while it settles, while it
// sleeps and a box falls towards it (the step of an awake body beside sleeping ones), at the step the
// box lands and wakes it, and asleep whole (nothing launched, either path). Each step is the CPU's bit
// for bit on both paths, and the small path launches at most a third of the per-pass path's kernels
// in each awake step. The log gives the launches a step.
func TestEmulatedSmallPathLaunchesWithSleeping(t *testing.T) {
	cpu, small, perPass := sleepyWorld(t, "stack"), sleepyWorld(t, "stack"), sleepyWorld(t, "stack")
	defer cpu.Close()
	defer small.Close()
	defer perPass.Close()
	sb, pb := NewEmulated(), NewEmulated()
	sb.NoGraphs, pb.NoGraphs, pb.NoSmall = true, true, true
	must(t, small.SetBackend(sb), perPass.SetBackend(pb))
	defer small.SetBackend(nil)
	defer perPass.SetBackend(nil)
	worlds := []*sim.World{cpu, small, perPass}
	step := 0
	// advance steps the three worlds once and returns the launches of the small and the per-pass step.
	advance := func() (sl, pl int) {
		t.Helper()
		step++
		must(t, cpu.Step(), small.Step(), perPass.Step())
		must(t, small.Sync(), perPass.Sync())
		for k, w := range worlds[1:] {
			path := [...]string{"small path", "per-pass path"}[k]
			if d := firstDifference(cpu, w); d != "" {
				t.Fatalf("step %d, the CPU against the %s: %s", step, path, d)
			}
			for i := range cpu.Bodies.Len() {
				if cpu.Bodies.Asleep[i] != w.Bodies.Asleep[i] || cpu.Bodies.SleepTime[i] != w.Bodies.SleepTime[i] {
					t.Fatalf("step %d: %s asleep %v rest %v on the CPU, %v %v on the %s", step, cpu.Bodies.Name[i],
						cpu.Bodies.Asleep[i], cpu.Bodies.SleepTime[i], w.Bodies.Asleep[i], w.Bodies.SleepTime[i], path)
				}
			}
		}
		return sb.LastStep.Launches, pb.LastStep.Launches
	}
	check := func(what string, sl, pl int) {
		t.Helper()
		t.Logf("%s (step %d, %d of %d bodies asleep): %d launches per pass, %d on the small path", what, step,
			cpu.Stats.Asleep, cpu.Bodies.Len(), pl, sl)
		if !sb.solver.small {
			t.Errorf("%s: the small path fell back to the per-pass kernels", what)
		}
		if 3*sl > pl {
			t.Errorf("%s: the small path launched %d kernels, the per-pass path %d", what, sl, pl)
		}
	}
	sl, pl := advance()
	check("settling", sl, pl)
	boxes := cpu.Bodies.Len() - 1
	for step < 200 && cpu.Stats.Asleep < boxes {
		advance()
	}
	if cpu.Stats.Asleep != boxes {
		t.Fatalf("%d of %d boxes asleep after %d steps", cpu.Stats.Asleep, boxes, step)
	}
	// A box 1.5 m above the sleeping stack's top: it falls for about half a second, alone awake.
	h, _ := cpu.Find("box19")
	top := cpu.Bodies.Position[func() int { i, _ := cpu.Index(h); return i }()]
	for _, w := range worlds {
		_, err := w.AddBody(sim.BodyDef{Name: "dropped", Shape: geom.Shape{Kind: geom.Box, HalfExtents: sim.Vec3{0.4, 0.4, 0.4}},
			Position: sim.Vec3{top[0], top[1] + 2, top[2]}, Rotation: sim.Quat{W: 1}, Friction: 0.5, Mass: 1})
		must(t, err)
	}
	advance()
	sl, pl = advance()
	check("a box falls onto the sleeping stack", sl, pl)
	for step < 400 && cpu.Stats.Asleep != 0 {
		sl, pl = advance()
	}
	if cpu.Stats.Asleep != 0 {
		t.Fatalf("the dropped box did not wake the stack by step %d", step)
	}
	check("the box lands and wakes the stack", sl, pl)
	for step < 700 && cpu.Stats.Asleep < boxes+1 {
		advance()
	}
	sl, pl = advance()
	t.Logf("asleep whole (step %d): %d launches per pass, %d on the small path", step, pl, sl)
	if cpu.Stats.Asleep != boxes+1 || sl != 0 || pl != 0 {
		t.Errorf("step %d: %d of %d boxes asleep; launches %d on the small path, %d per pass", step, cpu.Stats.Asleep,
			boxes+1, sl, pl)
	}
}
