package ui

import (
	"fmt"
	"math"
	"slices"
	"strings"
	"testing"

	"github.com/inkyblackness/imgui-go/v4"

	"tumble/sim"
	"tumble/ui/command"
)

// The panel's layout rule: no widget's position in a section changes because of another widget's
// state in that section. A checkbox that shows a field, a combo that picks what follows, an offer
// that appears: each has a fixed slot, or a line kept for it while it is away, so the control the
// user's mouse is over stays under it. (The sections below an open section move with its height;
// the rule is within one section.)

// sectionLayout is the top-left corner of each widget of a section, by ID path, relative to the
// section's header (so the panel's scroll does not count). Combo options, in their popups, are left
// out.
func (d *driver) sectionLayout(name string) map[string]imgui.Vec2 {
	d.t.Helper()
	var head Item
	found := false
	for _, s := range sections {
		if s.name == name {
			head, found = d.find("sections/"+s.label), true
		}
	}
	if !found {
		d.t.Fatalf("no section %q", name)
	}
	prefix := "/sections/" + name + "/"
	out := map[string]imgui.Vec2{}
	for _, it := range d.a.w.items {
		if it.Kind == "option" || !strings.Contains(it.Path, prefix) {
			continue
		}
		out[it.Path] = imgui.Vec2{X: it.Min.X - head.Min.X, Y: it.Min.Y - head.Min.Y}
	}
	return out
}

// compareLayouts fails the test for each widget shown both before and after the change that moved.
func (d *driver) compareLayouts(change string, before, after map[string]imgui.Vec2) {
	d.t.Helper()
	n := 0
	for p, b := range before {
		a, ok := after[p]
		if !ok || (math.Abs(float64(a.X-b.X)) <= 0.5 && math.Abs(float64(a.Y-b.Y)) <= 0.5) {
			continue
		}
		if n++; n <= 3 {
			d.t.Errorf("%s moved %+.0f, %+.0f px when %s", p, a.X-b.X, a.Y-b.Y, change)
		}
	}
	if n > 3 {
		d.t.Errorf("... and %d more widgets moved when %s", n-3, change)
	}
}

// chooseNth opens the combo and clicks its k-th option, returning that option and how many there
// are.
func (d *driver) chooseNth(combo string, k int) (string, int) {
	d.t.Helper()
	d.click(combo)
	var opts []string
	for _, it := range d.a.w.items {
		if it.Kind == "option" && strings.HasPrefix(it.Path, combo+"/") {
			opts = append(opts, it.Path)
		}
	}
	if k >= len(opts) {
		d.t.Fatalf("combo %s: no option %d of %d", combo, k, len(opts))
	}
	d.click(opts[k])
	return lastPart(opts[k]), len(opts)
}

// checkLayoutRule toggles every checkbox of the section and picks every option of its every combo
// (skip names combos not to touch), each through real clicks, and checks that nothing else in the
// section moved.
func (d *driver) checkLayoutRule(name string, skip ...string) {
	d.t.Helper()
	d.frames(2)
	var toggles []Item
	for _, it := range d.a.w.items {
		if (it.Kind == "checkbox" || it.Kind == "combo") && strings.Contains(it.Path, "/sections/"+name+"/") {
			toggles = append(toggles, it)
		}
	}
	if len(toggles) == 0 {
		d.t.Fatalf("section %s: no checkbox or combo to toggle", name)
	}
	for _, tg := range toggles {
		if !d.has(tg.Path) || slices.Contains(skip, tg.Label) {
			continue
		}
		d.reveal(tg.Path)
		before := d.sectionLayout(name)
		switch tg.Kind {
		case "checkbox": // once: the layouts before and after are the same pair either way
			d.click(tg.Path)
			d.frames(1)
			d.compareLayouts(fmt.Sprintf("%q was clicked", tg.Label), before, d.sectionLayout(name))
		case "combo":
			for k, n := 0, 1; k < n; k++ {
				var o string
				o, n = d.chooseNth(tg.Path, k)
				d.frames(1)
				after := d.sectionLayout(name)
				d.compareLayouts(fmt.Sprintf("%q was set to %q", tg.Label, o), before, after)
				before = after
			}
		}
	}
}

// Every section, a body and the door's hinge inspected and the simulation paused: no checkbox ticked
// and no combo option picked moves another widget of its section. (Each section is checked open
// alone, in a small window without shadows: the frames are cheaper, and what is checked is the
// section's own layout.)
func TestNoWidgetMovesWhenAnotherInItsSectionChanges(t *testing.T) {
	d := drive(t, Options{Scene: "door", Width: 640, Height: 600, NoShadows: true, Open: []string{"inspect"}, Setup: func(a *App) {
		a.panel.joint.selected = 0
		a.S.View(func(w *sim.World) { a.Selected, _ = w.Find("door") })
		a.S.Do(command.Pause(true))
	}})
	for _, name := range []string{"simulation", "spawn", "shoot", "joints", "inspect", "time", "debug", "capture"} {
		for _, s := range sections {
			d.open(s.label, s.name == name)
		}
		d.checkLayoutRule(name)
	}
}

// A ball joint's inspector: its twist limits ticked on and off move nothing.
func TestTheBallJointsInspectorKeepsItsLayout(t *testing.T) {
	d := drive(t, Options{Scene: "stack", Width: 640, Height: 600, NoShadows: true, Open: []string{"joints"}, Setup: func(a *App) {
		a.S.View(func(w *sim.World) { a.panel.joint.a, _ = w.Find("box3") })
		a.panel.joint.typ = 1 // ball
		a.do("joint", command.Join(a.JoinSpec()))
		a.panel.joint.selected = 0
		a.S.Do(command.Pause(true))
	}})
	d.checkLayoutRule("joints")
}

// A heavy preset picked on software GL (Xvfb's llvmpipe) shows its offer where it moves nothing:
// Open, Save and Snapshot stay under the mouse.
func TestTheHeavySceneOfferMovesNothing(t *testing.T) {
	d := drive(t, Options{Scene: "stack", Open: []string{"scene"}})
	if !d.a.softwareGL() {
		t.Skipf("OpenGL here is %s, not drawn by the CPU: no offer", d.a.glRenderer)
	}
	d.reveal("presets/###pile")
	before := d.sectionLayout("scene")
	d.click("presets/###pile")
	d.frames(2)
	if !d.has("scene/Cancel") {
		t.Fatalf("no offer after picking the pile on software GL")
	}
	d.compareLayouts("the pile was picked on software GL", before, d.sectionLayout("scene"))
	d.click("scene/Cancel")
	if d.a.S.Name() != "stack" {
		t.Errorf("the scene is %s after Cancel", d.a.S.Name())
	}
}

// Snapshot moves nothing in the Scene section: Restore is there, greyed, before there is a snapshot
// to restore, so the button after it keeps its place.
func TestTakingASnapshotMovesNothing(t *testing.T) {
	d := drive(t, Options{Scene: "stack", Width: 640, Height: 600, NoShadows: true, Open: []string{"scene"}})
	d.reveal("scene/Snapshot")
	before := d.sectionLayout("scene")
	d.click("scene/Snapshot")
	d.frames(1)
	d.compareLayouts("a snapshot was taken", before, d.sectionLayout("scene"))
	d.click("scene/Restore")
	if d.a.panel.isErr {
		t.Errorf("Restore after Snapshot: %q", d.a.panel.message)
	}
}
