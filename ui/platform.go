package ui

import (
	"math"

	"github.com/go-gl/glfw/v3.3/glfw"
	"github.com/inkyblackness/imgui-go/v4"

	"tumble/sim"
	"tumble/ui/command"
)

// keyMap is ImGui's keys as GLFW's key codes (the input queue speaks GLFW's, also under EGL).
var keyMap = map[int]glfw.Key{
	imgui.KeyTab: glfw.KeyTab, imgui.KeyLeftArrow: glfw.KeyLeft, imgui.KeyRightArrow: glfw.KeyRight,
	imgui.KeyUpArrow: glfw.KeyUp, imgui.KeyDownArrow: glfw.KeyDown, imgui.KeyPageUp: glfw.KeyPageUp,
	imgui.KeyPageDown: glfw.KeyPageDown, imgui.KeyHome: glfw.KeyHome, imgui.KeyEnd: glfw.KeyEnd,
	imgui.KeyInsert: glfw.KeyInsert, imgui.KeyDelete: glfw.KeyDelete, imgui.KeyBackspace: glfw.KeyBackspace,
	imgui.KeySpace: glfw.KeySpace, imgui.KeyEnter: glfw.KeyEnter, imgui.KeyEscape: glfw.KeyEscape,
	imgui.KeyKeyPadEnter: glfw.KeyKPEnter, imgui.KeyA: glfw.KeyA, imgui.KeyC: glfw.KeyC, imgui.KeyV: glfw.KeyV, imgui.KeyX: glfw.KeyX,
	imgui.KeyY: glfw.KeyY, imgui.KeyZ: glfw.KeyZ,
}

// platformSetup is the GLFW side of Dear ImGui: it maps keys and routes GLFW's mouse, wheel, key and
// character callbacks into the input queue (see input), which the next frame hands to ImGui and, for
// what ImGui does not want, to the 3D view's bindings.
func (a *App) platformSetup(io imgui.IO) {
	for k, g := range keyMap {
		io.KeyMap(k, int(g))
	}
	w := a.win
	w.SetCursorPosCallback(func(_ *glfw.Window, x, y float64) { a.onCursorPos(x, y) })
	w.SetMouseButtonCallback(func(_ *glfw.Window, b glfw.MouseButton, act glfw.Action, mods glfw.ModifierKey) {
		a.onMouseButton(b, act, mods)
	})
	w.SetScrollCallback(func(_ *glfw.Window, dx, dy float64) { a.onScroll(dx, dy) })
	w.SetCharCallback(func(_ *glfw.Window, r rune) { a.onChar(r) })
	w.SetDropCallback(func(_ *glfw.Window, names []string) { a.onDrop(names) })
	w.SetKeyCallback(func(_ *glfw.Window, k glfw.Key, _ int, act glfw.Action, mods glfw.ModifierKey) {
		a.onKey(k, act, mods)
	})
}

// The GLFW callbacks (and the real-input tests, which call these same functions) only queue events.

func (a *App) onCursorPos(x, y float64) { a.in.add(inputEvent{kind: evMove, x: x, y: y}) }

func (a *App) onMouseButton(b glfw.MouseButton, act glfw.Action, mods glfw.ModifierKey) {
	a.in.add(inputEvent{kind: evButton, button: b, act: act, mods: mods})
}

func (a *App) onScroll(dx, dy float64) { a.in.add(inputEvent{kind: evScroll, x: dx, y: dy}) }

func (a *App) onChar(r rune) { a.in.add(inputEvent{kind: evChar, r: r}) }

func (a *App) onKey(k glfw.Key, act glfw.Action, mods glfw.ModifierKey) {
	if act == glfw.Repeat {
		act = glfw.Press // a held key types again
	}
	a.in.add(inputEvent{kind: evKey, key: k, act: act, mods: mods})
}

// feedInput hands the queued events to ImGui and the 3D view at the start of a frame. Dear ImGui 1.85
// reads the mouse buttons and keys as a state per frame, so a press and its release within one frame
// would be lost, and a press right after a move would be judged by where the mouse was last frame. So
// events trickle: a frame takes events in order until one that must wait for the next frame (a second
// change of a button or of the same key, a press after a move, or a modifier's change after a key's
// press), and the rest stay queued. ImGui reads Ctrl, Shift, Alt and Super once per frame too: X
// delivers a quick Ctrl+A as Ctrl down, A down, Ctrl up, A up, and a frame that took A's press and
// Ctrl's release together would see a plain A.
func (a *App) feedInput(io imgui.IO) {
	evs := a.in.take()
	moved, buttoned, keyPressed := false, false, false
	var keysChanged map[glfw.Key]bool
	n := 0
	for ; n < len(evs); n++ {
		e := evs[n]
		stop := false
		switch e.kind {
		case evMove:
			stop = buttoned
		case evButton:
			stop = buttoned || (moved && e.act == glfw.Press)
		case evKey:
			stop = keysChanged[e.key] || keyPressed && isModifier(e.key)
		}
		if stop {
			break
		}
		switch e.kind {
		case evMove:
			moved = true
			dx, dy := e.x-a.mouseX, e.y-a.mouseY
			a.mouseX, a.mouseY = e.x, e.y
			io.SetMousePosition(imgui.Vec2{X: float32(e.x), Y: float32(e.y)})
			a.hoverMoved = true
			a.mouseMoved(dx, dy)
		case evButton:
			buttoned = true
			if e.button < 3 {
				io.SetMouseButtonDown(int(e.button), e.act == glfw.Press)
			}
			if e.act == glfw.Press && a.overUI(io) {
				continue
			}
			a.mouseButton(e.button, e.act, e.mods)
		case evScroll:
			io.AddMouseWheelDelta(float32(e.x), float32(e.y))
			if !a.overUI(io) {
				a.zoomAt(float32(math.Pow(0.9, e.y)))
			}
		case evChar:
			io.AddInputCharacters(string(e.r))
		case evKey:
			if keysChanged == nil {
				keysChanged = map[glfw.Key]bool{}
			}
			keysChanged[e.key] = true
			keyPressed = keyPressed || e.act == glfw.Press && !isModifier(e.key)
			if e.act == glfw.Press {
				io.KeyPress(int(e.key))
			} else {
				io.KeyRelease(int(e.key))
			}
			io.KeyCtrl(int(glfw.KeyLeftControl), int(glfw.KeyRightControl))
			io.KeyShift(int(glfw.KeyLeftShift), int(glfw.KeyRightShift))
			io.KeyAlt(int(glfw.KeyLeftAlt), int(glfw.KeyRightAlt))
			io.KeySuper(int(glfw.KeyLeftSuper), int(glfw.KeyRightSuper))
			if e.act == glfw.Press && !io.WantCaptureKeyboard() {
				a.keyWithMods(e.key, e.mods)
			}
		}
	}
	a.in.putBack(evs[n:])
}

// isModifier reports whether k is one of the Ctrl, Shift, Alt or Super keys.
func isModifier(k glfw.Key) bool {
	switch k {
	case glfw.KeyLeftControl, glfw.KeyRightControl, glfw.KeyLeftShift, glfw.KeyRightShift,
		glfw.KeyLeftAlt, glfw.KeyRightAlt, glfw.KeyLeftSuper, glfw.KeyRightSuper:
		return true
	}
	return false
}

// overUI reports whether the mouse is over the panel or another ImGui window, or ImGui holds it (a
// widget being dragged): then the 3D view leaves the event alone.
func (a *App) overUI(io imgui.IO) bool { return io.WantCaptureMouse() }

// Shortcuts are the keyboard bindings, in the order the F1 overlay lists them.
var Shortcuts = [][2]string{
	{"Left click", "select a body (ray cast); in joint mode, pick body A, then B"},
	{"Left drag on a body", "drag it with a soft mouse joint (capped force)"},
	{"Ctrl + left drag on a body", "push it with a force at the grabbed point (arrow, N)"},
	{"Ctrl + right drag on a body", "turn it with a torque (arrow, N m)"},
	{"Right drag / Left drag on empty space", "orbit the camera"},
	{"Middle drag / Shift + right drag", "pan"},
	{"Wheel", "zoom towards the point under the cursor"},
	{"Space", "pause / play"},
	{"N", "single step (pauses)"},
	{", / .", "step back / forward through the recorded steps (pauses; Time section)"},
	{"R", "reset the scene"},
	{"Shift + R", "reload the scene file from disk"},
	{"Drop a file on the window", "open it: a scene file, or a replay"},
	{"Delete", "remove the selected body"},
	{"B", "shoot (Shoot section: shape, size, mass, speed) through the cursor"},
	{"Tab", "hide / show the panel"},
	{"F", "frame all (far bodies left out; F again takes them in)"},
	{"Home", "reset the view: the starting direction, framing all"},
	{"C", "follow the selected body (toggle)"},
	{"W", "wireframe (toggle)"},
	{"Escape", "clear the selection, leave joint mode"},
	{"F1", "this help"},
	{"F12", "screenshot (Capture section: folder, video)"},
	{"P", "place the probe's origin where the cursor points (Debug draw: probe)"},
}

// Key runs a key's binding (the 3D view's keys; ImGui gets them first when it wants the keyboard).
func (a *App) Key(k glfw.Key) {
	switch k {
	case glfw.KeySpace:
		a.S.Do(command.TogglePause())
	case glfw.KeyN:
		a.S.Do(command.StepOnce())
	case glfw.KeyComma:
		a.timeErr("step back", a.S.StepBack())
	case glfw.KeyPeriod:
		a.timeErr("step forward", a.S.StepForward())
	case glfw.KeyR:
		a.reset()
	case glfw.KeyTab:
		a.PanelHidden = !a.PanelHidden
	case glfw.KeyDelete:
		if a.Selected != (sim.Handle{}) {
			a.S.Do(command.RemoveBody(a.Selected))
			a.Selected = sim.Handle{}
		}
	case glfw.KeyB:
		a.Shoot()
	case glfw.KeyF:
		a.frameAll()
	case glfw.KeyHome:
		a.resetView()
	case glfw.KeyC:
		a.Follow, a.followByScene = !a.Follow, false
	case glfw.KeyW:
		a.Wireframe = !a.Wireframe
	case glfw.KeyEscape:
		a.Selected = sim.Handle{}
		a.panel.joint.mode = 0
	case glfw.KeyF1:
		a.ShowHelp = !a.ShowHelp
	case glfw.KeyF12:
		a.Screenshot()
	case glfw.KeyP:
		a.placeProbeOrigin()
	}
}

// Shoot fires the Shoot section's body from the eye through the cursor (the B key).
func (a *App) Shoot() {
	o, d := a.cursorRay()
	a.do("shoot", command.Shoot(o.Add(d.Mul(1)), d, a.ShotSpec()))
}

// shootAtCentre fires the Shoot section's body from the eye through the middle of the view.
func (a *App) shootAtCentre() {
	vw, vh := a.viewport()
	o, d := a.Cam.Ray(vw/2, vh/2, vw, vh)
	a.do("shoot", command.Shoot(o.Add(d.Mul(1)), d, a.ShotSpec()))
}

func (a *App) mouseButton(b glfw.MouseButton, act glfw.Action, mods glfw.ModifierKey) {
	if a.perturbButton(b, act, mods) {
		return
	}
	switch {
	case b == glfw.MouseButtonLeft && act == glfw.Press:
		a.pressX, a.pressY = a.mouseX, a.mouseY
		o, d := a.cursorRay()
		hit, ok := a.S.Pick(o, d)
		if a.panel.joint.mode != 0 {
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
	if a.perturbMove() {
		return
	}
	switch {
	case a.dragging:
		// The target stays at the grabbed point's depth along the view axis, under the cursor.
		o, d := a.cursorRay()
		fwd := a.Cam.Target.Sub(a.Cam.Eye()).Normalize()
		t := a.dragDepth / max(d.Dot(fwd), 1e-3)
		a.S.SetDragTarget(o.Add(d.Mul(t)))
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
	f := &a.panel.joint
	if f.mode == 1 {
		f.a, f.pickA = hit.Body, hit.Point
		f.mode = 2
		return
	}
	if hit.Body != f.a {
		f.b, f.pickB = hit.Body, hit.Point
		f.mode = 0
	}
}
