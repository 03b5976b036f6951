package ui

import (
	"fmt"
	"math"
	"strings"
	"testing"

	"github.com/go-gl/glfw/v3.3/glfw"
	"github.com/go-gl/mathgl/mgl32"

	"tumble/sim"
	"tumble/ui/command"
)

// pointTo moves the mouse over the world point p in the view and lets two frames aim the probe.
func (d *driver) pointTo(p mgl32.Vec3) {
	d.t.Helper()
	vw, vh := d.a.viewport()
	x, y, ok := d.a.Cam.Project(p, vw, vh)
	if !ok {
		d.t.Fatalf("%v is not in view", p)
	}
	d.move(float64(x), float64(y))
	d.frames(2)
}

// boxGap is how far the point q lies outside the box of half extents h at pose (c, r): 0 on or in it.
func boxGap(q, c mgl32.Vec3, r mgl32.Quat, h mgl32.Vec3) float32 {
	l := r.Conjugate().Rotate(q.Sub(c))
	var out mgl32.Vec3
	for k := range 3 {
		out[k] = max(float32(math.Abs(float64(l[k])))-h[k], 0)
	}
	return out.Len()
}

// The probe (in the Debug draw section) on the paused stack, through real clicks and keys: the ray through the cursor
// meets the box under it on its surface, facing the ray, at the distance from the eye, and the view
// labels the hit; every hit lists the boxes and the ground nearest first; the type checkboxes and the
// selected body's exclusion filter them; a sphere cast stops a radius short of the box; an overlap at
// the box's surface finds it; an origin placed with P on the ground aims from there, and a maximum
// distance shorter than the way to the box finds nothing.
func TestTheProbeAimsEachSceneQueryAndDrawsItsHits(t *testing.T) {
	d := drive(t, Options{Scene: "stack", Open: []string{"debug"}, NoShadows: true, Width: 800, Height: 700,
		Setup: func(a *App) { a.S.Do(command.Pause(true)) }})
	d.click("debug/" + probeLabel)
	p := &d.a.tools.probe
	var box5 sim.Handle
	var c5 mgl32.Vec3
	var r5 mgl32.Quat
	half := mgl32.Vec3{0.5, 0.5, 0.5}
	d.world(func(w *sim.World) {
		box5, _ = w.Find("box5")
		i, _ := w.Index(box5)
		c5, r5 = w.Bodies.Position[i], w.Bodies.Rotation[i]
	})
	// Just inside the middle of box5's side that faces the eye: the ray there crosses no other box.
	toEye := d.a.Cam.Eye().Sub(c5)
	side := mgl32.Vec3{float32(math.Copysign(1, float64(toEye[0]))), 0, 0}
	if math.Abs(float64(toEye[2])) > math.Abs(float64(toEye[0])) {
		side = mgl32.Vec3{0, 0, float32(math.Copysign(1, float64(toEye[2])))}
	}
	target := c5.Add(side.Mul(0.49))
	d.pointTo(target)
	if len(p.hits) != 0 || p.aimed {
		t.Fatalf("the probe is off, yet it aimed (%d hits)", len(p.hits))
	}

	d.click(probeLabel + "/probe the view")
	d.pointTo(target)
	if len(p.hits) != 1 || p.hits[0].name != "box5" {
		t.Fatalf("ray through box5: hits %+v", p.hits)
	}
	h := p.hits[0]
	eye := d.a.Cam.Eye()
	if g := boxGap(h.Point, c5, r5, half); g > 1e-3 || boxGap(h.Point, c5, r5, half.Mul(0.99)) < 1e-3 {
		t.Errorf("hit point %v is not on box5's surface (gap %.4f)", h.Point, g)
	}
	if n := h.Normal.Len(); math.Abs(float64(n-1)) > 1e-4 || h.Normal.Dot(p.dir) >= 0 {
		t.Errorf("normal %v: want a unit normal facing the ray %v", h.Normal, p.dir)
	}
	if dist := h.Point.Sub(eye).Len(); math.Abs(float64(dist-h.T)) > 1e-3 {
		t.Errorf("distance %.4f m; the hit point is %.4f m from the eye", h.T, dist)
	}
	if len(p.labels) != 1 || !strings.HasPrefix(d.a.probeSummary(), "hit box5 at ") {
		t.Errorf("%d labels drawn, summary %q", len(p.labels), d.a.probeSummary())
	}

	d.choose(probeLabel+"/query", "ray: every hit")
	d.pointTo(target)
	names := func() []string {
		var n []string
		for _, h := range p.hits {
			n = append(n, h.name)
		}
		return n
	}
	if len(p.hits) < 2 || p.hits[0].name != "box5" || p.hits[len(p.hits)-1].name != "ground" {
		t.Fatalf("every hit along the ray: %v, want box5 first and the ground last", names())
	}
	for k := 1; k < len(p.hits); k++ {
		if p.hits[k].T < p.hits[k-1].T {
			t.Fatalf("hits not nearest first: %v", names())
		}
	}
	if len(p.labels) != len(p.hits) {
		t.Errorf("%d labels for %d hits", len(p.labels), len(p.hits))
	}
	// Aimed again after each click: scrolling the panel to a control may have moved the camera.
	d.click(probeLabel + "/static")
	d.pointTo(target)
	if slices := names(); len(slices) == 0 || slices[len(slices)-1] == "ground" {
		t.Errorf("static unticked: hits %v", slices)
	}
	d.click(probeLabel + "/static")
	d.click(probeLabel + "/kinematic")
	d.click(probeLabel + "/dynamic")
	d.pointTo(target)
	if n := names(); len(n) != 1 || n[0] != "ground" {
		t.Errorf("only static bodies seen: hits %v", n)
	}
	d.click(probeLabel + "/dynamic")
	d.click(probeLabel + "/kinematic")
	d.a.Selected = box5
	d.click(probeLabel + "/skip the selected body")
	d.pointTo(target)
	if n := names(); len(n) == 0 || n[0] == "box5" {
		t.Errorf("box5 selected and skipped: hits %v", n)
	}
	d.click(probeLabel + "/skip the selected body")
	d.a.Selected = sim.Handle{}

	d.choose(probeLabel+"/query", "ray: first hit")
	d.pointTo(target)
	rayT := p.hits[0].T
	d.choose(probeLabel+"/query", "shape cast")
	d.choose(probeLabel+"/probe shape", "sphere")
	d.setText(probeLabel+"/radius", 0, 1, "0.2")
	d.pointTo(target)
	if len(p.hits) != 1 || p.hits[0].name != "box5" {
		t.Fatalf("sphere cast at box5: hits %v", names())
	}
	centre := p.from.Add(p.dir.Mul(p.hits[0].T))
	if g := boxGap(centre, c5, r5, half); math.Abs(float64(g-0.2)) > 0.01 || p.hits[0].T >= rayT {
		t.Errorf("the sphere stopped %.4f m from box5 (want its radius, 0.2) at %.3f m (the ray's hit: %.3f)", g, p.hits[0].T, rayT)
	}

	d.choose(probeLabel+"/probe shape", "capsule")
	d.setText(probeLabel+"/half height", 0, 1, "0.3")
	d.pointTo(target)
	if len(p.hits) != 1 {
		t.Fatalf("a capsule cast at box5: hits %v", names())
	}
	if p.hits[0].T >= rayT || p.hits[0].T < rayT-0.6 {
		t.Errorf("a capsule (radius 0.2, half height 0.3) cast at box5: hits %v at %.3f m (the ray's: %.3f)", names(), p.hits[0].T, rayT)
	}

	d.choose(probeLabel+"/query", "overlap")
	d.choose(probeLabel+"/probe shape", "box")
	d.setText(probeLabel+"/half extents", 0, 3, "0.1")
	d.pointTo(target)
	if !strings.Contains(strings.Join(names(), " "), "box5") || p.overlapped != len(p.hits) {
		t.Errorf("a box on box5's surface overlaps %v (%d)", names(), p.overlapped)
	}

	d.choose(probeLabel+"/query", "ray: first hit")
	d.choose(probeLabel+"/aim", "placed origin (P) to the cursor")
	if !strings.HasPrefix(d.a.probeSummary(), "no origin placed") {
		t.Errorf("placed-origin aim without an origin: %q", d.a.probeSummary())
	}
	d.pointTo(mgl32.Vec3{-3, 0, 2})
	d.tap(glfw.KeyP)
	d.settle()
	if !p.placed || math.Abs(float64(p.origin[1])) > 1e-3 {
		t.Fatalf("P over the ground: origin %v placed %v", p.origin, p.placed)
	}
	d.pointTo(target)
	if len(p.hits) != 1 || p.hits[0].name != "box5" || p.from.Sub(p.origin).Len() > 0.02 {
		t.Fatalf("from the origin %v to box5: from %v, hits %v", p.origin, p.from, names())
	}
	d.setText(probeLabel+"/max distance, m", 0, 1, "1")
	d.pointTo(target)
	if len(p.hits) != 0 || d.a.probeSummary() != "no hit" {
		t.Errorf("max distance 1 m, box5 %.1f m away: hits %v", target.Sub(p.origin).Len(), names())
	}

	// The layout rule: each query and each shape chosen moves nothing in the section (a ray greys the
	// shape's lines, a sphere keeps the second size line).
	for _, combo := range []string{"query", "probe shape"} {
		path := d.reveal(probeLabel + "/" + combo).Path
		before := d.sectionLayout("debug")
		for k, n := 0, 1; k < n; k++ {
			var o string
			o, n = d.chooseNth(path, k)
			after := d.sectionLayout("debug")
			d.compareLayouts(fmt.Sprintf("%s was set to %q", combo, o), before, after)
			before = after
		}
	}
}
