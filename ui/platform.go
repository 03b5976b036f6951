package ui

import (
	"math"

	"github.com/go-gl/glfw/v3.3/glfw"
	"github.com/inkyblackness/imgui-go/v4"

	"tumble/sim"
	"tumble/ui/command"
)

// platformSetup is the GLFW side of Dear ImGui: it maps keys and forwards mouse, wheel, key and
// character events to ImGui, and those ImGui does not want to the 3D view's bindings.
func (a *App) platformSetup(io imgui.IO) {
	keys := map[int]glfw.Key{
		imgui.KeyTab: glfw.KeyTab, imgui.KeyLeftArrow: glfw.KeyLeft, imgui.KeyRightArrow: glfw.KeyRight,
		imgui.KeyUpArrow: glfw.KeyUp, imgui.KeyDownArrow: glfw.KeyDown, imgui.KeyPageUp: glfw.KeyPageUp,
		imgui.KeyPageDown: glfw.KeyPageDown, imgui.KeyHome: glfw.KeyHome, imgui.KeyEnd: glfw.KeyEnd,
		imgui.KeyInsert: glfw.KeyInsert, imgui.KeyDelete: glfw.KeyDelete, imgui.KeyBackspace: glfw.KeyBackspace,
		imgui.KeySpace: glfw.KeySpace, imgui.KeyEnter: glfw.KeyEnter, imgui.KeyEscape: glfw.KeyEscape,
		imgui.KeyA: glfw.KeyA, imgui.KeyC: glfw.KeyC, imgui.KeyV: glfw.KeyV, imgui.KeyX: glfw.KeyX,
		imgui.KeyY: glfw.KeyY, imgui.KeyZ: glfw.KeyZ,
	}
	for k, g := range keys {
		io.KeyMap(k, int(g))
	}
	w := a.win
	w.SetCursorPosCallback(func(_ *glfw.Window, x, y float64) {
		dx, dy := x-a.mouseX, y-a.mouseY
		a.mouseX, a.mouseY = x, y
		io.SetMousePosition(imgui.Vec2{X: float32(x), Y: float32(y)})
		a.mouseMoved(dx, dy)
	})
	w.SetMouseButtonCallback(func(_ *glfw.Window, b glfw.MouseButton, act glfw.Action, mods glfw.ModifierKey) {
		if b < 3 {
			io.SetMouseButtonDown(int(b), act == glfw.Press)
		}
		if act == glfw.Press && io.WantCaptureMouse() {
			return
		}
		a.mouseButton(b, act, mods)
	})
	w.SetScrollCallback(func(_ *glfw.Window, dx, dy float64) {
		io.AddMouseWheelDelta(float32(dx), float32(dy))
		if !io.WantCaptureMouse() {
			a.Cam.Zoom(float32(math.Pow(0.9, dy)))
		}
	})
	w.SetCharCallback(func(_ *glfw.Window, r rune) { io.AddInputCharacters(string(r)) })
	w.SetKeyCallback(func(_ *glfw.Window, k glfw.Key, _ int, act glfw.Action, mods glfw.ModifierKey) {
		if act == glfw.Press {
			io.KeyPress(int(k))
		}
		if act == glfw.Release {
			io.KeyRelease(int(k))
		}
		io.KeyCtrl(int(glfw.KeyLeftControl), int(glfw.KeyRightControl))
		io.KeyShift(int(glfw.KeyLeftShift), int(glfw.KeyRightShift))
		io.KeyAlt(int(glfw.KeyLeftAlt), int(glfw.KeyRightAlt))
		io.KeySuper(int(glfw.KeyLeftSuper), int(glfw.KeyRightSuper))
		if act == glfw.Press && !io.WantCaptureKeyboard() {
			a.Key(k)
		}
	})
}

// Shortcuts are the keyboard bindings, in the order the F1 overlay lists them.
var Shortcuts = [][2]string{
	{"Left click", "select a body (ray cast); in joint mode, pick body A, then B"},
	{"Left drag on a body", "drag it with a soft mouse joint (capped force)"},
	{"Right drag / Left drag on empty space", "orbit the camera"},
	{"Middle drag / Shift + right drag", "pan"},
	{"Wheel", "zoom"},
	{"Space", "pause / play"},
	{"N", "single step (pauses)"},
	{"R", "reset the scene"},
	{"Delete", "remove the selected body"},
	{"B", "shoot a ball from the camera"},
	{"F", "frame all"},
	{"C", "follow the selected body (toggle)"},
	{"W", "wireframe (toggle)"},
	{"Escape", "clear the selection, leave joint mode"},
	{"F1", "this help"},
}

// Key runs a key's binding (the 3D view's keys; ImGui gets them first when it wants the keyboard).
func (a *App) Key(k glfw.Key) {
	switch k {
	case glfw.KeySpace:
		a.S.Do(command.TogglePause())
	case glfw.KeyN:
		a.S.Do(command.StepOnce())
	case glfw.KeyR:
		a.S.Do(command.Reset())
		a.Selected = sim.Handle{}
	case glfw.KeyDelete:
		if a.Selected != (sim.Handle{}) {
			a.S.Do(command.RemoveBody(a.Selected))
			a.Selected = sim.Handle{}
		}
	case glfw.KeyB:
		a.Shoot()
	case glfw.KeyF:
		a.frameAll()
	case glfw.KeyC:
		a.Follow = !a.Follow
	case glfw.KeyW:
		a.Wireframe = !a.Wireframe
	case glfw.KeyEscape:
		a.Selected = sim.Handle{}
		a.panel.jointMode = 0
	case glfw.KeyF1:
		a.ShowHelp = !a.ShowHelp
	}
}

// Shoot fires a ball from the eye through the cursor.
func (a *App) Shoot() {
	o, d := a.cursorRay()
	a.S.Do(command.Shoot(o.Add(d.Mul(1)), d, command.DefaultShot()))
}

func (a *App) mouseButton(b glfw.MouseButton, act glfw.Action, mods glfw.ModifierKey) {
	switch {
	case b == glfw.MouseButtonLeft && act == glfw.Press:
		a.pressX, a.pressY = a.mouseX, a.mouseY
		o, d := a.cursorRay()
		hit, ok := a.S.Pick(o, d)
		if a.panel.jointMode != 0 {
			a.jointPick(hit, ok)
			return
		}
		if ok {
			a.Selected = hit.Body
			dyn := false
			a.S.View(func(w *sim.World) {
				i, live := w.Index(hit.Body)
				dyn = live && w.Bodies.Type[i] == sim.Dynamic
			})
			if dyn {
				a.dragging = true
				fwd := a.Cam.Target.Sub(a.Cam.Eye()).Normalize()
				a.dragDepth = hit.Point.Sub(a.Cam.Eye()).Dot(fwd)
				a.S.Do(command.StartDrag(hit.Body, hit.Point))
				return
			}
		} else {
			a.Selected = sim.Handle{}
		}
		a.orbiting = true
	case b == glfw.MouseButtonLeft && act == glfw.Release:
		if a.dragging {
			a.S.Do(command.EndDrag())
		}
		a.dragging, a.orbiting = false, false
	case b == glfw.MouseButtonRight && act == glfw.Press:
		if mods&glfw.ModShift != 0 {
			a.panning = true
		} else {
			a.orbiting = true
		}
	case b == glfw.MouseButtonMiddle && act == glfw.Press:
		a.panning = true
	case act == glfw.Release:
		a.orbiting, a.panning = false, false
	}
}

func (a *App) mouseMoved(dx, dy float64) {
	_, h := a.viewport()
	switch {
	case a.dragging:
		// The target stays at the grabbed point's depth along the view axis, under the cursor.
		o, d := a.cursorRay()
		fwd := a.Cam.Target.Sub(a.Cam.Eye()).Normalize()
		t := a.dragDepth / max(d.Dot(fwd), 1e-3)
		a.S.Do(command.MoveDrag(o.Add(d.Mul(t))))
	case a.orbiting:
		a.Cam.Orbit(-float32(dx)*0.006, float32(dy)*0.006)
	case a.panning:
		a.Cam.Pan(float32(dx)/h, float32(dy)/h)
	}
}

// jointPick takes a click in joint mode: body A first, then body B.
func (a *App) jointPick(hit command.Hit, ok bool) {
	if !ok {
		return
	}
	p := &a.panel
	if p.jointMode == 1 {
		p.jointA, p.pickA = hit.Body, hit.Point
		p.jointMode = 2
		return
	}
	if hit.Body != p.jointA {
		p.jointB, p.pickB = hit.Body, hit.Point
		p.jointMode = 0
	}
}
