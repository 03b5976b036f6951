package ui

import (
	"fmt"
	"sort"

	"github.com/inkyblackness/imgui-go/v4"

	"tumble/sim"
	"tumble/sim/geom"
)

// The labels debug layer writes each body's name and mass at its centre in the view. A pile has
// thousands of bodies, so only those in front of the camera and inside the view are candidates, the
// nearest maxLabels of them are kept, and, nearest first, a label that would overlap one already
// placed is left out: the labels near the eye stay readable.

// maxLabels caps the labels drawn in one frame.
const maxLabels = 40

// labelState is the labels layer's state between frames.
type labelState struct {
	near  []labelCand // the nearest candidates this frame (reused)
	shown []shownLabel
}

type labelCand struct {
	i    int
	d2   float32 // squared distance to the eye
	x, y float32
}

// shownLabel is one label as drawn: its body, text and rectangle in the view.
type shownLabel struct {
	Body     sim.Handle
	Text     string
	Min, Max imgui.Vec2
}

// labelText is what a body's label says: its name and its mass (or its type, if not dynamic).
func labelText(b *sim.Bodies, i int) string {
	if b.Type[i] == sim.Dynamic {
		return b.Name[i] + " " + kg(b.Mass[i])
	}
	return fmt.Sprintf("%s (%s)", b.Name[i], b.Type[i])
}

// kg writes a mass: whole kilograms from 100 kg up (1000 kg, not 1e+03), three figures below.
func kg(m float32) string {
	if m >= 100 {
		return fmt.Sprintf("%.0f kg", m)
	}
	return fmt.Sprintf("%.3g kg", m)
}

// placeLabels chooses the labels for this frame (under the session's lock, in w).
func (a *App) placeLabels(w *sim.World) {
	ls := &a.tools.labels
	ls.shown = ls.shown[:0]
	vw, vh := a.viewport()
	eye := a.Cam.Eye()
	vp := a.Cam.Proj(vw / vh).Mul4(a.Cam.View()) // Camera.Project's, made once for every body
	b := &w.Bodies
	near := ls.near[:0]
	// The nearest maxLabels, kept sorted by distance: past the first maxLabels a body farther than
	// the farthest kept costs one comparison.
	for i := range b.Len() {
		if b.Shape[i].Kind == geom.Plane {
			continue
		}
		p := b.Position[i]
		d := p.Sub(eye)
		d2 := d.Dot(d)
		if len(near) == maxLabels && d2 >= near[len(near)-1].d2 {
			continue
		}
		clip := vp.Mul4x1(p.Vec4(1))
		if clip[3] <= 0 {
			continue // behind the eye
		}
		x, y := (clip[0]/clip[3]+1)/2*vw, (1-clip[1]/clip[3])/2*vh
		if x < 0 || y < 0 || x >= vw || y >= vh {
			continue
		}
		k := sort.Search(len(near), func(j int) bool { return near[j].d2 > d2 })
		if len(near) < maxLabels {
			near = append(near, labelCand{})
		}
		copy(near[k+1:], near[k:len(near)-1])
		near[k] = labelCand{i: i, d2: d2, x: x, y: y}
	}
	ls.near = near
	for _, c := range near {
		text := labelText(b, c.i)
		sz := imgui.CalcTextSize(text, false, 0)
		lo := imgui.Vec2{X: c.x - sz.X/2, Y: c.y - sz.Y/2}
		hi := imgui.Vec2{X: lo.X + sz.X, Y: lo.Y + sz.Y}
		overlaps := false
		for _, s := range ls.shown {
			if lo.X < s.Max.X && s.Min.X < hi.X && lo.Y < s.Max.Y && s.Min.Y < hi.Y {
				overlaps = true
				break
			}
		}
		if !overlaps {
			ls.shown = append(ls.shown, shownLabel{Body: w.HandleAt(c.i), Text: text, Min: lo, Max: hi})
		}
	}
}

// drawLabels writes the placed labels into the view.
func (a *App) drawLabels(dl imgui.DrawList) {
	for _, s := range a.tools.labels.shown {
		viewText(dl, s.Min.X, s.Min.Y, s.Text, imgui.Vec4{X: 1, Y: 1, Z: 1, W: 1})
	}
}
