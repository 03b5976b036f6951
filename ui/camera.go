package ui

import (
	"fmt"
	"math"
	"slices"
	"strings"

	"github.com/go-gl/mathgl/mgl32"

	"tumble/render"
	"tumble/sim"
	"tumble/sim/geom"
)

// Bodies far from the rest: a body (or a joint's point in the world) whose centre lies farther from
// the scene's median point than farFactor times the 90th percentile of those distances, plus
// farMargin, is left out of frame all. The 90th percentile is the bulk's radius whatever a tenth of
// the bodies do, so a ball that rolled 300 m away does not shrink a 6 m wall to a speck; a row of
// dominoes or a rain, whose farthest body is at most a few times that radius, is framed whole, and
// the margin keeps a body a few metres off a small group (the bowling ball 6 m from its pins).
const (
	farFactor = 3
	farMargin = 20 // m
)

// framePoint is one thing frame all takes in: its centre (the distance test) and its box.
type framePoint struct {
	name   string
	centre mgl32.Vec3
	box    geom.AABB
}

// A static body more than groundFactor times as large as the moving bodies' box (its largest side
// against theirs) is ground: only its part within groundMargin times that box's largest side (plus
// 1 m) of the box is framed, so the patch of a slab under a pyramid is in view and not the slab's
// 800 m (Box3D's large_pyramid), while a bin, a ramp or a terrain the size of the scene is framed
// whole, even where the bodies start above it.
const (
	groundFactor = 4
	groundMargin = 0.1
)

// frameBounds is the box of the bulk of the scene and the far ones left out of it, farthest first.
// The bulk is the moving bodies (dynamic and kinematic) and the points where joints hold bodies to
// the world, bodies far from the rest left out (with all, none are), and the static bodies, a ground
// of one (groundFactor) clipped to the region near them. Planes and height fields are left out (the
// ground: a terrain tens of metres across would shrink the bodies on it to dots). With all, or with
// nothing moving, the static bodies are framed whole.
func frameBounds(w *sim.World, all bool) (lo, hi mgl32.Vec3, far []framePoint, ok bool) {
	b := &w.Bodies
	var pts, statics []framePoint
	for i := range b.Len() {
		if k := b.Shape[i].Kind; k == geom.Plane || k == geom.HeightField {
			continue
		}
		box := b.Shape[i].Bounds(geom.Pose{P: b.Position[i], Q: b.Rotation[i]})
		if b.Type[i] == sim.Static {
			statics = append(statics, framePoint{b.Name[i], b.Position[i], box})
		} else {
			pts = append(pts, framePoint{b.Name[i], b.Position[i], box})
		}
	}
	for k := range w.NumJoints() {
		if jf := w.JointFrame(k); jf.B < 0 {
			p := jf.LocalB
			pts = append(pts, framePoint{fmt.Sprintf("joint %d's pivot", k), p, geom.AABB{Min: p, Max: p}})
		}
	}
	if len(pts) == 0 {
		pts, statics = statics, nil
	}
	if len(pts) == 0 {
		return lo, hi, nil, false
	}
	keep := pts
	if !all && len(pts) > 2 {
		var mid mgl32.Vec3
		coord := make([]float32, len(pts))
		for c := range 3 {
			for i, p := range pts {
				coord[i] = p.centre[c]
			}
			slices.Sort(coord)
			mid[c] = coord[len(coord)/2]
		}
		dist := make([]float32, len(pts))
		for i, p := range pts {
			dist[i] = p.centre.Sub(mid).Len()
		}
		sorted := slices.Clone(dist)
		slices.Sort(sorted)
		limit := farFactor*sorted[(len(sorted)-1)*9/10] + farMargin
		keep = nil
		for i, p := range pts {
			if dist[i] > limit {
				far = append(far, p)
			} else {
				keep = append(keep, p)
			}
		}
		slices.SortFunc(far, func(x, y framePoint) int {
			return -cmpf(x.centre.Sub(mid).Len(), y.centre.Sub(mid).Len())
		})
	}
	lo, hi = keep[0].box.Min, keep[0].box.Max
	for _, p := range keep[1:] {
		for c := range 3 {
			lo[c], hi[c] = min(lo[c], p.box.Min[c]), max(hi[c], p.box.Max[c])
		}
	}
	if len(statics) == 0 {
		return lo, hi, far, true
	}
	side := hi.Sub(lo)
	size := max(side[0], side[1], side[2])
	m := groundMargin*size + 1
	near := geom.AABB{Min: lo.Sub(mgl32.Vec3{m, m, m}), Max: hi.Add(mgl32.Vec3{m, m, m})}
	for _, p := range statics {
		in, overlaps := p.box, true
		ps := p.box.Max.Sub(p.box.Min)
		ground := max(ps[0], ps[1], ps[2]) > groundFactor*size
		for c := range 3 {
			if ground && !all {
				in.Min[c], in.Max[c] = max(in.Min[c], near.Min[c]), min(in.Max[c], near.Max[c])
			}
			overlaps = overlaps && in.Min[c] <= in.Max[c]
		}
		if overlaps { // its part within the region is framed
			for c := range 3 {
				lo[c], hi[c] = min(lo[c], in.Min[c]), max(hi[c], in.Max[c])
			}
		}
	}
	return lo, hi, far, true
}

func cmpf(x, y float32) int {
	switch {
	case x < y:
		return -1
	case x > y:
		return 1
	}
	return 0
}

// frameAll (F, and the Debug draw section's button) points the camera, turned as it is, at the bulk
// of the scene: bodies far from the rest are left out, and the status line says which. F again with
// the view as frame all left it frames them too.
func (a *App) frameAll() {
	all := a.framedBulk != nil && *a.framedBulk == a.Cam
	a.framedBulk = nil
	var lo, hi mgl32.Vec3
	var far []framePoint
	var ok bool
	var mid mgl32.Vec3
	a.S.View(func(w *sim.World) { lo, hi, far, ok = frameBounds(w, all) })
	if !ok {
		lo, hi = mgl32.Vec3{-5, 0, -5}, mgl32.Vec3{5, 2, 5}
	}
	mid = lo.Add(hi).Mul(0.5)
	if a.Cam.Distance == 0 { // never set: the default view
		a.Cam = render.NewCamera(mgl32.Vec3{}, 10)
	}
	vw, vh := a.viewport()
	a.Cam.Frame(lo, hi, vw/vh)
	switch {
	case all:
		a.status("frame all: every body, the far ones too", false)
	case len(far) > 0:
		var names []string
		for _, p := range far[:min(len(far), 3)] {
			names = append(names, fmt.Sprintf("%s %.0f m away", p.name, p.centre.Sub(mid).Len()))
		}
		more := ""
		if len(far) > 3 {
			more = ", ..."
		}
		a.status(fmt.Sprintf("frame all: %d far %s left out, F again takes %s in (%s%s)", len(far),
			plural(len(far), "body", "bodies"), plural(len(far), "it", "them"), strings.Join(names, ", "), more), false)
		cam := a.Cam
		a.framedBulk = &cam
	}
}

func plural(n int, one, many string) string {
	if n == 1 {
		return one
	}
	return many
}

// resetView (Home, and every scene loaded) turns the camera back to its starting direction (the
// -yaw and -pitch flags', else from the front right and above) and frames the bulk of the scene.
func (a *App) resetView() {
	a.Cam = render.NewCamera(mgl32.Vec3{}, 10)
	if a.opt.Yaw != 0 {
		a.Cam.Yaw = mgl32.DegToRad(a.opt.Yaw)
	}
	if a.opt.Pitch != 0 {
		a.Cam.Pitch = mgl32.DegToRad(a.opt.Pitch)
	}
	a.framedBulk = nil
	a.frameAll()
}

// zoomAt moves the camera towards (factor < 1) or away from the point under the cursor (a body, else
// the ground, else the point at the target's depth), keeping that point under the cursor: the eye and
// the target are scaled about it by the same factor as the distance.
func (a *App) zoomAt(factor float32) {
	o, d := a.cursorRay()
	c := &a.Cam
	var p mgl32.Vec3
	fwd := c.Target.Sub(c.Eye()).Normalize()
	if hit, ok := a.S.Pick(o, d); ok {
		p = hit.Point
	} else if t := -o[1] / d[1]; d[1] < -1e-3 && t < 50*c.Distance {
		p = o.Add(d.Mul(t))
	} else {
		p = o.Add(d.Mul(c.Distance / max(d.Dot(fwd), 1e-3)))
	}
	before := c.Distance
	c.Zoom(factor)
	f := c.Distance / before
	if f == 1 || math.IsNaN(float64(f)) {
		return
	}
	c.Target = p.Add(c.Target.Sub(p).Mul(f))
}
