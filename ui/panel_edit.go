package ui

import (
	"fmt"

	"github.com/inkyblackness/imgui-go/v4"

	"tumble/render/instance"
	"tumble/sim"
	"tumble/sim/geom"
	"tumble/ui/command"
)

var jointTypes = []sim.JointType{sim.Hinge, sim.Ball, sim.Piston, sim.Fixed}

// bodyName is a body's name, or "(none)", or "world" for the zero handle when world is set.
func (a *App) bodyName(h sim.Handle, world bool) string {
	if world && h == (sim.Handle{}) {
		return "world"
	}
	n := "(none)"
	a.S.Peek(func(w *sim.World) { // names are the host's: no read-back
		if i, ok := w.Index(h); ok {
			n = w.Bodies.Name[i]
		}
	})
	return n
}

func (a *App) jointsSection() {
	g := &a.w
	f := &a.panel.joint
	switch f.mode {
	case 1:
		imgui.Text("click body A in the view...")
	case 2:
		imgui.Text("click body B in the view (or B = world)...")
	default:
		imgui.Text("new joint:")
	}
	if g.button("Pick A then B") {
		f.mode, f.a, f.b = 1, sim.Handle{}, sim.Handle{}
	}
	g.sameLine("button", "B = world")
	if g.button("B = world") {
		f.b, f.mode = sim.Handle{}, 0
	}
	imgui.Textf("A: %s   B: %s", a.bodyName(f.a, false), a.bodyName(f.b, true))
	g.combo("type", &f.typ, []string{"hinge", "ball", "piston", "fixed"})
	g.combo("anchor", &f.anchor, []string{"clicked point", "midpoint"})
	g.combo("axis", &f.axis, []string{"x", "y", "z"})
	g.sameLine("checkbox", "in A's frame")
	g.checkbox("in A's frame", &f.axisLocal)
	g.checkbox("limits", &f.useLimits)
	u := unitOf(jointTypes[f.typ])
	if f.useLimits { // kept in radians or metres, shown and typed in u's unit
		lim := [2]float32{f.limits[0] * u.scale, f.limits[1] * u.scale}
		if g.dragFloat2(u.limits, &lim, 0.01*u.scale, -10*u.scale, 10*u.scale, "%.2f") {
			f.limits = [2]float32{lim[0] / u.scale, lim[1] / u.scale}
		}
	} else {
		keepLine("no limits")
	}
	g.checkbox("motor", &f.useMotor)
	g.sameLine("checkbox", "servo")
	g.checkbox("servo", &f.servo)
	tip("a servo drives the joint to a target angle or travel (at most the max speed, 0: no limit); otherwise the motor drives it at a speed")
	switch {
	case f.useMotor && f.servo:
		m := [3]float32{f.target * u.scale, f.motor[0] * u.scale, f.motor[1]}
		if g.dragFloat3(u.servo, &m, 0.05*u.scale, -u.targetMax, 1000, "%.2f") {
			if sm, ok := u.servoOf(m); ok {
				f.target, f.motor = sm.Target, [2]float32{sm.Speed, sm.MaxForce}
			}
		}
		tip(servoTip)
	case f.useMotor:
		m := [2]float32{f.motor[0] * u.scale, f.motor[1]}
		if g.dragFloat2(u.motor, &m, 0.05*u.scale, -100*u.scale, 1000, "%.2f") {
			f.motor = [2]float32{m[0] / u.scale, m[1]}
		}
	default:
		keepLine("no motor")
	}
	if jointTypes[f.typ] == sim.Fixed {
		keepLine("no friction (a fixed joint)")
	} else {
		g.dragFloat(u.friction, &f.friction, 0.05, 0, 1e5, "%.2f")
		tip(frictionTip)
	}
	if f.a == (sim.Handle{}) {
		textDisabled("Create joint: pick body A first")
	} else if g.button("Create joint") {
		a.do("joint", command.Join(a.JoinSpec()))
		a.S.View(func(w *sim.World) { f.selected = w.NumJoints() - 1 })
	}
	imgui.Separator()

	var joints []sim.JointDef
	var names [][2]string
	// Peek: the joints' definitions, their IDs and the bodies' names are the host's; nothing here
	// needs the bodies' state read back.
	a.S.Peek(func(w *sim.World) {
		a.followJoint(w)
		for k := range w.NumJoints() {
			j := w.Joint(k)
			joints = append(joints, j)
			nb := "world"
			if i, ok := w.Index(j.BodyB); ok {
				nb = w.Bodies.Name[i]
			}
			ia, _ := w.Index(j.BodyA)
			names = append(names, [2]string{w.Bodies.Name[ia], nb})
		}
	})
	if f.selected >= len(joints) {
		f.selected = -1
	}
	imgui.Textf("%d joints (click one to inspect and edit it)", len(joints))
	if g.beginTable("joints", 2, imgui.TableFlagsBorders|imgui.TableFlagsRowBg|imgui.TableFlagsScrollY, imgui.Vec2{Y: 110 * a.scale()}) {
		imgui.TableSetupColumnV("joint", imgui.TableColumnFlagsWidthStretch, 0, 0)
		imgui.TableSetupColumnV("", imgui.TableColumnFlagsWidthFixed, 60*a.scale(), 0)
		for k, j := range joints {
			g.pushInt(k)
			imgui.TableNextRow()
			imgui.TableNextColumn()
			if g.selectable(fmt.Sprintf("%d %s: %s - %s###joint", k, j.Type, names[k][0], names[k][1]), k == f.selected) {
				f.selected = k
			}
			imgui.TableNextColumn()
			if g.button("delete") {
				a.do("delete joint", command.RemoveJoint(k))
				f.selected = -1
			}
			g.pop()
		}
		g.endTable()
	}
	if f.selected >= 0 {
		g.push("selected")
		a.jointInspector(f.selected)
		g.pop()
	}
}

func (a *App) limits() *[2]float32 {
	if !a.panel.joint.useLimits {
		return nil
	}
	l := a.panel.joint.limits
	return &l
}

func (a *App) motorSpec() *sim.Motor {
	if !a.panel.joint.useMotor {
		return nil
	}
	f := &a.panel.joint
	m := &sim.Motor{Speed: f.motor[0], MaxForce: f.motor[1]}
	if f.servo {
		m.Mode, m.Target = sim.MotorPosition, f.target
	}
	return m
}

// JoinSpec is the Joints section's current specification.
func (a *App) JoinSpec() command.JoinSpec {
	p := &a.panel
	p.init()
	f := &p.joint
	var axis sim.Vec3
	axis[f.axis] = 1
	frame := command.AxisWorld
	if f.axisLocal {
		frame = command.AxisLocalA
	}
	return command.JoinSpec{Type: jointTypes[f.typ], A: f.a, B: f.b, PickA: f.pickA, PickB: f.pickB,
		Anchor: command.AnchorMode(f.anchor), Axis: axis, Frame: frame, Limits: a.limits(), Motor: a.motorSpec(),
		Friction: max(f.friction, 0)}
}

func (a *App) inspectSection() {
	p := &a.panel
	g := &a.w
	var (
		live  bool
		name  string
		typ   sim.BodyType
		kind  geom.Kind
		mass  float32
		fric  float32
		rest  float32
		roll  float32
		spin  float32
		pos   sim.Vec3
		vel   sim.Vec3
		omega sim.Vec3
		rows  []command.ContactRow
		parts []string // the body's shapes, one line each
	)
	// Peek, not View: the selected body's moving state is read alone (BodyState: one body from a
	// backend), the rest is what the host keeps; a View would read every body back each frame.
	a.S.Peek(func(w *sim.World) {
		i, ok := w.Index(a.Selected)
		live = ok
		if ok {
			b := &w.Bodies
			name, typ, kind, mass = b.Name[i], b.Type[i], b.Shape[i].Kind, b.Mass[i]
			fric, rest = b.Friction[i], b.Restitution[i]
			roll, spin = b.RollingResistance[i], b.SpinningResistance[i]
			parts = shapeLines(b, i)
			// A failed read-back of the one body shows its state as last read.
			pos, vel, omega = b.Position[i], b.Velocity[i], b.AngularVelocity[i]
			if st, err := w.BodyState(a.Selected); err == nil {
				pos, vel, omega = st.Position, st.Velocity, st.AngularVelocity
				a.selRead = selectedRead{h: a.Selected, st: st, ok: true}
			}
		}
		filter := p.filter
		if filter == "" && live {
			filter = name
		}
		if filter != "" || p.all {
			rows = command.ContactTable(w, filter, command.SortKey(p.sortKey))
		}
	})
	if !live {
		textDisabled("click a body in the view to select it")
	} else {
		h := a.Selected
		imgui.Textf("%s: %s %s at (%.2f, %.2f, %.2f)", name, typ, kind, pos[0], pos[1], pos[2])
		// The shapes: a fixed height whatever their number (a compound's scroll), so nothing below moves.
		if g.beginTable("shapes", 1, imgui.TableFlagsBorders|imgui.TableFlagsRowBg|imgui.TableFlagsScrollY|imgui.TableFlagsScrollX,
			imgui.Vec2{Y: 3.4 * imgui.TextLineHeightWithSpacing()}) {
			for k, line := range parts {
				g.pushInt(k)
				imgui.TableNextRow()
				imgui.TableNextColumn()
				g.text(line)
				g.pop()
			}
			g.endTable()
		}
		t := int32(typ)
		if g.combo("body type", &t, []string{"dynamic", "kinematic", "static"}) {
			bt := sim.BodyType(t)
			a.do("type", command.EditBody(h, command.BodyEdit{Type: &bt}))
		}
		if typ == sim.Dynamic {
			a.commitDrag("mass, kg", fmt.Sprint(h), mass, 0.05, 0.001, 1e6, "%.3f", func(mass float32) {
				if mass > 0 {
					a.do("mass", command.EditBody(h, command.BodyEdit{Mass: &mass}))
				}
			})
		} else {
			keepLine(fmt.Sprintf("mass: infinite (%s)", typ))
		}
		if g.sliderFloat("body friction", &fric, 0, 1.5) {
			a.do("friction", command.EditBody(h, command.BodyEdit{Friction: &fric}))
		}
		if g.sliderFloat("body restitution", &rest, 0, 1) {
			a.do("restitution", command.EditBody(h, command.BodyEdit{Restitution: &rest}))
		}
		if g.sliderFloat("rolling resistance", &roll, 0, 0.5) {
			a.do("rolling resistance", command.EditBody(h, command.BodyEdit{RollingResistance: &roll}))
		}
		tip("a torque of at most c r N against rolling at each contact (docs/SCENES.md)")
		if g.sliderFloat("spinning resistance", &spin, 0, 0.5) {
			a.do("spinning resistance", command.EditBody(h, command.BodyEdit{SpinningResistance: &spin}))
		}
		tip("a torque of at most c r N against spin about each contact's normal")
		if v, ok := a.liveDrag3("velocity", [3]float32(vel)); ok {
			vv := sim.Vec3(v)
			a.do("velocity", command.EditBody(h, command.BodyEdit{Velocity: &vv}))
		}
		if v, ok := a.liveDrag3("angular velocity", [3]float32(omega)); ok {
			ww := sim.Vec3(v)
			a.do("angular velocity", command.EditBody(h, command.BodyEdit{AngularVelocity: &ww}))
		}
		if g.button("Delete body (Del)") {
			a.do("delete", command.RemoveBody(h))
			a.Selected = sim.Handle{}
		}
	}
	g.inputText("filter (body name)", &p.filter)
	tip("empty: the selected body's contacts")
	g.sameLine("checkbox", "all")
	g.checkbox("all", &p.all)
	tip("with no body selected and no filter: list every contact")
	g.combo("sort by", &p.sortKey, []string{"pair", "depth", "normal impulse", "friction impulse"})
	p.rows = rows
	imgui.Textf("%d contact points (hover a row to see it in the view)", len(rows))
	// Three columns of two lines each, so that the numbers fit the panel's default width (400 px, a
	// 720 px window's); a horizontal scroll is left for long body names.
	flags := imgui.TableFlagsBorders | imgui.TableFlagsRowBg | imgui.TableFlagsScrollY | imgui.TableFlagsResizable | imgui.TableFlagsScrollX
	if g.beginTable("contacts", 3, flags, imgui.Vec2{Y: 180 * a.scale()}) {
		imgui.TableSetupScrollFreeze(0, 1)
		for _, c := range []string{"pair / depth, m", "point / normal", "jn / jt, N s"} {
			imgui.TableSetupColumn(c)
		}
		imgui.TableHeadersRow()
		n := min(len(rows), 500)
		for k := 0; k < n; k++ {
			r := &rows[k]
			g.pushInt(k)
			imgui.TableNextRow()
			imgui.TableNextColumn()
			imgui.BeginGroup()
			g.selectable(r.Pair()+"###pair", false)
			hovered := imgui.IsItemHovered()
			imgui.Textf("%.4f", r.Depth)
			imgui.EndGroup()
			if hovered {
				a.hoverRow = k
				pt := r.Point
				a.hoverPoint = &pt
				a.hoverPair = [2]int{r.IA, r.IB}
			}
			imgui.TableNextColumn()
			g.cell("point", fmt.Sprintf("%.2f %.2f %.2f", r.Point[0], r.Point[1], r.Point[2]),
				fmt.Sprintf("%.2f %.2f %.2f", r.Normal[0], r.Normal[1], r.Normal[2]))
			imgui.TableNextColumn()
			g.cell("impulses", fmt.Sprintf("%.3f", r.NormalImp), fmt.Sprintf("%.3f", r.Friction))
			g.pop()
		}
		g.endTable()
	}
}

// liveDrag3 edits a value the simulation keeps changing (a velocity). While the user holds or types
// into the field it shows and edits the user's own copy, not the live value: an edit is applied when
// the user changes it, and a field left in text mode does not re-apply its number every frame.
func (a *App) liveDrag3(label string, live [3]float32) ([3]float32, bool) {
	p := &a.panel
	key := fmt.Sprint(a.Selected, "/", label)
	v := live
	if buf, ok := p.editing[key]; ok {
		v = buf
	}
	before := v
	changed := a.w.dragFloat3(label, &v, 0.05, -100, 100, "%.2f")
	if imgui.IsItemActive() {
		p.editing[key] = v
	} else {
		delete(p.editing, key)
	}
	return v, changed && v != before
}

func (a *App) debugSection() {
	g := &a.w
	d := &a.Debug
	mode := int32(a.ColorMode)
	if g.combo("colour by", &mode, instance.ColorNames) {
		a.ColorMode = instance.ColorBy(mode)
	}
	asleep, on := 0, false
	if a.ColorMode == instance.ColorBySleep {
		a.S.Peek(func(w *sim.World) { asleep, on = w.Stats.Asleep, w.Settings().Sleep })
	}
	keepLine(colourNote(a.ColorMode, asleep, on)) // every mode has its line: none moves the boxes below
	g.checkbox("wireframe (W)", &a.Wireframe)
	g.sameLine("checkbox", "no shadows")
	g.checkbox("no shadows", &a.NoShadows)
	g.checkbox("contact points", &d.Contacts)
	g.sameLine("checkbox", "normals x impulse")
	g.checkbox("normals x impulse", &d.Normals)
	g.checkbox("friction impulses", &d.Friction)
	g.sameLine("checkbox", "joints and their limits")
	g.checkbox("joints and their limits", &d.Joints)
	g.checkbox("AABBs", &d.AABBs)
	g.sameLine("checkbox", "centres of mass")
	g.checkbox("centres of mass", &d.COM)
	g.checkbox("velocities", &d.Velocities)
	g.sameLine("checkbox", "hover highlight")
	g.checkbox("hover highlight", &a.HoverHighlight)
	g.checkbox("labels: names and masses", &d.Labels)
	tip(fmt.Sprintf("the nearest %d bodies in view, those that do not overlap a nearer one", maxLabels))
	maxDepth := 0
	a.S.Peek(func(w *sim.World) { maxDepth = w.BVHDepth() })
	if maxDepth == 0 {
		keepLine("BVH: none (the broad phase is not the LBVH, or no step has run)")
		keepLine("")
	} else {
		g.checkbox("BVH level", &d.BVH)
		tip("the broad phase's tree as of its last query: on the steps that keep the last query's pairs, the bodies move on and the tree stays where it was")
		depth := int32(min(d.BVHDepth, maxDepth))
		if g.sliderInt("BVH depth", &depth, 0, int32(maxDepth)) {
			d.BVHDepth = int(depth)
		}
	}
	if g.checkbox("follow selection (C)", &a.Follow) {
		a.followByScene = false
	}
	if g.button("Frame all (F)") {
		a.frameAll()
	}
	g.sameLine("button", "Help (F1)")
	if g.button("Help (F1)") {
		a.ShowHelp = !a.ShowHelp
	}
	a.probeNode() // last: opening it moves nothing above
}

func (a *App) helpOverlay(ww, wh float32) {
	imgui.SetNextWindowPosV(imgui.Vec2{X: 20, Y: 20}, imgui.ConditionAlways, imgui.Vec2{})
	imgui.SetNextWindowBgAlpha(0.85)
	a.w.begin("Shortcuts (F1)", nil, imgui.WindowFlagsAlwaysAutoResize|imgui.WindowFlagsNoMove)
	for _, s := range Shortcuts {
		imgui.Textf("%-38s %s", s[0], s[1])
	}
	a.w.end()
}

// shapeLines describes body i's shapes for the Inspect section, a line each: its one shape, or each
// shape of a compound with its mass (its share of the body's) and its own material where it has one.
func shapeLines(b *sim.Bodies, i int) []string {
	sh := &b.Shape[i]
	if sh.Kind != geom.Compound {
		return []string{shapeText(sh)}
	}
	c := sh.Compound
	out := make([]string, 0, len(c.Children))
	for k := range c.Children {
		ch := &c.Children[k]
		line := partText(c, k)
		if b.Type[i] == sim.Dynamic {
			line += ", " + kg(b.Mass[i]*ch.Mass/c.Mass)
		}
		if ch.Material.Friction >= 0 {
			line += fmt.Sprintf(", friction %.2g", ch.Material.Friction)
		}
		if ch.Material.Restitution >= 0 {
			line += fmt.Sprintf(", restitution %.2g", ch.Material.Restitution)
		}
		if ch.Material.RollingResistance >= 0 {
			line += fmt.Sprintf(", rolling %.2g", ch.Material.RollingResistance)
		}
		if ch.Material.SpinningResistance >= 0 {
			line += fmt.Sprintf(", spinning %.2g", ch.Material.SpinningResistance)
		}
		out = append(out, line)
	}
	return out
}
