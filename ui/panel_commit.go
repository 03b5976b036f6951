package ui

import (
	"slices"
	"strings"

	"github.com/inkyblackness/imgui-go/v4"

	"tumble/sim"
	"tumble/ui/command"
)

// Fields that commit: a number whose partial value does harm (a break force of 2 N while "20000" is
// being typed breaks the joint; a mass of 0.0 on the way to 0.05; a spring of 1 N/m on the way to 1e6)
// is applied once, when the user is done with the field: Enter, a click elsewhere (focus lost) or the
// mouse let go after a drag. While the field is held, it shows and edits the user's own copy, not the
// live value, and nothing reaches the simulation; Escape puts the value back as it was.

// commitState is the copies of the fields being edited, by key (the field's ID path and the thing it
// edits), and the joint the Joints inspector follows.
type commitState struct {
	held map[string]*heldField
	// jointID is the inspected joint's ID (sim.JointFrame.ID) as of jointAt, its index then: the
	// inspector follows the joint, not the row, when joints before it are removed or break.
	jointID   uint64
	jointAt   int
	following bool // jointID and jointAt are set
}

// heldField is a field the user holds: the value when it was taken, the user's copy, and how to apply
// it.
type heldField struct {
	live, v []float32
	apply   func(v []float32)
	seen    bool // drawn this frame
}

// commitKey is the key of the field label in the current ID scope, editing the thing named by of.
func (a *App) commitKey(label, of string) string {
	return strings.Join(a.w.stack, "/") + "/" + idPart(label) + "@" + of
}

// held runs draw on the user's copy of the field's values while the field is held, on live
// otherwise, and calls apply with the copy on the frame the user lets go of the field after changing
// it (see commitVanished for a field that goes away while held).
func (a *App) held(key string, live []float32, draw func(v []float32), apply func(v []float32)) {
	c := &a.panel.commit
	if c.held == nil {
		c.held = map[string]*heldField{}
	}
	v := append([]float32(nil), live...)
	h := c.held[key]
	if h != nil && len(h.v) == len(v) {
		copy(v, h.v)
	}
	draw(v)
	if imgui.IsItemActive() {
		if h == nil {
			h = &heldField{live: append([]float32(nil), live...)}
			c.held[key] = h
		}
		h.v, h.apply, h.seen = v, apply, true
		return
	}
	delete(c.held, key)
	if imgui.IsItemDeactivatedAfterEdit() && !slices.Equal(v, live) {
		apply(v)
	}
}

// commitVanished applies the copy of a field that was held and is no longer drawn: the user typed a
// mass and clicked in the view, which selected another body (or none) and took the field away. A
// copy left unchanged is dropped. Called once a frame, after the panel.
func (a *App) commitVanished() {
	for key, h := range a.panel.commit.held {
		if h.seen {
			h.seen = false
			continue
		}
		delete(a.panel.commit.held, key)
		if !slices.Equal(h.v, h.live) {
			h.apply(h.v)
		}
	}
}

// commitDrag is dragFloat that applies on Enter, focus loss or release (see held); of names what it
// edits (a body, a joint), so that a field held over a change of selection keeps its copy to its own.
func (a *App) commitDrag(label, of string, live, speed, lo, hi float32, format string, apply func(float32)) {
	a.held(a.commitKey(label, of), []float32{live}, func(v []float32) {
		a.w.dragFloat(label, &v[0], speed, lo, hi, format)
	}, func(v []float32) { apply(v[0]) })
}

// commitDrag2 is dragFloat2 that applies on Enter, focus loss or release.
func (a *App) commitDrag2(label, of string, live [2]float32, speed, lo, hi float32, format string, apply func([2]float32)) {
	a.held(a.commitKey(label, of), live[:], func(v []float32) {
		a.w.dragFloat2(label, (*[2]float32)(v), speed, lo, hi, format)
	}, func(v []float32) { apply([2]float32(v)) })
}

// commitDrag3 is dragFloat3 that applies on Enter, focus loss or release.
func (a *App) commitDrag3(label, of string, live [3]float32, speed, lo, hi float32, format string, apply func([3]float32)) {
	a.held(a.commitKey(label, of), live[:], func(v []float32) {
		a.w.dragFloat3(label, (*[3]float32)(v), speed, lo, hi, format)
	}, func(v []float32) { apply([3]float32(v)) })
}

// commitSlider is sliderFloatV that applies on Enter, focus loss or release.
func (a *App) commitSlider(label, of string, live, lo, hi float32, format string, flags imgui.SliderFlags, apply func(float32)) {
	a.held(a.commitKey(label, of), []float32{live}, func(v []float32) {
		a.w.sliderFloatV(label, &v[0], lo, hi, format, flags)
	}, func(v []float32) { apply(v[0]) })
}

// commitSliderInt is sliderInt that applies on Enter, focus loss or release.
func (a *App) commitSliderInt(label, of string, live, lo, hi int32, apply func(int32)) {
	a.held(a.commitKey(label, of), []float32{float32(live)}, func(v []float32) {
		n := int32(v[0])
		a.w.sliderInt(label, &n, lo, hi)
		v[0] = float32(n)
	}, func(v []float32) { apply(int32(v[0])) })
}

// editJointID applies e to the joint with the ID (sim.JointFrame.ID) wherever it now is in the list;
// a joint that is gone (broken, deleted) takes nothing.
func (a *App) editJointID(id uint64, what string, e command.JointEdit) {
	k := -1
	a.S.View(func(w *sim.World) {
		for i := range w.NumJoints() {
			if w.JointFrame(i).ID == id {
				k = i
			}
		}
	})
	if k < 0 {
		p := &a.panel
		p.message, p.isErr = what+": the joint is gone (broken or deleted)", true
		return
	}
	a.do(what, command.EditJoint(k, e))
}

// followJoint keeps the Joints inspector on the joint the user picked while the list changes under
// it: a joint before it removed (deleted, or broken by its force) moves it up a row, and the
// inspector's index with it; a joint that is gone closes the inspector rather than show the joint
// that took its row (its fields' copies, kept by joint ID, then apply to nothing: editJointID).
func (a *App) followJoint(w *sim.World) {
	f := &a.panel.joint
	c := &a.panel.commit
	if f.selected >= 0 && c.following && f.selected == c.jointAt {
		// The row the inspector followed: is its joint still there?
		if f.selected < w.NumJoints() && w.JointFrame(f.selected).ID == c.jointID {
			return
		}
		f.selected = -1
		for k := range w.NumJoints() {
			if w.JointFrame(k).ID == c.jointID {
				f.selected = k
			}
		}
		c.jointAt = f.selected
		return
	}
	// Picked by the user (a row clicked, a joint made) or cleared: follow that one.
	if f.selected >= w.NumJoints() {
		f.selected = -1
	}
	c.jointAt, c.following = f.selected, f.selected >= 0
	if c.following {
		c.jointID = w.JointFrame(f.selected).ID
	}
}
