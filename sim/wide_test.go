package sim

import (
	"fmt"
	"math"
	"testing"
	"unsafe"

	"tumble/sim/geom"
)

// wideScene is a pile of boxes, spheres and capsules on boxes and a plane, with friction anchors,
// sliding and bouncing: manifolds of one to four points, static and dynamic pairs; the spheres and
// capsules have rolling and spinning resistance, so batches mix lanes with and without its rows.
func wideScene(t *testing.T, s Settings) *World {
	w := pyramidWorld(t, s, 8)
	for k := 0; k < 30; k++ {
		x, z := float32(k%5)-2, float32(k/5)-3
		d := BodyDef{Position: Vec3{x * 1.1, 9 + float32(k%3), z * 0.4}, Friction: 0.4, Restitution: 0.3,
			Velocity: Vec3{float32(k%3) - 1, 0, 0.5}, AngularVelocity: Vec3{0, float32(k % 4), 1}}
		switch k % 3 {
		case 0:
			d.Shape = boxShape(0.3, 0.2, 0.25)
		case 1:
			d.Shape = geom.Shape{Kind: geom.Sphere, Radius: 0.3}
		default:
			d.Shape = geom.Shape{Kind: geom.Capsule, Radius: 0.2, HalfHeight: 0.3}
		}
		if k%3 != 0 {
			d.RollingResistance, d.SpinningResistance = 0.05, 0.1
		}
		mustAdd(t, w, d)
	}
	return w
}

// The wide contact pass gives PGS's scalar pass's results bit for bit, over 240 steps of a pile that
// has manifolds of every size, bouncing, sliding and resting, with 1 and 2 workers: with each set of
// contact kernels the CPU can run (eight lanes, and sixteen with AVX-512), on the stage's velocity rows
// and on the bodies' (pipeline.stateOn).
func TestWidePassMatchesScalar(t *testing.T) {
	if !WideAvailable() {
		t.Skip("no wide contact pass in this build (it needs GOEXPERIMENT=simd and AVX2): make test runs this package again with it")
	}
	eachWideSetting(t, func(name string, s Settings, o Options) {
		state := !o.bodyRows
		ref := wideScene(t, s)
		mustOptions(t, ref, Options{Scalar: true})
		wide := wideScene(t, s)
		mustOptions(t, wide, o)
		full, part := false, false // batches of more than eight manifolds, all sixteen and fewer
		for step := range 240 {
			run(t, ref, 1)
			run(t, wide, 1)
			if !wide.pipe.wide.wideOn || wide.pipe.wide.stateOn != state {
				t.Fatalf("%s: wide pass %v, on the state rows %v", name, wide.pipe.wide.wideOn, wide.pipe.wide.stateOn)
			}
			for i := range wide.pipe.wide.wide {
				n := wide.pipe.wide.wide[i].lanes
				full, part = full || n == batchLanes, part || (n > wideLanes && n < batchLanes)
			}
			for i := range ref.Bodies.Position {
				a, b := &ref.Bodies, &wide.Bodies
				if !sameBits(a.Position[i], b.Position[i]) || !sameBits(a.Velocity[i], b.Velocity[i]) ||
					!sameBits(a.AngularVelocity[i], b.AngularVelocity[i]) || a.Rotation[i] != b.Rotation[i] {
					t.Fatalf("%s, step %d, body %d: scalar %v %v, wide %v %v", name, step, i,
						a.Position[i], a.Velocity[i], b.Position[i], b.Velocity[i])
				}
			}
		}
		if n := ref.Stats.Manifolds; n < 50 {
			t.Fatalf("%s: only %d manifolds: the scene does not exercise the pass", name, n)
		}
		if !full || !part {
			t.Fatalf("%s: a full batch %v, one of nine to fifteen manifolds %v: the halves are not all exercised", name, full, part)
		}
	})
}

// eachWideSetting runs f with each set of wide contact kernels the CPU has (eight lanes, and sixteen
// with AVX-512), on the stage's velocity rows and on the bodies' (state), with 1 and 2 workers,
// giving f the options that select them.
func eachWideSetting(t *testing.T, f func(name string, s Settings, o Options)) {
	lanes, _ := LaneWidths()
	for _, n := range lanes {
		for _, state := range []bool{true, false} {
			for _, workers := range []int{1, 2} {
				f(fmt.Sprintf("contact lanes %d, state rows %v, workers %d", n, state, workers), Settings{Workers: workers},
					Options{Lanes: n, bodyRows: !state})
			}
		}
	}
}

func sameBits(a, b Vec3) bool {
	for k := range a {
		if math.Float32bits(a[k]) != math.Float32bits(b[k]) {
			return false
		}
	}
	return true
}

// widePoint's first pointFloats rows hold contactPoint's first pointFloats floats in the same order,
// as the transposing pack (widePackKernel) assumes, and contactPoint has room for its last 8-float
// read.
func TestWideLayout(t *testing.T) {
	var cp contactPoint
	var wp widePoint
	fields := []struct {
		name   string
		cp, wp uintptr
	}{
		{"nA", unsafe.Offsetof(cp.nA), unsafe.Offsetof(wp.nA)},
		{"nB", unsafe.Offsetof(cp.nB), unsafe.Offsetof(wp.nB)},
		{"inA", unsafe.Offsetof(cp.inA), unsafe.Offsetof(wp.inA)},
		{"inB", unsafe.Offsetof(cp.inB), unsafe.Offsetof(wp.inB)},
		{"t1A", unsafe.Offsetof(cp.t1A), unsafe.Offsetof(wp.t1A)},
		{"t1B", unsafe.Offsetof(cp.t1B), unsafe.Offsetof(wp.t1B)},
		{"it1A", unsafe.Offsetof(cp.it1A), unsafe.Offsetof(wp.it1A)},
		{"it1B", unsafe.Offsetof(cp.it1B), unsafe.Offsetof(wp.it1B)},
		{"t2A", unsafe.Offsetof(cp.t2A), unsafe.Offsetof(wp.t2A)},
		{"t2B", unsafe.Offsetof(cp.t2B), unsafe.Offsetof(wp.t2B)},
		{"it2A", unsafe.Offsetof(cp.it2A), unsafe.Offsetof(wp.it2A)},
		{"it2B", unsafe.Offsetof(cp.it2B), unsafe.Offsetof(wp.it2B)},
		{"normalImpulse", unsafe.Offsetof(cp.normalImpulse), unsafe.Offsetof(wp.normalImpulse)},
		{"tangentImpulse[0]", unsafe.Offsetof(cp.tangentImpulse), unsafe.Offsetof(wp.ti1)},
		{"tangentImpulse[1]", unsafe.Offsetof(cp.tangentImpulse) + 4, unsafe.Offsetof(wp.ti2)},
		{"maxNormal", unsafe.Offsetof(cp.maxNormal), unsafe.Offsetof(wp.maxNormal)},
		{"normalMass", unsafe.Offsetof(cp.normalMass), unsafe.Offsetof(wp.normalMass)},
		{"softMass", unsafe.Offsetof(cp.softMass), unsafe.Offsetof(wp.softMass)},
		{"leak", unsafe.Offsetof(cp.leak), unsafe.Offsetof(wp.leak)},
		{"tangentMass[0]", unsafe.Offsetof(cp.tangentMass), unsafe.Offsetof(wp.tm1)},
		{"tangentMass[1]", unsafe.Offsetof(cp.tangentMass) + 4, unsafe.Offsetof(wp.tm2)},
		{"sep", unsafe.Offsetof(cp.sep), unsafe.Offsetof(wp.sep)},
	}
	next := uintptr(0)
	for _, f := range fields {
		if f.cp != 4*next || f.wp != 4*batchLanes*next {
			t.Errorf("%s: float %d of contactPoint (offset %d) and row %d of widePoint (offset %d), want %d and %d",
				f.name, f.cp/4, f.cp, f.wp/(4*batchLanes), f.wp, 4*next, 4*batchLanes*next)
		}
		if f.cp < unsafe.Offsetof(cp.normalImpulse) {
			next += 3 // a vector
		} else {
			next++
		}
	}
	if next != pointFloats {
		t.Errorf("%d shared floats, pointFloats is %d", next, pointFloats)
	}
	if unsafe.Sizeof(cp) < 4*(pointFloats+2) {
		t.Errorf("contactPoint is %d bytes, the pack reads %d", unsafe.Sizeof(cp), 4*(pointFloats+2))
	}
	// Every row of a batch starts on a cache line of its own (the batches' array is page-aligned).
	var bt wideBatch
	if unsafe.Sizeof(wp)%64 != 0 || unsafe.Sizeof(bt)%64 != 0 || unsafe.Offsetof(bt.pts)%64 != 0 ||
		unsafe.Offsetof(wp.localA)%64 != 0 {
		t.Errorf("widePoint is %d bytes, wideBatch %d with its points at %d: a sixteen-lane row would straddle two cache lines",
			unsafe.Sizeof(wp), unsafe.Sizeof(bt), unsafe.Offsetof(bt.pts))
	}
	var jb wideJointBatch
	if unsafe.Sizeof(jb)%64 != 0 || unsafe.Offsetof(jb.swing)%64 != 0 || unsafe.Sizeof(wideAngle{})%64 != 0 {
		t.Errorf("wideJointBatch is %d bytes: a sixteen-lane row would straddle two cache lines", unsafe.Sizeof(jb))
	}
}

// prepareWide computes the rows of the batches' points bit for bit as prepareRows does (packed by
// the transpose), and gives the points back the same anchors and pre-solve velocities: over 120 steps
// of the pile, with 1 and 2 workers, the two worlds' batches and points agree after every step.
func TestWidePrepareMatchesScalar(t *testing.T) {
	if !WideAvailable() {
		t.Skip("no wide prepare in this build (it needs GOEXPERIMENT=simd and AVX2): make test runs this package again with it")
	}
	lanes, _ := LaneWidths()
	for _, n := range lanes {
		t.Run(fmt.Sprintf("%d lanes", n), func(t *testing.T) { testWidePrepare(t, n) })
	}
}

func testWidePrepare(t *testing.T, lanes int) {
	for _, workers := range []int{1, 2} {
		s := Settings{Workers: workers}
		ref, wide := wideScene(t, s), wideScene(t, s)
		mustOptions(t, ref, Options{Lanes: lanes, rowPrepare: true})
		mustOptions(t, wide, Options{Lanes: lanes})
		ragged := false
		for step := range 120 {
			run(t, ref, 1)
			run(t, wide, 1)
			p, q := &ref.pipe, &wide.pipe
			if p.wide.widePrep || !q.wide.widePrep {
				t.Fatalf("step %d: wide prepare %v and %v, want off and on", step, p.wide.widePrep, q.wide.widePrep)
			}
			if len(p.wide.wide) != len(q.wide.wide) {
				t.Fatalf("step %d: %d and %d batches", step, len(p.wide.wide), len(q.wide.wide))
			}
			for i := range p.wide.wide {
				a, b := &p.wide.wide[i], &q.wide.wide[i]
				ragged = ragged || a.ragged != 0 || a.lanes < batchLanes
				for j := range a.maxCount {
					ra := (*[pointFloats]blanes)(unsafe.Pointer(&a.pts[j]))
					rb := (*[pointFloats]blanes)(unsafe.Pointer(&b.pts[j]))
					for r := range ra {
						for l := range usedLanes(a.lanes) {
							if math.Float32bits(ra[r][l]) != math.Float32bits(rb[r][l]) {
								t.Fatalf("workers %d, step %d, batch %d, point %d, row float %d, lane %d: %v from prepareRows, %v wide",
									workers, step, i, j, r, l, ra[r][l], rb[r][l])
							}
						}
					}
					if a.pts[j].localA != b.pts[j].localA || a.pts[j].localB != b.pts[j].localB ||
						a.pts[j].anchorA != b.pts[j].anchorA || a.pts[j].anchorB != b.pts[j].anchorB {
						t.Fatalf("workers %d, step %d, batch %d, point %d: anchors differ", workers, step, i, j)
					}
				}
			}
			// The points' anchors and pre-solve velocities, now the next step's warm-start source.
			for k := range p.narrow.prev {
				ma, mb := &p.narrow.prev[k], &q.narrow.prev[k]
				for j := range ma.pts[:ma.count] {
					ca, cb := &ma.pts[j], &mb.pts[j]
					if ca.localA != cb.localA || ca.localB != cb.localB || ca.anchorA != cb.anchorA ||
						ca.anchorB != cb.anchorB || math.Float32bits(ca.relVel) != math.Float32bits(cb.relVel) ||
						ca.normalImpulse != cb.normalImpulse {
						t.Fatalf("workers %d, step %d, manifold %d, point %d: %+v from prepareRows, %+v wide",
							workers, step, k, j, *ca, *cb)
					}
				}
			}
		}
		if !ragged {
			t.Fatal("no batch with a missing point or an empty lane: the masks are not exercised")
		}
	}
}
