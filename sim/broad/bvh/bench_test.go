package bvh

import (
	"fmt"
	"math/rand/v2"
	"testing"
	"time"

	"tumble/sim/broad"
	"tumble/sim/broad/broadtest"
	"tumble/sim/geom"
	"tumble/sim/internal/workpool"
)

var benchSizes = []int{1_000, 10_000, 100_000, 1_000_000}

func sizeName(n int) string {
	if n >= 1_000_000 {
		return fmt.Sprintf("%dM", n/1_000_000)
	}
	return fmt.Sprintf("%dk", n/1000)
}

// benchScene is the settled pile of broadtest.Pile (7 to 8 neighbours per box, a ground plane under
// it) in two frames a millimetre apart, so that successive calls see moving bodies.
func benchScene(n int) ([2][]geom.AABB, []bool) {
	r := rand.New(rand.NewPCG(1, uint64(n)))
	boxes, moving := broadtest.Pile(r, n)
	return [2][]geom.AABB{boxes, broadtest.Jittered(r, boxes, 0.001)}, moving
}

// BenchmarkLBVH times a call per pile size, worker count and mode (rebuild every call, or refit), and
// reports each stage's mean time per call in ms (metric "<stage>-ms"), pairs and pairs per second.
func BenchmarkLBVH(b *testing.B) {
	for _, n := range benchSizes {
		frames, moving := benchScene(n)
		for _, workers := range []int{1, 2} {
			for _, mode := range []string{"rebuild", "refit"} {
				b.Run(fmt.Sprintf("pile-%s/workers=%d/%s", sizeName(n), workers, mode), func(b *testing.B) {
					pool := workpool.New(workers)
					defer pool.Close()
					tr := New()
					tr.Workers = workers
					tr.Parallel = func(n int, fn func(worker, lo, hi int)) { pool.Run(n, 1, fn) }
					if mode == "refit" {
						tr.RefitGrowth = 1e9 // never rebuild: time the refit alone
					}
					out := tr.Pairs(frames[1], moving, nil)
					var stages [NumStages]time.Duration
					calls, pairs := 0, 0
					for b.Loop() {
						calls++
						out = tr.Pairs(frames[calls%2], moving, out)
						pairs += len(out)
						for s, d := range tr.Times {
							stages[s] += d
						}
					}
					for s, d := range stages {
						if d > 0 {
							b.ReportMetric(float64(d.Microseconds())/1e3/float64(calls), Stage(s).String()+"-ms")
						}
					}
					b.ReportMetric(float64(pairs)/b.Elapsed().Seconds(), "pairs/s")
					b.ReportMetric(float64(pairs/calls), "pairs")
				})
			}
		}
	}
}

// BenchmarkPhases times every broad phase on the same piles and worker counts, for the comparison in
// docs/PERF.md. Brute force stops at 10k (100k would take a minute a call).
func BenchmarkPhases(b *testing.B) {
	for _, n := range benchSizes {
		frames, moving := benchScene(n)
		for _, workers := range []int{1, 2} {
			for _, name := range []string{"lbvh", "sap", "grid", "brute"} {
				if name == "brute" && (n > 10_000 || workers > 1) {
					continue
				}
				b.Run(fmt.Sprintf("pile-%s/workers=%d/%s", sizeName(n), workers, name), func(b *testing.B) {
					pool := workpool.New(workers)
					defer pool.Close()
					parallel := func(n int, fn func(worker, lo, hi int)) { pool.Run(n, 1, fn) }
					var ph broad.Phase
					switch name {
					case "lbvh":
						tr := New()
						tr.Parallel, tr.Workers = parallel, workers
						ph = tr
					case "sap":
						s := broad.NewSAP()
						s.Parallel, s.Workers = parallel, workers
						ph = s
					case "grid":
						g := broad.NewGrid()
						g.Parallel, g.Workers = parallel, workers
						ph = g
					case "brute":
						ph = broad.Brute{}
					}
					out := ph.Pairs(frames[1], moving, nil)
					calls, pairs := 0, 0
					for b.Loop() {
						calls++
						out = ph.Pairs(frames[calls%2], moving, out)
						pairs += len(out)
					}
					b.ReportMetric(float64(pairs)/b.Elapsed().Seconds(), "pairs/s")
					b.ReportMetric(float64(pairs/calls), "pairs")
				})
			}
		}
	}
}

// BenchmarkRefit compares rebuilding the tree every step with refitting it, on two motions of 100k
// boxes over 120 steps: a settled pile (every box jitters by up to 1 mm a step) and a falling cloud
// (every box falls under gravity with its own random velocity of up to 5 m/s, at 60 Hz, as a rain
// scene's boxes do before they land). Each op is the whole 120-step run, moving the boxes included; the
// metrics are the broad phase's ms per step, by stage and in all, and the rebuilds in the run. growth=0 rebuilds every step, growth=inf never does.
func BenchmarkRefit(b *testing.B) {
	const n, steps, dt = 100_000, 120, float32(1.0 / 60)
	for _, motion := range []string{"settled", "falling"} {
		for _, growth := range []float32{0, 1.05, 1.1, 1.25, 1.5, 2, 1e30} {
			name := fmt.Sprintf("%s/growth=%g", motion, growth)
			if growth > 1e29 {
				name = motion + "/growth=inf"
			}
			b.Run(name, func(b *testing.B) {
				r := rand.New(rand.NewPCG(2, 2))
				start, moving := broadtest.Pile(r, n)
				vel := make([]geom.Vec3, n)
				for i := range vel {
					vel[i] = broadtest.RandVec(r, -5, 5)
				}
				boxes := make([]geom.AABB, n)
				var stages [NumStages]time.Duration
				rebuilds, calls := 0, 0
				for b.Loop() {
					copy(boxes, start)
					tr := New()
					tr.RefitGrowth = growth
					var out []broad.Pair
					for s := 0; s < steps; s++ {
						for i := 1; i < n; i++ {
							var d geom.Vec3
							if motion == "settled" {
								d = broadtest.RandVec(r, -0.001, 0.001)
							} else {
								vel[i][1] -= 9.81 * dt
								d = vel[i].Mul(dt)
							}
							boxes[i] = geom.AABB{Min: boxes[i].Min.Add(d), Max: boxes[i].Max.Add(d)}
						}
						out = tr.Pairs(boxes, moving, out)
						calls++
						if tr.Rebuilt {
							rebuilds++
						}
						for st, d := range tr.Times {
							stages[st] += d
						}
					}
				}
				total := time.Duration(0)
				for st, d := range stages {
					total += d
					if d > 0 {
						b.ReportMetric(float64(d.Microseconds())/1e3/float64(calls), Stage(st).String()+"-ms")
					}
				}
				b.ReportMetric(float64(total.Microseconds())/1e3/float64(calls), "ms/step")
				b.ReportMetric(float64(rebuilds)*steps/float64(calls), "rebuilds")
			})
		}
	}
}
