package ui

import (
	"fmt"
	"slices"
	"strings"

	"github.com/go-gl/mathgl/mgl32"
	"github.com/inkyblackness/imgui-go/v4"

	"tumble/scenes"
	"tumble/sim"
	"tumble/sim/geom"
	"tumble/ui/command"
)

// panelState is what the panel's widgets edit between frames.
type panelState struct {
	path     string // scene file to open or save
	pathFor  string // the scene name path was last set for (a newly loaded scene sets it again)
	message  string // the latest outcome: a command's, or the session's newest error
	isErr    bool
	errSeq   int    // the session's error count when message was set (see Session.ErrSeq)
	captSeq  int    // the capture's report count when message was last set from it
	heavy    string // a heavy preset waiting for the user to confirm loading it on software GL
	editing  map[string][3]float32
	commit   commitState     // the numeric fields being typed into, applied when let go (panel_commit.go)
	load     loadState       // scenes and replays loaded and saved off the UI thread, the heavy watch (panel_load.go)
	openNow  map[string]bool // each section's open state in the last frame (remembered in the prefs)
	open     map[string]bool // sections to open on the first frame
	spawn    spawnForm
	shot     shotForm
	joint    jointForm
	time     timeForm
	filter   string
	sortKey  int32
	all      bool                 // list every contact when no body is selected and no filter is set
	rows     []command.ContactRow // the table as last shown
	mu, rest float32              // the "set every body's" values
	inited   bool
}

// spawnForm is the Spawn section's specification.
type spawnForm struct {
	Kind, Pattern, Count int32
	Size                 [3]float32
	Mass, Friction, Rest float32
	AtCursor             bool
}

// shotForm is the Shoot section's specification (the B key fires it).
type shotForm struct {
	Kind         int32
	Size         [3]float32
	Mass, Speed  float32
	FromPointing bool
}

// jointForm is the Joints section's creation widgets and the joint being inspected.
type jointForm struct {
	mode         int // 0 off, 1 picking A, 2 picking B
	a, b         sim.Handle
	pickA, pickB mgl32.Vec3
	typ          int32
	anchor       int32
	axis         int32 // x, y, z
	axisLocal    bool
	useLimits    bool
	limits       [2]float32
	useMotor     bool
	motor        [2]float32 // speed (a servo's largest speed), max force
	servo        bool       // the motor drives to target (sim.MotorPosition)
	target       float32    // rad or m
	friction     float32    // N m, or N for a piston
	selected     int        // the joint shown in the inspector, -1 none
}

func (p *panelState) init() {
	if p.inited {
		return
	}
	p.inited = true
	p.open, p.openNow, p.editing = map[string]bool{}, map[string]bool{}, map[string][3]float32{}
	p.spawn = spawnForm{Pattern: int32(command.Stack), Count: 10, Size: [3]float32{0.25, 0.25, 0.25}, Friction: 0.6}
	p.shot = shotForm{Kind: 1, Size: [3]float32{0.3, 0.3, 0.3}, Mass: 10, Speed: 25}
	// Limits of 30 degrees either way (a piston's 0.52 m), a motor of 1 rad/s or m/s up to 10 N m or N.
	p.joint = jointForm{limits: [2]float32{-0.5235988, 0.5235988}, motor: [2]float32{1, 10}, axis: 2, selected: -1}
	p.mu = 0.6
}

// PanelWidth is the panel's default width in screen coordinates on an unscaled monitor (times the
// content scale on a HiDPI one); it sits on the right of the window, and the user can drag its left
// edge between minPanelWidth and most of the window.
const PanelWidth = 400

const minPanelWidth = 340

// labelWidth is the room kept for a field's label, right of it (about 21 characters).
const labelWidth = 150

// sections are the collapsing headers, in order: the name Options.Open uses, the label, open at first.
var sections = []struct {
	name, label string
	open        bool
}{
	{"scene", "Scene", true}, {"simulation", "Simulation", true}, {"spawn", "Spawn", false},
	{"shoot", "Shoot", false}, {"joints", "Joints", false}, {"inspect", "Inspect", true},
	{"time", "Time", false}, {"debug", "Debug draw", false}, {"stats", "Stats", true},
	{"capture", "Capture", false},
}

// SectionNames are the panel's sections, as Options.Open (and the -open flag) names them.
var SectionNames = func() []string {
	var n []string
	for _, s := range sections {
		n = append(n, s.name)
	}
	return n
}()

func (a *App) buildPanel(ww, wh float32) {
	p := &a.panel
	p.init()
	defer a.commitVanished()
	a.hoverRow, a.hoverPoint = -1, nil // set again below while a contacts row is hovered
	a.spawnMark = nil                  // and while the Spawn section spawns at the cursor
	g := &a.w
	pw := min(a.panelWidth(), max(ww-16, minPanelWidth))
	imgui.SetNextWindowPosV(imgui.Vec2{X: ww - pw, Y: 0}, imgui.ConditionAlways, imgui.Vec2{})
	imgui.SetNextWindowSizeV(imgui.Vec2{X: pw, Y: wh}, imgui.ConditionAlways)
	imgui.SetNextWindowSizeConstraints(imgui.Vec2{X: minPanelWidth * a.scale(), Y: wh}, imgui.Vec2{X: max(ww*0.8, minPanelWidth), Y: wh})
	g.begin("Tumble", nil, imgui.WindowFlagsNoMove|imgui.WindowFlagsNoCollapse|imgui.WindowFlagsNoTitleBar)
	defer g.end()
	// The user resizes the panel by its left edge: the width ImGui settled on this frame is kept.
	a.panelW = imgui.WindowSize().X
	a.header()
	// The sections scroll below the header, which stays put.
	g.beginChild("sections", imgui.Vec2{}, false)
	defer g.endChild()
	imgui.PushItemWidth(-labelWidth * a.scale()) // the labels right of the fields get this much
	defer imgui.PopItemWidth()
	imgui.PushTextWrapPos() // text wraps at the panel's edge, whatever its width (not in tables)
	defer imgui.PopTextWrapPos()
	for _, s := range sections {
		if len(p.open) > 0 {
			imgui.SetNextItemOpen(p.open[s.name], imgui.ConditionOnce)
		}
		flags := imgui.TreeNodeFlags(0)
		if s.open {
			flags = imgui.TreeNodeFlagsDefaultOpen
		}
		open := g.header(s.label, flags)
		p.openNow[s.name] = open
		if !open {
			continue
		}
		g.push(s.name) // each section its own ID scope: one label may appear in two sections
		switch s.name {
		case "scene":
			a.sceneSection()
		case "simulation":
			a.simulationSection()
		case "spawn":
			a.spawnSection()
		case "shoot":
			a.shootSection()
		case "joints":
			a.jointsSection()
		case "inspect":
			a.outliner()
			a.inspectSection()
		case "time":
			a.timeSection()
		case "debug":
			a.debugSection()
		case "stats":
			a.stats.show(a)
		case "capture":
			a.captureSection()
		}
		g.pop()
	}
}

// header is the panel's fixed top: scene and GL, the clock, play controls and one status line. It
// always has the same height, so a message appearing never moves the widgets under it.
func (a *App) header() {
	p := &a.panel
	g := &a.w
	imgui.Textf("%s  |  %s", a.S.Name(), a.glInfo)
	var t float64
	var steps int
	a.S.Peek(func(w *sim.World) { t, steps = w.Time, w.StepCount })
	imgui.Textf("t %.2f s   step %d   %.2fx real time   %.0f fps", t, steps, a.stats.realTime, a.stats.fps)
	if imgui.IsItemHovered() {
		imgui.SetTooltip("simulated time and steps since the scene was loaded; real-time factor: simulated\n" +
			"seconds per wall second over the last second (below 1: the machine cannot keep up)")
	}
	paused := a.S.Paused()
	label := "Pause (Space)###play"
	if paused {
		label = "Play (Space)###play"
	}
	if g.button(label) {
		a.S.Do(command.Pause(!paused))
	}
	g.sameLine("button", "Step (N)")
	if g.button("Step (N)") {
		a.S.Do(command.StepOnce())
	}
	g.sameLine("button", "Reset (R)")
	if g.button("Reset (R)") {
		a.reset()
	}
	g.sameLine("button", "Hide (Tab)")
	if g.button("Hide (Tab)") {
		a.PanelHidden = true
	}
	// The status line: the newest of the last command's outcome and the session's last error.
	if seq := a.S.ErrSeq(); seq != p.errSeq {
		p.errSeq = seq
		if err := a.S.Err(); err != nil {
			p.message, p.isErr = "error: "+err.Error(), true
		}
	}
	// A capture's outcome too: F12 saves a screenshot with the Capture section closed, where its line
	// would not be seen.
	if c := &a.capt; c.seq != p.captSeq {
		p.captSeq = c.seq
		p.message, p.isErr = "capture: "+c.last, c.lastErr
	}
	if a.headerJob() { // long work under way: its bar and Cancel take the status line's place
		imgui.Separator()
		return
	}
	msg := p.message
	if msg == "" {
		msg = " "
	}
	col := imgui.Vec4{X: 0.6, Y: 0.9, Z: 0.6, W: 1}
	if p.isErr {
		col = imgui.Vec4{X: 1, Y: 0.45, Z: 0.4, W: 1}
	}
	imgui.PushStyleColor(imgui.StyleColorText, col)
	imgui.AlignTextToFramePadding() // a field high, as the progress bar that takes its place
	imgui.Text(fitText(msg, imgui.ContentRegionAvail().X))
	imgui.PopStyleColor()
	if imgui.IsItemHovered() && len(msg) > 1 {
		imgui.SetTooltip(msg)
	}
	imgui.Separator()
}

// fitText cuts s to one line of about width pixels (the full text is in the tooltip).
func fitText(s string, width float32) string {
	if i := strings.IndexByte(s, '\n'); i >= 0 {
		s = s[:i] + " ..."
	}
	n := int(width / 7) // the built-in font's advance is 7 px
	if n > 4 && len(s) > n {
		s = s[:n-3] + "..."
	}
	return s
}

// do queues c and applies it at once (under the lock, between steps), reporting its outcome in the
// status line; a success also clears an older error from it.
func (a *App) do(what string, c command.Command) {
	a.S.Do(c)
	err := a.S.Apply()
	p := &a.panel
	p.errSeq = a.S.ErrSeq()
	if err != nil {
		p.message, p.isErr = what+": "+err.Error(), true
	} else {
		p.message, p.isErr = what+": done", false
	}
}

func textDisabled(s string) {
	imgui.PushStyleColor(imgui.StyleColorText, imgui.Vec4{X: 0.6, Y: 0.6, Z: 0.6, W: 1})
	imgui.Text(s)
	imgui.PopStyleColor()
}

func tip(why string) {
	if imgui.IsItemHovered() {
		imgui.SetTooltip(why)
	}
}

// softwareGL reports whether OpenGL is drawn by the CPU (Mesa's llvmpipe or softpipe).
func (a *App) softwareGL() bool {
	r := strings.ToLower(a.glRenderer)
	return strings.Contains(r, "llvmpipe") || strings.Contains(r, "softpipe") || strings.Contains(r, "software")
}

func (a *App) sceneSection() {
	p := &a.panel
	g := &a.w
	// The file field follows the scene: a loaded file's own path, or a preset's name as a file to save.
	if name := a.S.Name(); name != p.pathFor {
		p.pathFor = name
		if _, preset := scenes.PresetInfo(name); preset {
			p.path = name + ".json"
		} else {
			p.path = name
		}
	}
	imgui.Text("presets (hover for what each shows)")
	g.beginChild("presets", imgui.Vec2{Y: 150 * a.scale()}, true)
	group := ""
	for _, info := range scenes.Catalog() {
		if info.Group != group {
			group = info.Group
			textDisabled(group)
		}
		label := info.Name
		if info.Heavy {
			label += fmt.Sprintf("  (%dk bodies)", info.Bodies/1000)
		}
		if g.selectable(label+"###"+info.Name, info.Name == a.S.Name()) {
			if info.Heavy && a.softwareGL() {
				p.heavy = info.Name
			} else {
				a.loadPreset(info.Name)
			}
		}
		imgui.SameLine()
		textDisabled(info.Description)
		tip(info.Description)
	}
	g.endChild()
	g.inputText("file", &p.path)
	if g.button("Open") {
		a.loadScene(p.path, true)
	}
	g.sameLine("button", "Save current state")
	if g.button("Save current state") {
		a.saveScene(p.path)
	}
	if g.button("Snapshot") {
		a.snapshot()
	}
	g.sameLine("button", "Restore")
	// Always the button, greyed without a snapshot: the buttons after it stay where they are.
	has := a.S.HasSnapshot()
	if !has {
		imgui.PushStyleVarFloat(imgui.StyleVarAlpha, 0.45)
	}
	if g.button("Restore") {
		if has {
			a.restore()
		} else {
			p.message, p.isErr = "restore: no snapshot yet (Snapshot takes one)", true
		}
	}
	if !has {
		imgui.PopStyleVar()
		tip("no snapshot yet: Snapshot takes one")
	}
	g.sameLine("button", "Scene's settings")
	if g.button("Scene's settings") {
		a.do("settings back to the scene's", command.RevertSettings())
	}
	tip("Reset keeps the settings you changed; this puts back the scene's own")
	// The offer comes last: appearing, it moves none of the widgets above.
	if p.heavy != "" {
		info, _ := scenes.PresetInfo(p.heavy)
		imgui.PushTextWrapPos()
		imgui.PushStyleColor(imgui.StyleColorText, imgui.Vec4{X: 1, Y: 0.8, Z: 0.3, W: 1})
		imgui.Text(heavyWarning(info.Name, info.Bodies, a.glRenderer))
		imgui.PopStyleColor()
		imgui.PopTextWrapPos()
		if g.button("Load anyway") {
			a.loadPreset(p.heavy)
			p.heavy = ""
		}
		g.sameLine("button", "Cancel")
		if g.button("Cancel") {
			p.heavy = ""
		}
	}
}

// loadPreset replaces the world with a preset's and frames it (off the UI thread when it is large:
// loadScene).
func (a *App) loadPreset(name string) { a.loadScene(name, false) }

func (a *App) simulationSection() {
	g := &a.w
	var set sim.Settings
	var caps sim.Capabilities
	a.S.Peek(func(w *sim.World) { set, caps = w.Settings(), w.Capabilities() })
	// The backend's capabilities say what runs (the CUDA backend: Jacobi with Jacobi's defaults, every
	// body awake, its LBVH): the panel shows that, not the CPU's choices.
	res := sim.ResolveFor(caps, set)
	edit := func(what string, f func(*sim.Settings)) { a.do(what, command.SetSettings(f)) }

	hz := int32(mgl32.Round(1/res.Dt, 0))
	a.commitSliderInt("step rate, Hz", "", hz, 15, 480, func(hz int32) {
		edit("step rate", func(s *sim.Settings) { s.Dt = 1 / float32(hz) })
	})
	solvers := caps.Solvers // the ones the backend runs
	labels := make([]string, len(solvers))
	for i, k := range solvers {
		labels[i] = sim.SolverOf(k).Title()
	}
	solver := int32(slices.Index(solvers, res.Solver))
	if len(caps.Solvers) == 1 {
		imgui.AlignTextToFramePadding() // a combo's height: the lines below stay where they are
		imgui.Text(fmt.Sprintf("solver: %s (%s's)", caps.Solvers[0], caps.Name))
		tip(fmt.Sprintf("%s solves with %s; switch the backend to cpu for the others", caps.Name, caps.Solvers[0]))
	} else if g.combo("solver", &solver, labels) {
		k := solvers[solver]
		edit("solver", func(s *sim.Settings) { s.Solver = k })
	}
	a.solverSettings(set, res, caps)
	if sim.PlanOf(res).Uses(sim.StageShapeMatch) { // the solver matches clusters' shapes
		a.clusterWidgets()
	} else {
		keepLine(notRead("cluster stiffness (shapematch's)", res.Solver))
		keepLine(notRead("cluster damping (shapematch's)", res.Solver))
	}
	grav := [3]float32(res.Gravity)
	a.commitDrag3("gravity", "", grav, 0.05, -50, 50, "%.2f", func(grav [3]float32) {
		edit("gravity", func(s *sim.Settings) { s.Gravity = grav })
	})
	p := &a.panel
	// Values to hand out with the two buttons, not the bodies' own (Inspect shows a body's).
	g.sliderFloat("mu for every body", &p.mu, 0, 1.5)
	tip("a friction coefficient for Set every body's friction to give all bodies; a body's own is in Inspect")
	g.sliderFloat("e for every body", &p.rest, 0, 1)
	tip("a restitution coefficient for ... restitution to give all bodies; a body's own is in Inspect")
	if g.button("Set every body's friction") {
		a.do("every body's friction", command.SetFrictionCoefficient(p.mu))
	}
	g.sameLine("button", "... restitution")
	if g.button("... restitution") {
		a.do("every body's restitution", command.SetRestitutionAll(p.rest))
	}
	sleep := set.Sleep
	if !caps.Sleep {
		imgui.AlignTextToFramePadding()
		imgui.Text("sleeping: off on " + caps.Name)
	} else if g.checkbox("sleeping", &sleep) {
		edit("sleeping", func(s *sim.Settings) { s.Sleep = sleep })
	}
	if caps.Sleep {
		tip("islands at rest for 0.5 s sleep: they hold still and cost nothing until touched.\n" +
			"On by default in the window, unless the scene says \"sleep\": false; `sandbox run` and\n" +
			"`bench` keep the scene's setting (off unless it says true).")
	}
	broads := []sim.BroadphaseKind{sim.LBVH, sim.SAP, sim.Grid, sim.Brute}
	bp := int32(slices.Index(broads, res.Broadphase))
	if len(caps.Broadphases) == 1 {
		text := "broad phase: " + caps.Broadphases[0].String()
		if caps.Note != "" {
			text += " (" + caps.Note + ")"
		}
		imgui.AlignTextToFramePadding()
		imgui.Text(text)
	} else if g.combo("broad phase", &bp, []string{"lbvh", "sort and sweep", "uniform grid", "brute force"}) {
		k := broads[bp]
		edit("broad phase", func(s *sim.Settings) { s.Broadphase = k })
	}
	a.backendCombo()
	workers := int32(res.Workers)
	if g.sliderInt("CPU workers", &workers, 1, 32) {
		edit("workers", func(s *sim.Settings) { s.Workers = int(workers) })
	}
	a.backendNote()
}

// switchBackend moves the world onto a backend of the kind, on this (the GL) thread rather than queued
// (see Session.Exec), and reports the outcome in the panel.
func (a *App) switchBackend(kind string) {
	what := "backend " + kind
	parked := a.S.SleepParked()
	err := a.S.Exec(command.SwitchBackend(kind))
	p := &a.panel
	p.errSeq = a.S.ErrSeq()
	switch {
	case err != nil:
		// The command's error names the backend already ("emu backend: body ... is a hull: ...").
		p.message, p.isErr = err.Error(), true
	case a.S.SleepParked() && !parked:
		p.message, p.isErr = what+": done; sleeping is off on it, back on with the cpu backend", false
	case parked && !a.S.SleepParked():
		p.message, p.isErr = what+": done; sleeping back on", false
	default:
		p.message, p.isErr = what+": done", false
	}
}

// backendCombo switches the running world's backend (command.UseBackend, between two steps) and
// says where the frame's instances come from.
func (a *App) backendCombo() {
	kinds := a.S.BackendKinds()
	labels := make([]string, len(kinds))
	for i, k := range kinds {
		labels[i] = command.BackendLabel(k)
	}
	cur := int32(slices.Index(kinds, a.S.BackendKind()))
	if a.w.combo("backend", &cur, labels) && cur >= 0 && kinds[cur] != a.S.BackendKind() {
		a.switchBackend(kinds[cur])
	}
	if imgui.IsItemHovered() {
		tip := "cpu: this package's stages on the CPU workers.\n" +
			"cuda (emulated): the CUDA backend's kernels compiled for the CPU, one thread at a time: tens of\n" +
			"times slower than the CPU backend, for inspecting the GPU code path without a GPU."
		if slices.Contains(kinds, command.BackendCUDA) {
			tip = "cuda: the step on the GPU.\n" + tip
		} else {
			tip += "\ncuda is not offered: this build has no CUDA (build with -tags cuda)."
		}
		imgui.SetTooltip(tip)
	}
}

// backendNote says, at the end of the Simulation section (where its lines move nothing), what the
// backend other than the CPU is and where the frame's instances come from.
func (a *App) backendNote() {
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

var shapeKinds = []geom.Kind{geom.Box, geom.Sphere, geom.Capsule}

// spawnKinds are what the Spawn section's shape combo offers: the shapes, two convex hulls, the
// cylinder, then three compound bodies (sizeWidgets and sizeNote go by these indices).
var spawnKinds = []struct {
	name     string
	kind     geom.Kind
	hull     command.HullShape
	compound command.CompoundShape
}{{"box", geom.Box, 0, 0}, {"sphere", geom.Sphere, 0, 0}, {"capsule", geom.Capsule, 0, 0},
	{"rock", geom.ConvexHull, command.Rock, 0}, {"bunny", geom.ConvexHull, command.Bunny, 0},
	{"cylinder", geom.Cylinder, 0, 0},
	{"table", geom.Compound, 0, command.Table}, {"chair", geom.Compound, 0, command.Chair},
	{"dumbbell", geom.Compound, 0, command.Dumbbell}}

// spawnKindNames are spawnKinds' names, for the combo.
var spawnKindNames = func() []string {
	var out []string
	for _, k := range spawnKinds {
		out = append(out, k.name)
	}
	return out
}()

// clusterWidgets edits the shape-matching clusters (the shapematch solver): the first cluster's
// stiffness and damping are shown, and a change sets every cluster's.
func (a *App) clusterWidgets() {
	g := &a.w
	var n int
	var c sim.ClusterDef
	a.S.Peek(func(w *sim.World) { // the clusters' definitions are the host's
		if n = w.NumClusters(); n > 0 {
			c = w.Cluster(0)
		}
	})
	if n == 0 {
		keepLine("no clusters: the scene file's clusters give shapematch its bodies")
		keepLine("")
		return
	}
	k, d := c.Stiffness, c.Damping
	if g.sliderFloat("cluster stiffness", &k, 0, 1) {
		a.do("cluster stiffness", command.SetClusters(func(c *sim.ClusterDef) { c.Stiffness = k }))
	}
	tip(fmt.Sprintf("every cluster's (%d): the pull towards the rest shape, a spring of sqrt(stiffness)/dt", n))
	if g.sliderFloat("cluster damping", &d, 0, 1) {
		a.do("cluster damping", command.SetClusters(func(c *sim.ClusterDef) { c.Damping = d }))
	}
	tip("share of the deformation's velocity removed per step; 0: an undamped cluster rings for ever")
}

// sizeWidgets edits a shape's size: a box's half extents, a sphere's radius, a capsule's radius and
// half height, a rock's size, a bunny's length (the Shoot section offers only the first three).
func (a *App) sizeWidgets(kind int32, size *[3]float32) {
	g := &a.w
	switch kind {
	case 0:
		g.dragFloat3("half extents", size, 0.01, 0.02, 5, "%.2f")
	case 1:
		g.sliderFloat("radius", &size[0], 0.02, 3)
	case 2, 5: // capsule, cylinder
		g.sliderFloat("radius", &size[0], 0.02, 3)
		g.sliderFloat("half height", &size[1], 0.02, 3)
	case 3:
		g.sliderFloat("rock size", &size[0], 0.05, 3)
		tip("half sizes about 1.3, 0.8 and 1 times this; each rock spawned is a different random hull")
	case 4:
		g.sliderFloat("bunny length", &size[0], 0.1, 5)
		tip("tail to nose, m: the bunny preset's hull, inertia from its mesh")
	case 6, 7, 8: // table, chair, dumbbell
		g.sliderFloat("scale", &size[0], 0.1, 3)
		tip("1: a 1.2 m table, a chair with its seat 0.45 m up, a 0.6 m dumbbell (the furniture preset's)")
	}
	if kind != 2 && kind != 5 { // the second field's line of the capsule and the cylinder, kept
		keepLine(sizeNote(kind, *size))
	}
}

func (a *App) spawnSection() {
	g := &a.w
	f := &a.panel.spawn
	// The shapes the backend does not run are greyed, with the reason: the World would refuse them.
	var caps sim.Capabilities
	a.S.Peek(func(w *sim.World) { caps = w.Capabilities() })
	greyed := make([]string, len(spawnKinds))
	for i, k := range spawnKinds {
		if !caps.RunsShape(k.kind) {
			greyed[i] = fmt.Sprintf("a %s is a %s shape, which %s does not run; switch the backend to cpu", k.name, k.kind, caps.Name)
		}
	}
	was := f.Kind
	if g.comboGreyed("shape", &f.Kind, spawnKindNames, greyed) && spawnKinds[f.Kind].kind == geom.Compound &&
		spawnKinds[was].kind != geom.Compound {
		f.Size[0] = 1 // a compound's size is a scale: start from its own size, not a box's half extent
	}
	if why := greyed[f.Kind]; why != "" {
		textDisabled(why)
	}
	g.combo("pattern", &f.Pattern, command.PatternNames)
	// The single pattern spawns one body: the count shows 1, greyed out, and keeps what was set for
	// the other patterns. (imgui-go v4 leaves Dear ImGui's BeginDisabled out.)
	single := command.Pattern(f.Pattern) == command.Single
	if single {
		one := int32(1)
		imgui.PushStyleVarFloat(imgui.StyleVarAlpha, 0.45)
		g.sliderInt("count", &one, 1, 1)
		imgui.PopStyleVar()
		tip(fmt.Sprintf("the single pattern spawns one body; a stack, wall, pyramid or rain gets %d", f.Count))
	} else {
		g.sliderInt("count", &f.Count, 1, 2000)
		tip("bodies in a stack, wall, pyramid or rain")
	}
	a.sizeWidgets(f.Kind, &f.Size)
	g.sliderFloat("mass, kg", &f.Mass, 0, 100)
	tip("0: 1000 kg/m^3 times the volume")
	g.sliderFloat("friction", &f.Friction, 0, 1.5)
	g.sliderFloat("restitution", &f.Rest, 0, 1)
	g.checkbox("at the cursor", &f.AtCursor)
	tip("on: where the cursor last pointed in the view (a body or the ground), marked by a green cross; off: above the scene")
	if f.AtCursor {
		pt := a.spawnSpot()
		a.spawnMark = &pt
	}
	if g.button("Spawn") {
		n := f.Count
		if single {
			n = 1
		}
		a.do(fmt.Sprintf("spawn %d", n), command.Spawn(a.SpawnSpec()))
	}
}

// SpawnSpec is the Spawn section's current specification.
func (a *App) SpawnSpec() command.Spec {
	p := &a.panel
	p.init()
	f := &p.spawn
	k := spawnKinds[f.Kind]
	sp := command.Spec{Kind: k.kind, Hull: k.hull, Compound: k.compound, Pattern: command.Pattern(f.Pattern), Count: int(f.Count),
		Size: f.Size, Mass: f.Mass, Friction: f.Friction, Restitution: f.Rest}
	if f.AtCursor {
		sp.At = a.cursorGround()
	} else {
		sp.At = a.S.AboveScene()
	}
	return sp
}

func (a *App) shootSection() {
	g := &a.w
	f := &a.panel.shot
	g.combo("shape", &f.Kind, []string{"box", "sphere", "capsule"})
	a.sizeWidgets(f.Kind, &f.Size)
	g.sliderFloat("mass, kg", &f.Mass, 0, 500)
	tip("0: 1000 kg/m^3 times the volume")
	g.sliderFloat("speed, m/s", &f.Speed, 1, 200)
	if g.button("Shoot (B)") {
		a.shootAtCentre()
	}
	tip("fires at the middle of the view; the B key fires through the cursor")
}

// ShotSpec is the Shoot section's current specification.
func (a *App) ShotSpec() command.ShotSpec {
	p := &a.panel
	p.init()
	f := &p.shot
	return command.ShotSpec{Kind: shapeKinds[f.Kind], Size: f.Size, Mass: f.Mass, Speed: f.Speed}
}
