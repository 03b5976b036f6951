package ui

import (
	"fmt"
	"slices"

	"github.com/go-gl/mathgl/mgl32"
	"github.com/inkyblackness/imgui-go/v4"

	"tumble/gpu"
	"tumble/render"
	"tumble/scenes"
	"tumble/sim"
	"tumble/sim/geom"
	"tumble/ui/command"
)

// panelState is what the panel's widgets edit between frames.
type panelState struct {
	path    string // scene file to open or save
	message string // last command's outcome

	spawnKind    int32
	spawnPattern int32
	spawnCount   int32
	spawnSize    [3]float32
	spawnMass    float32
	spawnFric    float32
	spawnRest    float32
	spawnAtMouse bool

	jointMode    int // 0 off, 1 picking A, 2 picking B
	jointA       sim.Handle
	jointB       sim.Handle
	pickA, pickB mgl32.Vec3
	jointType    int32
	anchorMode   int32
	axisChoice   int32 // x, y, z
	axisLocal    bool
	useLimits    bool
	limits       [2]float32
	useMotor     bool
	motor        [2]float32

	filter      string
	sortKey     int32
	allContacts bool                 // list every contact when no body is selected and no filter is set
	rows        []command.ContactRow // the table as last shown

	open       map[string]bool // sections to open on the first frame
	frictionMu float32
	restAll    float32
	inited     bool
}

func (p *panelState) init() {
	if p.inited {
		return
	}
	p.inited = true
	p.open = map[string]bool{}
	p.path = "scene.json"
	p.spawnCount, p.spawnSize, p.spawnFric = 10, [3]float32{0.25, 0.25, 0.25}, 0.6
	p.spawnPattern = int32(command.Stack)
	p.limits = [2]float32{-0.5, 0.5}
	p.motor = [2]float32{1, 10}
	p.axisChoice = 2
	p.frictionMu = 0.6
}

// PanelWidth is the panel's width in screen coordinates on an unscaled monitor (times the content
// scale on a HiDPI one); it sits on the right of the window.
const PanelWidth = 380

// openOnce sets a section's first-frame state when Options.Open chose the open sections.
func (p *panelState) openOnce(name string) {
	if len(p.open) > 0 {
		imgui.SetNextItemOpen(p.open[name], imgui.ConditionOnce)
	}
}

func (a *App) buildPanel(ww, wh float32) {
	p := &a.panel
	p.init()
	a.hoverRow, a.hoverPoint = -1, nil // set again below while a contacts row is hovered
	pw := a.panelWidth()
	imgui.SetNextWindowPosV(imgui.Vec2{X: ww - pw, Y: 0}, imgui.ConditionAlways, imgui.Vec2{})
	imgui.SetNextWindowSizeV(imgui.Vec2{X: pw, Y: wh}, imgui.ConditionAlways)
	imgui.BeginV("Tumble", nil, imgui.WindowFlagsNoMove|imgui.WindowFlagsNoResize|imgui.WindowFlagsNoCollapse)
	defer imgui.End()
	imgui.PushItemWidth(170 * max(a.uiScale, 1))
	defer imgui.PopItemWidth()
	imgui.Textf("%s  |  %s", a.S.Name(), a.glInfo)
	if err := a.S.Err(); err != nil {
		imgui.PushTextWrapPos()
		imgui.Text(fmt.Sprintf("error: %v", err))
		imgui.PopTextWrapPos()
	}
	if p.message != "" {
		imgui.Text(p.message)
	}
	p.openOnce("scene")
	if imgui.CollapsingHeaderV("Scene", imgui.TreeNodeFlagsDefaultOpen) {
		a.sceneSection()
	}
	p.openOnce("simulation")
	if imgui.CollapsingHeaderV("Simulation", imgui.TreeNodeFlagsDefaultOpen) {
		a.simulationSection()
	}
	p.openOnce("spawn")
	if imgui.CollapsingHeader("Spawn") {
		a.spawnSection()
	}
	p.openOnce("joints")
	if imgui.CollapsingHeader("Joints") {
		a.jointsSection()
	}
	p.openOnce("inspect")
	if imgui.CollapsingHeaderV("Inspect", imgui.TreeNodeFlagsDefaultOpen) {
		a.inspectSection()
	}
	p.openOnce("debug")
	if imgui.CollapsingHeader("Debug draw") {
		a.debugSection()
	}
	p.openOnce("stats")
	if imgui.CollapsingHeaderV("Stats", imgui.TreeNodeFlagsDefaultOpen) {
		a.stats.show(a)
	}
}

// do queues c and applies it at once (under the lock, between steps), reporting its outcome.
func (a *App) do(what string, c command.Command) {
	a.S.Do(c)
	if err := a.S.Apply(); err != nil {
		a.panel.message = what + ": " + err.Error()
	} else {
		a.panel.message = what + ": done"
	}
}

// beginDisabled greys out the widgets up to endDisabled when off is true. (imgui-go v4 leaves Dear
// ImGui's beta Disabled API out, so the greying is a style alpha and callers ignore the widgets'
// results while off.)
func beginDisabled(off bool) {
	if off {
		imgui.PushStyleVarFloat(imgui.StyleVarAlpha, 0.45)
	} else {
		imgui.PushStyleVarFloat(imgui.StyleVarAlpha, 1)
	}
}

func endDisabled() { imgui.PopStyleVar() }

func textDisabled(s string) {
	imgui.PushStyleColor(imgui.StyleColorText, imgui.Vec4{X: 0.6, Y: 0.6, Z: 0.6, W: 1})
	imgui.Text(s)
	imgui.PopStyleColor()
}

func disabledTip(why string) {
	if imgui.IsItemHovered() {
		imgui.SetTooltip(why)
	}
}

func (a *App) sceneSection() {
	p := &a.panel
	names := scenes.Names()
	cur := int32(-1)
	for i, n := range names {
		if n == a.S.Name() {
			cur = int32(i)
		}
	}
	if imgui.Combo("preset", &cur, names) && cur >= 0 {
		a.do("load "+names[cur], command.LoadPreset(names[cur]))
		a.Selected = sim.Handle{}
		a.frameAll()
	}
	imgui.InputText("file", &p.path)
	if imgui.Button("Open") {
		a.do("open "+p.path, command.LoadFile(p.path))
		a.frameAll()
	}
	imgui.SameLine()
	if imgui.Button("Save current state") {
		a.do("save "+p.path, command.SaveFile(p.path))
	}
	if imgui.Button("Snapshot") {
		a.do("snapshot", command.Snapshot())
	}
	imgui.SameLine()
	beginDisabled(!a.S.HasSnapshot())
	if imgui.Button("Restore") && a.S.HasSnapshot() {
		a.do("restore", command.Restore())
	}
	endDisabled()
	imgui.SameLine()
	if imgui.Button("Reset (R)") {
		a.do("reset", command.Reset())
		a.Selected = sim.Handle{}
	}
}

func (a *App) simulationSection() {
	var set, res sim.Settings
	a.S.View(func(w *sim.World) { set, res = w.Settings(), w.Resolved() })
	// The CUDA backend runs Jacobi with Jacobi's defaults, keeps every body awake and always uses its
	// LBVH: the panel shows what runs, not the CPU's choices.
	onGPU := a.S.BackendKind() != command.BackendCPU
	if onGPU {
		res = gpu.Resolve(set)
	}
	paused := a.S.Paused()
	label := "Pause (Space)"
	if paused {
		label = "Play (Space)"
	}
	if imgui.Button(label) {
		a.S.Do(command.Pause(!paused))
	}
	imgui.SameLine()
	if imgui.Button("Step (N)") {
		a.S.Do(command.StepOnce())
	}
	edit := func(f func(*sim.Settings)) { a.do("settings", command.SetSettings(f)) }

	hz := int32(mgl32.Round(1/res.Dt, 0))
	if imgui.SliderInt("step rate, Hz", &hz, 15, 480) {
		edit(func(s *sim.Settings) { s.Dt = 1 / float32(hz) })
	}
	sub := int32(res.Substeps)
	if imgui.SliderInt("sub-steps", &sub, 1, 32) {
		edit(func(s *sim.Settings) { s.Substeps = int(sub) })
	}
	it := int32(res.Iterations)
	if imgui.SliderInt("iterations", &it, 1, 32) {
		edit(func(s *sim.Settings) { s.Iterations = int(it) })
	}
	solvers := []sim.SolverKind{sim.PGS, sim.Jacobi, sim.XPBD}
	solver := int32(slices.Index(solvers, res.Solver))
	if onGPU {
		imgui.Text("solver: jacobi (the CUDA backend's)")
		disabledTip("the CUDA backend solves with Jacobi; switch the backend to cpu for pgs or xpbd")
	} else if imgui.Combo("solver", &solver, []string{"pgs (Gauss-Seidel)", "jacobi", "xpbd"}) {
		k := solvers[solver]
		edit(func(s *sim.Settings) { s.Solver = k })
	}
	warm := !set.NoWarmStart
	if imgui.Checkbox("warm starting", &warm) {
		edit(func(s *sim.Settings) { s.NoWarmStart = !warm })
	}
	imgui.SameLine()
	relax := !set.NoRelax
	if imgui.Checkbox("relax", &relax) {
		edit(func(s *sim.Settings) { s.NoRelax = !relax })
	}
	chz := res.ContactHertz
	if imgui.SliderFloatV("contact stiffness, Hz", &chz, 5, 480, "%.0f", imgui.SliderFlagsLogarithmic) {
		edit(func(s *sim.Settings) { s.ContactHertz = chz })
	}
	dr := res.DampingRatio
	if imgui.SliderFloat("contact damping ratio", &dr, 0.1, 20) {
		edit(func(s *sim.Settings) { s.DampingRatio = dr })
	}
	g := [3]float32(res.Gravity)
	if imgui.DragFloat3V("gravity", &g, 0.05, -50, 50, "%.2f", 0) {
		edit(func(s *sim.Settings) { s.Gravity = g })
	}
	fr := !set.NoFriction
	if imgui.Checkbox("friction", &fr) {
		a.do("friction", command.SetFriction(fr))
	}
	imgui.SameLine()
	rest := !set.NoRestitution
	if imgui.Checkbox("restitution", &rest) {
		edit(func(s *sim.Settings) { s.NoRestitution = !rest })
	}
	p := &a.panel
	imgui.SliderFloat("##mu", &p.frictionMu, 0, 1.5)
	imgui.SameLine()
	if imgui.Button("set every body's friction") {
		a.do("friction coefficient", command.SetFrictionCoefficient(p.frictionMu))
	}
	imgui.SliderFloat("##e", &p.restAll, 0, 1)
	imgui.SameLine()
	if imgui.Button("set every body's restitution") {
		a.do("restitution", command.SetRestitutionAll(p.restAll))
	}
	sleep := set.Sleep
	if onGPU {
		imgui.Text("sleeping: off on the CUDA backend")
	} else if imgui.Checkbox("sleeping", &sleep) {
		edit(func(s *sim.Settings) { s.Sleep = sleep })
	}
	if !onGPU && imgui.IsItemHovered() {
		imgui.SetTooltip("islands at rest for 0.5 s sleep: they hold still and cost nothing until touched")
	}
	broads := []sim.BroadphaseKind{sim.LBVH, sim.SAP, sim.Grid, sim.Brute}
	bp := int32(slices.Index(broads, res.Broadphase))
	if onGPU {
		imgui.Text("broad phase: lbvh (CUDA: rebuilt each step)")
	} else if imgui.Combo("broad phase", &bp, []string{"lbvh", "sort and sweep", "uniform grid", "brute force"}) {
		k := broads[bp]
		edit(func(s *sim.Settings) { s.Broadphase = k })
	}
	a.backendCombo()
	workers := int32(res.Workers)
	if imgui.SliderInt("CPU workers", &workers, 1, 32) {
		edit(func(s *sim.Settings) { s.Workers = int(workers) })
	}
}

func (a *App) spawnSection() {
	p := &a.panel
	imgui.Combo("shape", &p.spawnKind, []string{"box", "sphere", "capsule"})
	imgui.Combo("pattern", &p.spawnPattern, command.PatternNames)
	imgui.SliderInt("count", &p.spawnCount, 1, 2000)
	switch p.spawnKind {
	case 0:
		imgui.DragFloat3V("half extents", &p.spawnSize, 0.01, 0.02, 5, "%.2f", 0)
	case 1:
		imgui.SliderFloat("radius", &p.spawnSize[0], 0.02, 3)
	case 2:
		imgui.SliderFloat("radius", &p.spawnSize[0], 0.02, 3)
		imgui.SliderFloat("half height", &p.spawnSize[1], 0.02, 3)
	}
	imgui.SliderFloat("mass (0: 1000 kg/m^3)", &p.spawnMass, 0, 100)
	imgui.SliderFloat("friction", &p.spawnFric, 0, 1.5)
	imgui.SliderFloat("restitution", &p.spawnRest, 0, 1)
	imgui.Checkbox("at the cursor (else above the scene)", &p.spawnAtMouse)
	if imgui.Button("Spawn") {
		a.do("spawn", command.Spawn(a.SpawnSpec()))
	}
}

// SpawnSpec is the Spawn section's current specification.
func (a *App) SpawnSpec() command.Spec {
	p := &a.panel
	p.init()
	kinds := []geom.Kind{geom.Box, geom.Sphere, geom.Capsule}
	sp := command.Spec{Kind: kinds[p.spawnKind], Pattern: command.Pattern(p.spawnPattern), Count: int(p.spawnCount),
		Size: p.spawnSize, Mass: p.spawnMass, Friction: p.spawnFric, Restitution: p.spawnRest}
	if p.spawnAtMouse {
		sp.At = a.cursorGround()
	} else {
		sp.At = a.S.AboveScene()
	}
	return sp
}

var jointTypes = []sim.JointType{sim.Hinge, sim.Ball, sim.Piston, sim.Fixed}

func (a *App) jointsSection() {
	p := &a.panel
	name := func(h sim.Handle) string {
		n := "(none)"
		a.S.View(func(w *sim.World) {
			if i, ok := w.Index(h); ok {
				n = w.Bodies.Name[i]
			}
		})
		return n
	}
	switch p.jointMode {
	case 1:
		imgui.Text("click body A in the view...")
	case 2:
		imgui.Text("click body B in the view...")
	}
	if imgui.Button("Pick A then B") {
		p.jointMode, p.jointA, p.jointB = 1, sim.Handle{}, sim.Handle{}
	}
	imgui.SameLine()
	if imgui.Button("B = world") {
		p.jointB, p.jointMode = sim.Handle{}, 0
	}
	imgui.Textf("A: %s   B: %s", name(p.jointA), map[bool]string{true: "world", false: name(p.jointB)}[p.jointB == sim.Handle{}])
	imgui.Combo("type", &p.jointType, []string{"hinge", "ball", "piston", "fixed"})
	imgui.Combo("anchor", &p.anchorMode, []string{"clicked point", "midpoint"})
	imgui.Combo("axis", &p.axisChoice, []string{"x", "y", "z"})
	imgui.SameLine()
	imgui.Checkbox("in A's frame", &p.axisLocal)
	imgui.Checkbox("limits", &p.useLimits)
	if p.useLimits {
		imgui.DragFloat2V("lo, hi", &p.limits, 0.01, -10, 10, "%.2f", 0)
	}
	imgui.Checkbox("motor", &p.useMotor)
	if p.useMotor {
		imgui.DragFloat2V("speed, max force", &p.motor, 0.05, -100, 1000, "%.2f", 0)
	}
	beginDisabled(p.jointA == (sim.Handle{}))
	if imgui.Button("Create joint") && p.jointA != (sim.Handle{}) {
		a.do("joint", command.Join(a.JoinSpec()))
	}
	endDisabled()

	var joints []sim.JointDef
	var names [][2]string
	a.S.View(func(w *sim.World) {
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
	imgui.Textf("%d joints", len(joints))
	if imgui.BeginTableV("joints", 4, imgui.TableFlagsBorders|imgui.TableFlagsRowBg|imgui.TableFlagsScrollY, imgui.Vec2{Y: 120}, 0) {
		for k, j := range joints {
			imgui.PushIDInt(k)
			imgui.TableNextRow()
			imgui.TableNextColumn()
			imgui.Textf("%d %s", k, j.Type)
			imgui.TableNextColumn()
			imgui.Textf("%s - %s", names[k][0], names[k][1])
			imgui.TableNextColumn()
			if imgui.Button("apply edits") {
				a.do("edit joint", command.EditJoint(k, command.JointEdit{Limits: a.limits(), Motor: a.motorSpec()}))
			}
			imgui.TableNextColumn()
			if imgui.Button("delete") {
				a.do("delete joint", command.RemoveJoint(k))
			}
			imgui.PopID()
		}
		imgui.EndTable()
	}
}

func (a *App) limits() *[2]float32 {
	if !a.panel.useLimits {
		return nil
	}
	l := a.panel.limits
	return &l
}

func (a *App) motorSpec() *sim.Motor {
	if !a.panel.useMotor {
		return nil
	}
	return &sim.Motor{Speed: a.panel.motor[0], MaxForce: a.panel.motor[1]}
}

// JoinSpec is the Joints section's current specification.
func (a *App) JoinSpec() command.JoinSpec {
	p := &a.panel
	var axis sim.Vec3
	axis[p.axisChoice] = 1
	frame := command.AxisWorld
	if p.axisLocal {
		frame = command.AxisLocalA
	}
	return command.JoinSpec{Type: jointTypes[p.jointType], A: p.jointA, B: p.jointB, PickA: p.pickA, PickB: p.pickB,
		Anchor: command.AnchorMode(p.anchorMode), Axis: axis, Frame: frame, Limits: a.limits(), Motor: a.motorSpec()}
}

func (a *App) inspectSection() {
	p := &a.panel
	var (
		live  bool
		name  string
		typ   sim.BodyType
		kind  geom.Kind
		mass  float32
		fric  float32
		rest  float32
		pos   sim.Vec3
		vel   sim.Vec3
		omega sim.Vec3
		rows  []command.ContactRow
	)
	a.S.View(func(w *sim.World) {
		i, ok := w.Index(a.Selected)
		live = ok
		if ok {
			b := &w.Bodies
			name, typ, kind, mass = b.Name[i], b.Type[i], b.Shape[i].Kind, b.Mass[i]
			fric, rest, pos, vel, omega = b.Friction[i], b.Restitution[i], b.Position[i], b.Velocity[i], b.AngularVelocity[i]
		}
		filter := p.filter
		if filter == "" && live {
			filter = name
		}
		if filter != "" || p.allContacts {
			rows = command.ContactTable(w, filter, command.SortKey(p.sortKey))
		}
	})
	if !live {
		textDisabled("click a body to select it")
	} else {
		h := a.Selected
		imgui.Textf("%s: %s %s at (%.2f, %.2f, %.2f)", name, typ, kind, pos[0], pos[1], pos[2])
		t := int32(typ)
		if imgui.Combo("body type", &t, []string{"dynamic", "kinematic", "static"}) {
			bt := sim.BodyType(t)
			a.do("type", command.EditBody(h, command.BodyEdit{Type: &bt}))
		}
		beginDisabled(typ != sim.Dynamic)
		if imgui.DragFloatV("mass, kg", &mass, 0.05, 0.001, 1e6, "%.3f", 0) && mass > 0 && typ == sim.Dynamic {
			a.do("mass", command.EditBody(h, command.BodyEdit{Mass: &mass}))
		}
		endDisabled()
		if imgui.SliderFloat("body friction", &fric, 0, 1.5) {
			a.do("friction", command.EditBody(h, command.BodyEdit{Friction: &fric}))
		}
		if imgui.SliderFloat("body restitution", &rest, 0, 1) {
			a.do("restitution", command.EditBody(h, command.BodyEdit{Restitution: &rest}))
		}
		v := [3]float32(vel)
		if imgui.DragFloat3V("velocity", &v, 0.05, -100, 100, "%.2f", 0) {
			vv := sim.Vec3(v)
			a.do("velocity", command.EditBody(h, command.BodyEdit{Velocity: &vv}))
		}
		w := [3]float32(omega)
		if imgui.DragFloat3V("angular velocity", &w, 0.05, -100, 100, "%.2f", 0) {
			ww := sim.Vec3(w)
			a.do("angular velocity", command.EditBody(h, command.BodyEdit{AngularVelocity: &ww}))
		}
		if imgui.Button("Delete body") {
			a.do("delete", command.RemoveBody(h))
			a.Selected = sim.Handle{}
		}
		imgui.SameLine()
	}
	imgui.InputText("filter (body name)", &p.filter)
	disabledTip("empty: the selected body's contacts")
	imgui.SameLine()
	imgui.Checkbox("all", &p.allContacts)
	imgui.Combo("sort by", &p.sortKey, []string{"pair", "depth", "normal impulse", "friction impulse"})
	p.rows = rows
	imgui.Textf("%d contact points (hover a row to see it in the view)", len(rows))
	flags := imgui.TableFlagsBorders | imgui.TableFlagsRowBg | imgui.TableFlagsScrollY | imgui.TableFlagsResizable
	if imgui.BeginTableV("contacts", 6, flags, imgui.Vec2{Y: 180}, 0) {
		imgui.TableSetupScrollFreeze(0, 1)
		for _, c := range []string{"pair", "point", "normal", "depth", "jn", "jt"} {
			imgui.TableSetupColumn(c)
		}
		imgui.TableHeadersRow()
		n := min(len(rows), 500)
		for k := 0; k < n; k++ {
			r := &rows[k]
			imgui.TableNextRow()
			imgui.TableNextColumn()
			imgui.Selectable(fmt.Sprintf("%s-%s##%d", short(r.A), short(r.B), k))
			if imgui.IsItemHovered() {
				a.hoverRow = k
				pt := r.Point
				a.hoverPoint = &pt
				a.hoverPair = [2]int{r.IA, r.IB}
			}
			imgui.TableNextColumn()
			imgui.Textf("%.2f %.2f %.2f", r.Point[0], r.Point[1], r.Point[2])
			imgui.TableNextColumn()
			imgui.Textf("%.2f %.2f %.2f", r.Normal[0], r.Normal[1], r.Normal[2])
			imgui.TableNextColumn()
			imgui.Textf("%.4f", r.Depth)
			imgui.TableNextColumn()
			imgui.Textf("%.3f", r.NormalImp)
			imgui.TableNextColumn()
			imgui.Textf("%.3f", r.Friction)
		}
		imgui.EndTable()
	}
}

func short(s string) string {
	if len(s) > 10 {
		return s[:10]
	}
	return s
}

func (a *App) debugSection() {
	d := &a.Debug
	mode := int32(a.ColorMode)
	if imgui.Combo("colour by", &mode, render.ColorNames) {
		a.ColorMode = render.ColorBy(mode)
	}
	if a.ColorMode == render.ColorBySleep {
		asleep, on := 0, false
		a.S.View(func(w *sim.World) { asleep, on = w.Stats.Asleep, w.Settings().Sleep })
		if on {
			imgui.Text(fmt.Sprintf("%d bodies asleep (blue), the rest awake (green)", asleep))
		} else {
			textDisabled("sleeping is off (Simulation > sleeping): every body is awake")
		}
	}
	imgui.Checkbox("wireframe (W)", &a.Wireframe)
	imgui.SameLine()
	imgui.Checkbox("no shadows", &a.NoShadows)
	imgui.Checkbox("contact points", &d.Contacts)
	imgui.SameLine()
	imgui.Checkbox("normals x impulse", &d.Normals)
	imgui.Checkbox("friction impulses", &d.Friction)
	imgui.SameLine()
	imgui.Checkbox("joints", &d.Joints)
	imgui.Checkbox("AABBs", &d.AABBs)
	imgui.SameLine()
	imgui.Checkbox("centres of mass", &d.COM)
	imgui.Checkbox("velocities", &d.Velocities)
	maxDepth := 0
	a.S.View(func(w *sim.World) { maxDepth = w.BVHDepth() })
	beginDisabled(maxDepth == 0)
	imgui.Checkbox("BVH level", &d.BVH)
	depth := int32(min(d.BVHDepth, maxDepth))
	if imgui.SliderInt("BVH depth", &depth, 0, int32(max(maxDepth, 1))) {
		d.BVHDepth = int(depth)
	}
	endDisabled()
	if maxDepth == 0 {
		disabledTip("the broad phase is not the LBVH (Simulation > broad phase), or no step has run: there is no tree")
	}
	imgui.Checkbox("follow selection (C)", &a.Follow)
	if imgui.Button("Frame all (F)") {
		a.frameAll()
	}
	imgui.SameLine()
	if imgui.Button("Help (F1)") {
		a.ShowHelp = !a.ShowHelp
	}
}

func (a *App) helpOverlay(ww, wh float32) {
	imgui.SetNextWindowPosV(imgui.Vec2{X: 20, Y: 20}, imgui.ConditionAlways, imgui.Vec2{})
	imgui.SetNextWindowBgAlpha(0.85)
	imgui.BeginV("Shortcuts (F1)", nil, imgui.WindowFlagsAlwaysAutoResize|imgui.WindowFlagsNoMove)
	for _, s := range Shortcuts {
		imgui.Textf("%-38s %s", s[0], s[1])
	}
	imgui.End()
}

// switchBackend moves the world onto a backend of the kind, on this (the GL) thread rather than queued
// (see Session.Exec), and reports the outcome in the panel.
func (a *App) switchBackend(kind string) {
	what := "backend " + kind
	if err := a.S.Exec(command.UseBackend(kind)); err != nil {
		a.panel.message = what + ": " + err.Error()
	} else {
		a.panel.message = what + ": done"
	}
}

// backendCombo switches the running world's backend (command.UseBackend, between two steps) and
// says where the frame's instances come from.
func (a *App) backendCombo() {
	kinds := command.BackendKinds()
	labels := make([]string, len(kinds))
	for i, k := range kinds {
		labels[i] = command.BackendLabel(k)
	}
	cur := int32(slices.Index(kinds, a.S.BackendKind()))
	if imgui.Combo("backend", &cur, labels) && cur >= 0 && kinds[cur] != a.S.BackendKind() {
		a.switchBackend(kinds[cur])
	}
	if imgui.IsItemHovered() {
		tip := "cpu: this package's stages on the CPU workers.\n" +
			"cuda (emulated): the CUDA backend's kernels compiled for the CPU, one thread at a time: tens of\n" +
			"times slower than the CPU backend, for inspecting the GPU code path without a GPU."
		if gpu.Available {
			tip = "cuda: the step on the GPU.\n" + tip
		} else {
			tip += "\ncuda is not offered: this build has no CUDA (build with -tags cuda)."
		}
		imgui.SetTooltip(tip)
	}
	if a.S.BackendKind() != command.BackendCPU {
		imgui.PushTextWrapPos()
		on := "on " + a.S.BackendName()
		if a.S.BackendKind() == command.BackendEmulated {
			on += ": slow, for inspecting the GPU code path"
		}
		textDisabled(on)
		if a.interopNote != "" {
			textDisabled(a.interopNote)
		}
		imgui.PopTextWrapPos()
	}
}
