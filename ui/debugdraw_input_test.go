package ui

import (
	"image"
	"math"
	"slices"
	"testing"

	"github.com/go-gl/mathgl/mgl32"

	"tumble/render/instance"
	"tumble/sim"
)

// rgbDiff is the largest difference of the two pixels' channels, 0 to 1.
func rgbDiff(a, b *image.RGBA, x, y int) float64 {
	i, j := a.PixOffset(x, y), b.PixOffset(x, y)
	d := 0.0
	for c := range 3 {
		d = math.Max(d, math.Abs(float64(a.Pix[i+c])-float64(b.Pix[j+c]))/255)
	}
	return d
}

// The bridge's hinges sit inside its planks: drawn over the bodies, the pixel at each hinge's anchor
// changes when the joints layer is on.
func TestHingesInsideTheBridgesPlanksAreDrawn(t *testing.T) {
	opt := Options{Scene: "bridge", Width: 640, Height: 400, Frames: 1, NoPanel: true}
	with, a := run(t, opt)
	opt.Setup = func(a *App) { a.Debug.Joints = false }
	without, _ := run(t, opt)
	vw, vh := a.viewport()
	seen, drawn := 0, 0
	a.S.View(func(w *sim.World) {
		for k := range w.NumJoints() {
			x, y, ok := a.Cam.Project(w.JointState(k).AnchorA, vw, vh)
			if !ok || x < 1 || y < 1 || x >= vw-1 || y >= vh-1 {
				continue
			}
			seen++
			if rgbDiff(with, without, int(x), int(y)) > 0.15 {
				drawn++
			}
		}
	})
	if seen < 10 || drawn < seen*9/10 {
		t.Errorf("%d of the %d hinges in view change the pixel at their anchor", drawn, seen)
	}
}

// Debug lines are 2 px wide: across the AABBs drawn around the mixed preset's bodies, the pixels the
// layer changes are, in the median, at least 2 deep both across and along the screen's axes.
func TestDebugLinesAreThickerThanOnePixel(t *testing.T) {
	opt := Options{Scene: "mixed", Width: 640, Height: 400, Frames: 1, NoPanel: true, Debug: []string{"aabbs"}}
	with, _ := run(t, opt)
	opt.Debug = nil
	without, _ := run(t, opt)
	w, h := 640, 400
	on := func(x, y int) bool { return x >= 0 && y >= 0 && x < w && y < h && rgbDiff(with, without, x, y) > 0.1 }
	run := func(x, y, dx, dy int) int {
		n := 1
		for k := 1; on(x+k*dx, y+k*dy); k++ {
			n++
		}
		for k := 1; on(x-k*dx, y-k*dy); k++ {
			n++
		}
		return n
	}
	var depth []int
	for y := range h {
		for x := range w {
			if on(x, y) {
				depth = append(depth, min(run(x, y, 1, 0), run(x, y, 0, 1)))
			}
		}
	}
	if len(depth) < 500 {
		t.Fatalf("the AABBs changed %d pixels", len(depth))
	}
	slices.Sort(depth)
	if m := depth[len(depth)/2]; m < 2 {
		t.Errorf("the lines are %d px thick in the median (%d pixels)", m, len(depth))
	}
}

// The selection's colour is far from every colour a body is drawn in (the palette's hues, the type
// and sleep colours, the hover highlight), and a body clicked in the view is outlined in it.
func TestSelectionStandsApartFromEveryBodyColour(t *testing.T) {
	dist := func(a, b [4]float32) float32 { return mgl32.Vec3{a[0] - b[0], a[1] - b[1], a[2] - b[2]}.Len() }
	near := float32(9)
	for i := range 1000 {
		near = min(near, dist(instance.ColorSelected, instance.BodyColor(i)))
	}
	for _, c := range [][4]float32{instance.ColorDynamic, instance.ColorKinematic, instance.ColorStatic,
		instance.ColorAwake, instance.ColorAsleep, instance.ColorHovered} {
		near = min(near, dist(instance.ColorSelected, c))
	}
	if near < 0.5 {
		t.Errorf("the selection colour %v is %.2f from a body colour (RGB distance), want 0.5 or more", instance.ColorSelected, near)
	}
	d := drive(t, Options{Scene: "stack"})
	d.clickBody("box5")
	if d.a.bodyName(d.a.Selected, false) != "box5" {
		t.Fatalf("selected %q", d.a.bodyName(d.a.Selected, false))
	}
	outline := 0
	for i := 0; i+1 < len(d.a.frame.Overlay); i += 2 {
		if d.a.frame.Overlay[i].Color == instance.ColorSelected {
			outline++
		}
	}
	if outline != 12 {
		t.Errorf("%d outline edges drawn over the selected box, want 12", outline)
	}
}

// The ragdolls are not buried in limit cones: with nothing selected no joint draws its limits; a
// clicked body's joints do.
func TestOnlyTheSelectedBodysJointsDrawTheirLimits(t *testing.T) {
	d := drive(t, Options{Scene: "ragdoll"})
	red := func() int {
		n := 0
		for _, v := range append(d.a.frame.Lines, d.a.frame.Overlay...) {
			if v.Color == colContact {
				n++
			}
		}
		return n / 2
	}
	if n := red(); n != 0 {
		t.Errorf("%d limit segments drawn with nothing selected", n)
	}
	d.clickBody("r19_torso")
	if d.a.bodyName(d.a.Selected, false) != "r19_torso" {
		t.Fatalf("selected %q", d.a.bodyName(d.a.Selected, false))
	}
	if n := red(); n < 20 {
		t.Errorf("%d limit segments drawn for the selected torso's joints", n)
	}
}

// The tooltip follows the world: a body that moves away from a still cursor is no longer hovered.
func TestHoverLetsGoOfABodyThatMovesAwayFromAStillCursor(t *testing.T) {
	d := drive(t, Options{Scene: "stack"})
	d.frames(30)
	var p sim.Vec3
	var top sim.Handle
	d.world(func(w *sim.World) {
		for i := range w.Bodies.Len() {
			if w.Bodies.Position[i][1] > p[1] {
				p, top = w.Bodies.Position[i], w.HandleAt(i)
			}
		}
	})
	vw, vh := d.a.viewport()
	x, y, _ := d.a.Cam.Project(p, vw, vh)
	d.move(float64(x), float64(y))
	d.frames(2)
	if d.a.hoverBody != top {
		t.Fatalf("hovering the top box: hovered %q", d.a.bodyName(d.a.hoverBody, false))
	}
	d.world(func(w *sim.World) {
		if err := w.SetPose(top, p.Add(sim.Vec3{4, 0, 0}), mgl32.QuatIdent()); err != nil {
			t.Fatal(err)
		}
	})
	d.frames(3) // the mouse stays still
	if d.a.hoverBody == top {
		t.Errorf("the top box moved 4 m away and is still hovered under a still cursor")
	}
}
