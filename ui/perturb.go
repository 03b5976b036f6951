package ui

import (
	"fmt"

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
	if !live {
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

// perturbLines draws the held perturbation: a line from the grabbed point to the cursor's target
// (a force's spring) and the arrow with its head.
func (a *App) perturbLines() {
	t := &a.tools.pert
	if !t.held {
		return
	}
	f := &a.frame
	if t.cur.Mode == command.PerturbForce {
		f.Line(t.from, t.cur.Target, colPerturbSpring)
	}
	if !t.arrowShown {
		return
	}
	f.Line(t.from, t.to, colPerturb)
	dir := t.to.Sub(t.from)
	l := dir.Len()
	dir = dir.Mul(1 / l)
	side := dir.Cross(a.Cam.Eye().Sub(t.to))
	if side.Len() < 1e-6 {
		side = dir.Cross(mgl32.Vec3{0, 1, 0})
	}
	side = side.Normalize()
	h := min(0.2, 0.4*l)
	back := t.to.Sub(dir.Mul(h))
	f.Line(t.to, back.Add(side.Mul(0.5*h)), colPerturb)
	f.Line(t.to, back.Sub(side.Mul(0.5*h)), colPerturb)
	if t.cur.Mode == command.PerturbTorque { // a second head: a torque's double arrow
		back2 := back.Sub(dir.Mul(h * 0.6))
		f.Line(back, back2.Add(side.Mul(0.5*h)), colPerturb)
		f.Line(back, back2.Sub(side.Mul(0.5*h)), colPerturb)
	}
}

// perturbLabel writes the magnitude at the arrow's tip, in the view.
func (a *App) perturbLabel(dl imgui.DrawList, vw, vh float32) {
	t := &a.tools.pert
	if !t.held {
		return
	}
	x, y, ok := a.Cam.Project(t.to, vw, vh)
	if !ok {
		return
	}
	viewText(dl, x+8, y-8, t.text, imgui.Vec4{X: 1, Y: 0.75, Z: 0.4, W: 1})
}

// viewText draws text in the 3D view with a dark shadow, readable over any colour.
func viewText(dl imgui.DrawList, x, y float32, s string, col imgui.Vec4) {
	dl.AddText(imgui.Vec2{X: x + 1, Y: y + 1}, imgui.PackedColorFromVec4(imgui.Vec4{W: 0.85}), s)
	dl.AddText(imgui.Vec2{X: x, Y: y}, imgui.PackedColorFromVec4(col), s)
}
