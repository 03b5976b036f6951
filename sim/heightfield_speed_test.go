package sim_test

import (
	"fmt"
	"math"
	"os"
	"runtime"
	"slices"
	"strconv"
	"syscall"
	"testing"
	"time"

	"tumble/sim"
	"tumble/sim/geom"
)

// TestHeightFieldSpeedAgainstPlane times the step of 1,000 boxes, balls and capsules on a 1024 x 1024
// height field (0.25 m cells, 256 m across, rolling hills with small bumps) against the same bodies on
// a plane, in alternating rounds so that both see the same machine load, and fails when the field's
// step is more than twice the plane's. It takes about a minute: make bench-heightfield runs it
// (TUMBLE_FIELD_BENCH=1); plain go test skips it.
func TestHeightFieldSpeedAgainstPlane(t *testing.T) {
	if os.Getenv("TUMBLE_FIELD_BENCH") == "" {
		t.Skip("set TUMBLE_FIELD_BENCH=1 (make bench-heightfield) to time the height field against a plane")
	}
	const n = 1024
	cell := float32(0.25)
	if c, err := strconv.ParseFloat(os.Getenv("TUMBLE_FIELD_CELL"), 32); err == nil && c > 0 {
		cell = float32(c) // another spacing: the bodies stay where they are, the field spans more
	}
	h := func(x, z float32) float32 {
		return 1.5*float32(math.Sin(0.3*float64(x))*math.Cos(0.25*float64(z))) +
			0.1*float32(math.Sin(2.1*float64(x))*math.Sin(1.7*float64(z)))
	}
	field := heightField(t, n, cell, h)
	t.Logf("field: %d x %d samples %.2f m apart, %.0f KB of heights and edge flags", n, n, cell,
		float64(2*len(field.Field.Q)+len(field.Field.Active))/1024)
	build := func(ground geom.Shape, onField bool) *sim.World {
		w := sim.NewWorld(sim.Settings{Gravity: sim.Vec3{0, -9.81, 0}, Dt: 1.0 / 60, Workers: 1})
		if _, err := w.AddBody(sim.BodyDef{Name: "ground", Type: sim.Static, Shape: ground, Friction: 0.6}); err != nil {
			t.Fatal(err)
		}
		for k := range 1000 {
			x, z := (float32(k%40)-19.5)*2, (float32(k/40)-12)*2
			y := float32(1)
			if onField {
				y += h(x, z) + 0.2
			}
			var sh geom.Shape
			switch k % 3 {
			case 0:
				sh = geom.Shape{Kind: geom.Box, HalfExtents: geom.Vec3{0.3, 0.25, 0.3}}
			case 1:
				sh = geom.Shape{Kind: geom.Sphere, Radius: 0.3}
			default:
				sh = geom.Shape{Kind: geom.Capsule, Radius: 0.2, HalfHeight: 0.3}
			}
			if _, err := w.AddBody(sim.BodyDef{Name: fmt.Sprint("b", k), Shape: sh, Position: geom.Vec3{x, y, z}, Friction: 0.6}); err != nil {
				t.Fatal(err)
			}
		}
		return w
	}
	worlds := []*sim.World{build(field, true), build(geom.Shape{Kind: geom.Plane, Normal: geom.Vec3{0, 1, 0}}, false)}
	names := []string{"height field", "plane"}
	for _, w := range worlds {
		stepN(t, w, 120) // landed and rolling
	}
	// One worker, on one locked thread, timed by that thread's CPU time as well as the clock: on a
	// shared machine the clock measures the other programs too.
	runtime.LockOSThread()
	defer runtime.UnlockOSThread()
	const rounds, steps = 7, 60
	times, clock := [2][]float64{}, [2][]float64{}
	for range rounds {
		for k, w := range worlds {
			start, cpu := time.Now(), threadCPU()
			stepN(t, w, steps)
			times[k] = append(times[k], (threadCPU()-cpu).Seconds()*1000/steps)
			clock[k] = append(clock[k], time.Since(start).Seconds()*1000/steps)
		}
	}
	med := func(x []float64) float64 { y := slices.Clone(x); slices.Sort(y); return y[len(y)/2] }
	for k := range worlds {
		t.Logf("%s: median %.3f ms/step of thread CPU time (%.3f by the clock) over %d rounds of %d steps",
			names[k], med(times[k]), med(clock[k]), rounds, steps)
	}
	for k, w := range worlds {
		moving := 0 // faster than 5 cm/s: rolling or sliding, their contacts tested afresh each step
		for i := 1; i < w.Bodies.Len(); i++ {
			if w.Bodies.Velocity[i].Len() > 0.05 {
				moving++
			}
		}
		t.Logf("%s: %d manifolds, %d contact points, %d manifolds from the contact cache, %d bodies moving",
			names[k], w.Stats.Manifolds, w.Stats.Contacts, w.Stats.Reused, moving)
	}
	ratio := med(times[0]) / med(times[1])
	t.Logf("height field / plane: %.2fx", ratio)
	if ratio > 2 {
		t.Errorf("the height field's step is %.2fx the plane's, more than 2x", ratio)
	}
	// Nothing fell through.
	worlds[0].Sync()
	f := field.Field
	for i := 1; i < worlds[0].Bodies.Len(); i++ {
		p := worlds[0].Bodies.Position[i]
		if s, ok := f.HeightAt(p[0], p[2]); ok && p[1] < s {
			t.Errorf("body %d at %v is under the field (%.3f)", i, p, s)
		}
	}
}

// threadCPU is the CPU time the calling OS thread has used (Linux's RUSAGE_THREAD).
func threadCPU() time.Duration {
	var ru syscall.Rusage
	if err := syscall.Getrusage(1, &ru); err != nil {
		return 0
	}
	return time.Duration(ru.Utime.Nano() + ru.Stime.Nano())
}
