package ui

import (
	"fmt"
	"math"

	"github.com/go-gl/glfw/v3.3/glfw"
	"github.com/go-gl/mathgl/mgl32"
	"github.com/inkyblackness/imgui-go/v4"

	"tumble/sim"
	"tumble/ui/command"
)

// Perturbation in the view, as MuJoCo's simulate does it: Ctrl + left drag on a body pushes it with a
// force at the grabbed point, Ctrl + right drag turns it with a torque (command.Perturb has the
// maths). The force or torque is drawn as an arrow from the grabbed point with its magnitude in N or
// N m; letting go of the button ends it.

// perturbView is the view's side of a perturbation.
type perturbView struct {
	on     bool
	button glfw.MouseButton
	depth  float32 // the grabbed point's distance along the view axis: the target stays at it

	// As of this frame (perturbFrame): the perturbation, the arrow's ends (world) and its label.
	held       bool // the session holds a perturbation
	cur        command.Perturb
	from, to   mgl32.Vec3
	text       string
	arrowShown bool
	screen     [2]imgui.Vec2 // the arrow as drawn: from the grabbed point to the tip, in the view
}

var (
	colPerturb       = [4]float32{1, 0.55, 0.1, 1} // the arrow
	colPerturbSpring = [4]float32{1, 0.85, 0.6, 1} // the grabbed point to the cursor
)

// perturbButton starts a perturbation on Ctrl + left or right press over a dynamic body, and ends it
// when its button is released; it reports whether it took the event.
func (a *App) perturbButton(b glfw.MouseButton, act glfw.Action, mods glfw.ModifierKey) bool {
	t := &a.tools.pert
	if act == glfw.Release {
		if t.on && b == t.button {
			a.S.Do(command.EndPerturb())
			t.on = false
			return true
		}
		return false
	}
	if t.on || mods&glfw.ModControl == 0 || (b != glfw.MouseButtonLeft && b != glfw.MouseButtonRight) || a.panel.joint.mode != 0 {
		return false
	}
	a.pressX, a.pressY = a.mouseX, a.mouseY
	o, d := a.cursorRay()
	hit, ok := a.S.Pick(o, d)
	if !ok {
		return false
	}
	dyn := false
	a.S.View(func(w *sim.World) {
		i, live := w.Index(hit.Body)
		dyn = live && w.Bodies.Type[i] == sim.Dynamic
	})
	if !dyn {
		return false
	}
	mode := command.PerturbForce
	if b == glfw.MouseButtonRight {
		mode = command.PerturbTorque
	}
	a.Selected = hit.Body
	fwd := a.Cam.Target.Sub(a.Cam.Eye()).Normalize()
	t.on, t.button, t.depth = true, b, hit.Point.Sub(a.Cam.Eye()).Dot(fwd)
	a.S.Do(command.StartPerturb(hit.Body, hit.Point, a.Cam.Eye().Sub(hit.Point), mode))
	return true
}

// perturbMove moves the perturbation's target under the cursor, at the grabbed point's depth; it
// reports whether a perturbation is held.
func (a *App) perturbMove() bool {
	t := &a.tools.pert
	if !t.on {
		return false
	}
	o, d := a.cursorRay()
	fwd := a.Cam.Target.Sub(a.Cam.Eye()).Normalize()
	a.S.SetPerturbTarget(o.Add(d.Mul(t.depth / max(d.Dot(fwd), 1e-3))))
	return true
}

// perturbFrame reads the perturbation for this frame and places its arrow (under the session's lock,
// in w): a force from the grabbed point along the force, a torque along its axis, each as long as the
// share of its cap it uses (0.25 m to 2.25 m).
func (a *App) perturbFrame(w *sim.World, p command.Perturb, ok bool) {
	t := &a.tools.pert
	t.cur, t.held, t.arrowShown = p, ok, false
	if !ok {
		return
	}
	i, live := w.Index(p.Body)
	if !live { // removed while held: the next step lets go
		t.held = false
		return
	}
	b := &w.Bodies
	t.from = b.Position[i].Add(b.Rotation[i].Rotate(p.Local))
	vec := p.Force
	limit := b.Mass[i] * command.PerturbMaxAccel
	if p.Mode == command.PerturbTorque {
		vec = p.Torque
		if l := p.Torque.Len(); l > 0 {
			limit = b.InvInertiaWorld[i].Inv().Mul3x1(p.Torque.Mul(command.PerturbMaxAngAccel / l)).Len()
		}
	}
	mag := vec.Len()
	switch {
	case !p.Applied:
		t.text = "held: applied from the next step"
	case p.Mode == command.PerturbTorque:
		t.text = fmt.Sprintf("torque %.4g N m", mag)
	default:
		t.text = fmt.Sprintf("force %.4g N", mag)
	}
	if mag == 0 || limit <= 0 {
		t.to = t.from
		return
	}
	t.to = t.from.Add(vec.Mul((0.25 + 2*min(mag/limit, 1)) / mag))
	t.arrowShown = true
}

// perturbOverlay draws the held perturbation over the view, with no depth test so that a body never
// hides it (an arrow along a face is otherwise lost in it): a dot at the grabbed point, a thin line from
// it to the cursor's target (a force's spring), the arrow, 3 px wide, with its head (a torque's two
// heads) and its magnitude at its tip.
func (a *App) perturbOverlay(dl imgui.DrawList, vw, vh float32) {
	t := &a.tools.pert
	t.screen = [2]imgui.Vec2{}
	if !t.held {
		return
	}
	x0, y0, ok := a.Cam.Project(t.from, vw, vh)
	if !ok {
		return
	}
	p0 := imgui.Vec2{X: x0, Y: y0}
	col := imgui.PackedColorFromVec4(imgui.Vec4{X: colPerturb[0], Y: colPerturb[1], Z: colPerturb[2], W: 1})
	if t.cur.Mode == command.PerturbForce {
		if x, y, ok := a.Cam.Project(t.cur.Target, vw, vh); ok {
			dl.AddLineV(p0, imgui.Vec2{X: x, Y: y}, imgui.PackedColorFromVec4(imgui.Vec4{X: colPerturbSpring[0],
				Y: colPerturbSpring[1], Z: colPerturbSpring[2], W: 0.8}), 1.5)
		}
	}
	dl.AddCircleFilled(p0, 4, col)
	p1 := p0
	if x, y, ok := a.Cam.Project(t.to, vw, vh); ok && t.arrowShown {
		p1 = imgui.Vec2{X: x, Y: y}
		dx, dy := p1.X-p0.X, p1.Y-p0.Y
		if l := float32(math.Hypot(float64(dx), float64(dy))); l > 1 {
			ux, uy := dx/l, dy/l
			h := min(14, 0.5*l)
			dl.AddLineV(p0, p1, col, 3)
			head := func(tip imgui.Vec2) {
				bx, by := tip.X-ux*h, tip.Y-uy*h
				dl.AddTriangleFilled(tip, imgui.Vec2{X: bx - uy*h/2, Y: by + ux*h/2}, imgui.Vec2{X: bx + uy*h/2, Y: by - ux*h/2}, col)
			}
			head(p1)
			if t.cur.Mode == command.PerturbTorque { // a torque's double head
				head(imgui.Vec2{X: p1.X - ux*h*0.7, Y: p1.Y - uy*h*0.7})
			}
		}
	}
	t.screen = [2]imgui.Vec2{p0, p1}
	viewText(dl, p1.X+8, p1.Y-8, t.text, imgui.Vec4{X: 1, Y: 0.75, Z: 0.4, W: 1})
}

// viewText draws text in the 3D view with a dark shadow, readable over any colour.
func viewText(dl imgui.DrawList, x, y float32, s string, col imgui.Vec4) {
	dl.AddText(imgui.Vec2{X: x + 1, Y: y + 1}, imgui.PackedColorFromVec4(imgui.Vec4{W: 0.85}), s)
	dl.AddText(imgui.Vec2{X: x, Y: y}, imgui.PackedColorFromVec4(col), s)
}
