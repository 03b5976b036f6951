package ui

import (
	"fmt"
	"math"

	"github.com/go-gl/mathgl/mgl32"
	"github.com/inkyblackness/imgui-go/v4"

	"tumble/render"
	"tumble/sim"
	"tumble/sim/geom"
)

// The probe (a tree node at the end of the Debug draw section), as Jolt's Samples aim theirs: the world's public scene queries
// (sim.World.RayCast, RayCastAll, ShapeCast, Overlap with a QueryFilter) aimed in the view, from the
// camera through the cursor or from an origin placed with the P key towards the cursor. Every frame
// the cursor is over the view the query runs again; over the panel the aim stays where it was, so the
// hits can be read in the section's list. The view draws the query (the ray, the swept shape at its
// start and where it stops, the overlap's shape), each hit's point, its normal and its distance, and
// outlines the bodies an overlap finds.

// Probe modes, aims and shapes, as the section's combos list them.
const (
	probeRay = iota
	probeRayAll
	probeCast
	probeOverlap
)

var (
	probeModeNames  = []string{"ray: first hit", "ray: every hit", "shape cast", "overlap"}
	probeAimNames   = []string{"camera through the cursor", "placed origin (P) to the cursor"}
	probeShapeNames = []string{"box", "sphere", "capsule"}
)

var (
	colProbe       = [4]float32{0.2, 0.95, 0.95, 1} // the query: its ray, its shapes
	colProbeHit    = [4]float32{1, 0.35, 0.85, 1}   // hit points and outlined bodies
	colProbeNormal = [4]float32{1, 0.95, 0.3, 1}    // normals at the hits
)

// probeNormalLen is the length of a drawn normal, m; probeMaxHits the most hits listed and drawn.
const (
	probeNormalLen = 0.5
	probeMaxHits   = 64
)

// probeState is the tool's settings and, as of this frame, its query and hits.
type probeState struct {
	inited             bool
	on                 bool
	mode, aim, shape   int32
	size               [3]float32
	maxDist            float32
	dynamic, static    bool // the body types the query sees
	kinematic, skipSel bool
	origin, originN    mgl32.Vec3 // the placed origin: the point on the surface, and its normal there
	placed             bool
	from, dir          mgl32.Vec3 // the query as last aimed: its origin and unit direction
	aimed              bool
	hits               []probeHit
	overlapped         int // overlap: bodies found (hits holds at most probeMaxHits of them)
	err                string
	labels             []imgui.Vec2 // where this frame drew the hits' distances (tests read them)
	aimX, aimY         float64      // the cursor the query was last aimed through
	pose               geom.Pose    // overlap: where its shape sat
}

// probeHit is one hit as the section lists it and the view draws it.
type probeHit struct {
	sim.Hit
	name  string
	shape geom.Shape // the body's, for the overlap's outline
	pose  geom.Pose
}

func (p *probeState) init() {
	if p.inited {
		return
	}
	p.inited = true
	p.size = [3]float32{0.3, 0.3, 0.3}
	p.maxDist = 100
	p.dynamic, p.static, p.kinematic = true, true, true
}

// probeQueryShape is the shape the section specifies, for a cast or an overlap.
func (p *probeState) probeQueryShape() geom.Shape {
	switch p.shape {
	case 1:
		return geom.Shape{Kind: geom.Sphere, Radius: p.size[0]}
	case 2:
		return geom.Shape{Kind: geom.Capsule, Radius: p.size[0], HalfHeight: p.size[1]}
	}
	return geom.Shape{Kind: geom.Box, HalfExtents: mgl32.Vec3(p.size)}
}

// filter is the query filter the section's checkboxes set.
func (a *App) probeFilter() sim.QueryFilter {
	p := &a.tools.probe
	var f sim.QueryFilter
	for t, on := range map[sim.BodyType]bool{sim.Dynamic: p.dynamic, sim.Static: p.static, sim.Kinematic: p.kinematic} {
		if on {
			f.Types |= sim.TypesOf(t)
		}
	}
	if f.Types == 0 {
		f.Types = 1 << 7 // no type ticked: a mask that holds no body type (the zero mask holds all)
	}
	if p.skipSel {
		f.Exclude = a.Selected
	}
	return f
}

// placeProbeOrigin puts the probe's origin where the cursor points in the view (the P key): on the
// body or ground under it, or 10 m along the ray. The query starts out from it along the surface's
// normal (probeStart), clear of the surface it was placed on.
func (a *App) placeProbeOrigin() {
	p := &a.tools.probe
	o, d := a.cursorRay()
	if hit, ok := a.S.Pick(o, d); ok {
		p.origin, p.originN = hit.Point, hit.Normal
	} else {
		p.origin, p.originN = o.Add(d.Mul(10)), d.Mul(-1)
	}
	p.placed = true
	p.init()
	a.status(fmt.Sprintf("probe origin placed at (%.2f, %.2f, %.2f)", p.origin[0], p.origin[1], p.origin[2]), false)
}

// probeStart is where a query from the placed origin starts: a centimetre out of the surface along
// its normal, and for a cast or an overlap as far again as the shape reaches, so that the shape does
// not start in the surface it was placed on.
func (p *probeState) probeStart() mgl32.Vec3 {
	out := float32(0.01)
	if p.mode == probeCast || p.mode == probeOverlap {
		s := p.probeQueryShape()
		b := s.Bounds(geom.Pose{Q: mgl32.QuatIdent()})
		out += b.Max.Len()
	}
	return p.origin.Add(p.originN.Mul(out))
}

// probeFrame aims the probe (unless the cursor is over the panel) and runs its query on the world.
func (a *App) probeFrame() {
	p := &a.tools.probe
	p.labels = p.labels[:0]
	if !p.on {
		p.hits, p.aimed, p.err = p.hits[:0], false, ""
		return
	}
	vw, vh := a.viewport()
	inView := a.mouseX >= 0 && a.mouseY >= 0 && float32(a.mouseX) < vw && float32(a.mouseY) < vh && !a.overPanel
	if inView || !p.aimed {
		x, y := a.mouseX, a.mouseY
		if !inView { // never aimed: through the middle of the view
			x, y = float64(vw)/2, float64(vh)/2
		}
		p.aimX, p.aimY = x, y
	}
	o, d := a.Cam.Ray(float32(p.aimX), float32(p.aimY), vw, vh)
	if p.aim == 1 {
		if !p.placed {
			p.hits, p.aimed, p.err = p.hits[:0], false, "no origin placed yet: point at a spot in the view and press P"
			return
		}
		target := a.groundAlong(o, d)
		start := p.probeStart()
		o, d = start, target.Sub(start)
		if d.Len() < 1e-6 {
			d = mgl32.Vec3{0, -1, 0}
		}
		d = d.Normalize()
	}
	p.from, p.dir, p.aimed, p.err = o, d, true, ""
	p.hits = p.hits[:0]
	p.overlapped = 0
	f := a.probeFilter()
	s := p.probeQueryShape()
	a.S.View(func(w *sim.World) {
		var hits []sim.Hit
		switch p.mode {
		case probeRay:
			if h, ok := w.RayCast(o, d, p.maxDist, f); ok {
				hits = append(hits, h)
			}
		case probeRayAll:
			hits = w.RayCastAll(o, d, p.maxDist, f)
		case probeCast:
			h, ok, err := w.ShapeCast(s, geom.Pose{P: o}, d, p.maxDist, f)
			if err != nil {
				p.err = err.Error()
			} else if ok {
				hits = append(hits, h)
			}
		case probeOverlap:
			p.pose = a.probeOverlapPose(w, f)
			hs, err := w.Overlap(s, p.pose, f)
			if err != nil {
				p.err = err.Error()
			}
			p.overlapped = len(hs)
			for _, h := range hs {
				if i, ok := w.Index(h); ok {
					hits = append(hits, sim.Hit{Body: h, Index: i, Point: w.Bodies.Position[i]})
				}
			}
		}
		for _, h := range hits[:min(len(hits), probeMaxHits)] {
			i, ok := w.Index(h.Body)
			if !ok {
				continue
			}
			b := &w.Bodies
			p.hits = append(p.hits, probeHit{Hit: h, name: b.Name[i], shape: b.Shape[i],
				pose: geom.Pose{P: b.Position[i], Q: b.Rotation[i]}})
		}
	})
}

// probeOverlapPose is where the overlap's shape sits: on the first body the aimed ray meets (its
// centre on the surface), else at the end of the ray (its maximum distance, at most 10 m).
func (a *App) probeOverlapPose(w *sim.World, f sim.QueryFilter) geom.Pose {
	p := &a.tools.probe
	if h, ok := w.RayCast(p.from, p.dir, p.maxDist, f); ok {
		return geom.Pose{P: h.Point}
	}
	return geom.Pose{P: p.from.Add(p.dir.Mul(min(p.maxDist, 10)))}
}

// probeLines draws the probe into the frame's overlay lines (debugLines): the query's ray or sweep
// up to its first hit (or its length, at most 50 m), the cast shape at its start and where it stops,
// the overlap's shape, a cross and the normal at each hit, the outline of each overlapped body where
// the query found it. It reads no body state: the interop path draws it too (fillDevice).
func (a *App) probeLines(f *render.Frame) {
	p := &a.tools.probe
	if !p.on || !p.aimed {
		return
	}
	reach := min(p.maxDist, 50)
	s := p.probeQueryShape()
	switch p.mode {
	case probeRay, probeRayAll, probeCast:
		end := reach
		if len(p.hits) > 0 {
			end = p.hits[len(p.hits)-1].T
		}
		if p.aim == 1 {
			f.Cross(p.from, 0.08, colProbe)
		}
		f.Line(p.from, p.from.Add(p.dir.Mul(end)), colProbe)
		if p.mode == probeCast {
			shapeOutline(f, s, geom.Pose{P: p.from.Add(p.dir.Mul(min(0.5, end)))}, colProbe)
			if len(p.hits) > 0 {
				shapeOutline(f, s, geom.Pose{P: p.from.Add(p.dir.Mul(p.hits[0].T))}, colProbeHit)
			}
		}
		for _, h := range p.hits {
			f.Cross(h.Point, 0.06, colProbeHit)
			f.Line(h.Point, h.Point.Add(h.Normal.Mul(probeNormalLen)), colProbeNormal)
		}
	case probeOverlap:
		f.Line(p.from, p.pose.P, colProbe)
		shapeOutline(f, s, p.pose, colProbe)
		for _, h := range p.hits {
			if h.shape.Kind != geom.Plane {
				shapeOutline(f, h.shape, h.pose, colProbeHit)
			}
		}
	}
}

// shapeOutline draws a box's edges, or a sphere's or capsule's three great circles (a capsule's at
// both ends, with its four sides); another shape's bounds.
func shapeOutline(f *render.Frame, s geom.Shape, pose geom.Pose, col [4]float32) {
	q := pose.Q
	if q == (mgl32.Quat{}) {
		q = mgl32.QuatIdent()
	}
	switch s.Kind {
	case geom.Box:
		h := s.HalfExtents
		corner := func(i int) mgl32.Vec3 {
			c := h
			for k := range 3 {
				if i>>k&1 == 0 {
					c[k] = -c[k]
				}
			}
			return pose.P.Add(q.Rotate(c))
		}
		for i := range 8 {
			for k := range 3 {
				if j := i | 1<<k; j != i {
					f.Line(corner(i), corner(j), col)
				}
			}
		}
	case geom.Sphere, geom.Capsule:
		ends := []float32{0}
		if s.Kind == geom.Capsule {
			ends = []float32{-s.HalfHeight, s.HalfHeight}
			for _, side := range []mgl32.Vec3{{1, 0, 0}, {-1, 0, 0}, {0, 0, 1}, {0, 0, -1}} {
				r := side.Mul(s.Radius)
				f.Line(pose.P.Add(q.Rotate(r.Add(mgl32.Vec3{0, -s.HalfHeight, 0}))),
					pose.P.Add(q.Rotate(r.Add(mgl32.Vec3{0, s.HalfHeight, 0}))), col)
			}
		}
		const steps = 24
		for _, e := range ends {
			c := mgl32.Vec3{0, e, 0}
			for axis := range 3 {
				for k := range steps {
					a0, a1 := 2*math.Pi*float64(k)/steps, 2*math.Pi*float64(k+1)/steps
					pt := func(t float64) mgl32.Vec3 {
						u, v := float32(math.Cos(t))*s.Radius, float32(math.Sin(t))*s.Radius
						var d mgl32.Vec3
						d[(axis+1)%3], d[(axis+2)%3] = u, v
						return pose.P.Add(q.Rotate(c.Add(d)))
					}
					f.Line(pt(a0), pt(a1), col)
				}
			}
		}
	default:
		b := s.Bounds(pose)
		f.Box(b.Min, b.Max, col)
	}
}

// probeOverlay writes each hit's distance (an overlap: the body's name) beside it in the view.
func (a *App) probeOverlay(dl imgui.DrawList, vw, vh float32) {
	p := &a.tools.probe
	if !p.on || !p.aimed {
		return
	}
	for k, h := range p.hits {
		x, y, ok := a.Cam.Project(h.Point, vw, vh)
		if !ok {
			continue
		}
		s := fmt.Sprintf("%s  %.3f m", h.name, h.T)
		switch {
		case p.mode == probeOverlap:
			s = h.name
		case p.mode == probeRayAll && k > 0: // the first named, the rest numbered: many hits crowd
			s = fmt.Sprintf("%d: %.3f m", k+1, h.T)
		case p.mode == probeRayAll:
			s = "1: " + s
		}
		viewText(dl, x+8, y-16, s, imgui.Vec4{X: 1, Y: 0.6, Z: 0.9, W: 1})
		p.labels = append(p.labels, imgui.Vec2{X: x, Y: y})
	}
}
