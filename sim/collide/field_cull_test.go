package collide

import (
	"math"
	"testing"

	"tumble/sim/geom"
)

// cullSpots yields n ball centres over field f (the field's frame), spread over it by a
// low-discrepancy sequence (R2), each at a height over the terrain under it from 1 cm within the
// radius r to 3 cm beyond it, and a margin from 1 to 9 cm: touching, speculative and out of reach.
func cullSpots(f *geom.HeightGrid, n int, r float32, fn func(p vec, margin float32)) {
	w, d := float32(f.NX-1)*f.DX, float32(f.NZ-1)*f.DZ
	for k := range n {
		u, v := float32(math.Mod(float64(k)*0.618034, 1)), float32(math.Mod(float64(k)*0.754878, 1))
		x, z := f.X0+0.02*w+0.96*w*u, f.Z0+0.02*d+0.96*d*v
		s, ok := surfaceAt(f, x, z)
		if !ok {
			continue
		}
		lift := -0.01 + 0.04*float32(math.Mod(float64(k)*0.569840, 1))
		margin := 0.01 + 0.08*float32(math.Mod(float64(k)*0.432015, 1))
		fn(vec{X: x, Y: s.h + (r+lift)/max(s.n.Y, 0.3), Z: z}, margin)
	}
}

// cullTerrains are the height-field bench's hills (1024 x 1024 samples 0.25 m apart: coordinates up
// to 128 m, where a float32's step is 8 um) and a rough field of steep bumps and ridges.
func cullTerrains(t *testing.T) []*geom.Shape {
	hills := func(x, z float32) float32 {
		return 1.5*float32(math.Sin(0.3*float64(x))*math.Cos(0.25*float64(z))) +
			0.1*float32(math.Sin(2.1*float64(x))*math.Sin(1.7*float64(z)))
	}
	rough := func(x, z float32) float32 {
		return 0.4*float32(math.Sin(3.1*float64(x))*math.Cos(2.3*float64(z))) +
			0.3*float32(math.Abs(math.Sin(1.3*float64(x+z))))
	}
	return []*geom.Shape{testField(t, 1024, 0.25, hills), testField(t, 129, 0.2, rough)}
}

// A ball's contacts with a height field, its triangles taken from the cells within its reach
// (fieldTrisNear) and ordered by centreFirst, are those of every triangle under its box (fieldTris)
// bit for bit: the cells left out lie beyond reach, and the rest are met in the same order. At 4,000
// spots on the bench's hills and on a rough field, touching, speculative and out of reach; the cull
// must leave cells out at most of the touching ones, or the test proves nothing.
func TestFieldBallCullChangesNoContact(t *testing.T) {
	c := new(meshCtx)
	balls := func(f *geom.HeightGrid, p vec, r, margin float32, near bool) ([]meshPt, int) {
		e := r + margin
		box := geom.AABB{Min: geom.Vec3{p.X - e, p.Y - e, p.Z - e}, Max: geom.Vec3{p.X + e, p.Y + e, p.Z + e}}
		c.nclus, c.margin, c.mergeCos, c.roundMax = 0, margin, fieldMergeCos, 1
		c.pts = c.ptsBuf[:0]
		if near {
			c.tris = fieldTrisNear(f, box, p.Vec3(), r+margin+cullSlack, c.tris[:0])
		} else {
			c.tris = fieldTris(f, box, c.tris[:0])
		}
		centreFirst(f, p.Vec3(), c.tris)
		for i := range c.tris {
			tr := &c.tris[i]
			if h := tr.n.Dot(p.Sub(tr.v[0])); h < 0 || h >= r+margin+cullSlack {
				continue
			}
			c.sphereTri(tr, p, r)
		}
		return append([]meshPt(nil), c.pts...), len(c.tris)
	}
	for _, field := range cullTerrains(t) {
		f := field.Field
		spots, culled, touching := 0, 0, 0
		cullSpots(f, 2000, 0.3, func(p vec, margin float32) {
			all, nAll := balls(f, p, 0.3, margin, false)
			near, nNear := balls(f, p, 0.3, margin, true)
			spots++
			if len(all) > 0 {
				touching++
				if nNear < nAll {
					culled++
				}
			}
			if len(all) != len(near) {
				t.Fatalf("ball at %v, margin %.3f: %d points over every cell, %d over the near ones", p, margin, len(all), len(near))
			}
			for i := range all {
				if all[i] != near[i] {
					t.Fatalf("ball at %v, margin %.3f: point %d %+v over every cell, %+v over the near ones", p, margin, i, all[i], near[i])
				}
			}
		})
		t.Logf("%d spots, %d touching, the cull left cells out at %d of them", spots, touching, culled)
		if culled < touching/2 {
			t.Errorf("the cull left cells out at %d of %d touching spots, want most", culled, touching)
		}
	}
}

// A capsule's end (roundEnd), passing over the cells whose boxes lie beyond its reach (cellFar),
// gives the contacts of every cell within its box's reach, bit for bit, and a probe (probeAt), passing
// over the cells farther than the triangle under it, the nearest of them, at the same spots.
func TestFieldEndCullChangesNoContact(t *testing.T) {
	c := new(meshCtx)
	for _, field := range cullTerrains(t) {
		f := field.Field
		spots, far, probes := 0, 0, 0
		cullSpots(f, 2000, 0.2, func(p vec, margin float32) {
			const r = 0.2
			c.nclus, c.margin, c.mergeCos, c.roundMax = 0, margin, fieldMergeCos, 2
			c.pts = c.ptsBuf[:0]
			c.roundEnd(f, p, r, r+margin+cullSlack, 5, 1)
			got := append([]meshPt(nil), c.pts...)
			u, _ := surfaceAt(f, p.X, p.Z)
			probe := c.probeAt(f, p, r, u.idx, 1)
			// Every cell of the end's box, but those wholly above or below its reach.
			c.nclus, c.pts = 0, c.ptsBuf[:0]
			nearest := meshPt{clipPt: clipPt{sep: margin}}
			reach := r + margin
			i0 := max(int(math.Floor(float64((p.X-reach-f.X0)/f.DX))), 0)
			i1 := min(int(math.Floor(float64((p.X+reach-f.X0)/f.DX))), f.NX-2)
			j0 := max(int(math.Floor(float64((p.Z-reach-f.Z0)/f.DZ))), 0)
			j1 := min(int(math.Floor(float64((p.Z+reach-f.Z0)/f.DZ))), f.NZ-2)
			for j := j0; j <= j1; j++ {
				for i := i0; i <= i1; i++ {
					h := [4]float32{f.Height(i, j), f.Height(i+1, j), f.Height(i, j+1), f.Height(i+1, j+1)}
					lo, hi := min(h[0], h[1], h[2], h[3]), max(h[0], h[1], h[2], h[3])
					if lo > p.Y+reach || hi < p.Y-reach {
						continue
					}
					if cellFar(f, i, j, lo, hi, p, reach+cullSlack) {
						far++
					}
					c.roundTri(f, i, j, 0, &h, p, r, 5, 1)
					c.roundTri(f, i, j, 1, &h, p, r, 5, 1)
					c.probe = &nearest
					c.roundTri(f, i, j, 0, &h, p, r, 10, 1)
					c.roundTri(f, i, j, 1, &h, p, r, 10, 1)
					c.probe = nil
				}
			}
			spots++
			if probe != nearest {
				t.Fatalf("probe at %v, margin %.3f: %+v over the near cells, %+v over every cell", p, margin, probe, nearest)
			}
			if nearest.sep < margin {
				probes++
			}
			if len(got) != len(c.pts) {
				t.Fatalf("end at %v, margin %.3f: %d points over the near cells, %d over every cell", p, margin, len(got), len(c.pts))
			}
			for i := range got {
				if got[i] != c.pts[i] {
					t.Fatalf("end at %v, margin %.3f: point %d %+v over the near cells, %+v over every cell", p, margin, i, got[i], c.pts[i])
				}
			}
		})
		t.Logf("%d spots, %d cells passed over, %d probes touching", spots, far, probes)
		if far < spots {
			t.Errorf("%d cells passed over at %d spots, want more than one a spot", far, spots)
		}
	}
}
