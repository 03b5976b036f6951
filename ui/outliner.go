package ui

import (
	"fmt"
	"strings"

	"github.com/inkyblackness/imgui-go/v4"

	"tumble/sim"
	"tumble/sim/geom"
)

// The outliner, at the top of the Inspect section (a tree node, closed at first), is the world as a
// tree: each body, and under it its shape and the joints on it, with a filter on the names. Selection goes both ways: a row clicked selects its body (in the view and
// the Inspect section), and a body picked in the view is highlighted in the tree and scrolled to. A
// pile has 10,000 bodies: the tree is flattened into rows of one height and only the rows inside the
// list's scrolled window are built (Dear ImGui's list clipper), so its cost does not grow with the
// world.

// outlinerRows is the list's height in rows.
const outlinerRows = 14

type rowKind uint8

const (
	rowBody rowKind = iota
	rowShape
	rowJoint
)

// outlinerRow is one line of the flattened tree.
type outlinerRow struct {
	kind  rowKind
	body  int // dense index
	joint int // rowJoint: the joint's index
	shape int // rowShape: a compound's shape (its index in the compound), or -1 for the body's shape
}

// outlinerState is the Outliner's state between frames.
type outlinerState struct {
	filter string
	open   map[sim.Handle]bool // the bodies whose rows are expanded
	rows   []outlinerRow
	// seen is the selection as the outliner last showed it: a selection changed elsewhere (a pick in
	// the view) scrolls the list to its row.
	seen     sim.Handle
	jointsOf map[int][]int // dense body index -> the joints on it (this frame)
	// built are the rows built in the last frame (the list clipper's visible ones), for the tests.
	built []int
	// selRow is the selected body's row in the last frame, -1 if the filter hides it.
	selRow int
	// The rows are built again only when what they show changed: the world (rowsWorld, held while the
	// rows are, so that its address is not another's), the filter (rowsFilter), the bodies expanded
	// (openRev, moved on by each toggle), the bodies by handle in dense order (handles: a body added,
	// removed or restored changes it) or the joints' bodies (jointBodies). Comparing handles costs a
	// tenth of building the rows (100,000 bodies: 1.6 ms a frame, 11 with a filter).
	rowsWorld   *sim.World
	rowsFilter  string
	openRev     int
	rowsOpenRev int
	handles     []sim.Handle
	jointBodies [][2]sim.Handle
	rowsValid   bool
	matches     int // the body rows
	// rebuilt counts the frames that built the rows, for the tests.
	rebuilt int
}

// outlinerLabel is the outliner's tree node in the Inspect section.
const outlinerLabel = "Outliner: bodies, shapes, joints"

// outliner draws the outliner, if its tree node is open.
func (a *App) outliner() {
	g := &a.w
	if !g.treeNode(outlinerLabel) {
		a.tools.outliner.forgetRows()
		return
	}
	defer g.treePop()
	o := &a.tools.outliner
	if o.open == nil {
		o.open, o.jointsOf = map[sim.Handle]bool{}, map[int][]int{}
	}
	g.inputText("filter names", &o.filter)
	tip("only the bodies whose names contain this (any case)")
	o.built = o.built[:0]
	// Peek: the rows show names, types, shapes, masses and joints, which the host keeps; no body is
	// read back from a backend.
	a.S.Peek(func(w *sim.World) {
		a.outlinerRows(w)
		sel, live := w.Index(a.Selected)
		o.selRow = -1
		if live {
			for r, row := range o.rows {
				if row.kind == rowBody && row.body == sel {
					o.selRow = r
					break
				}
			}
		}
		// One line whatever the filter and the selection, so that nothing below it moves.
		total := w.Bodies.Len()
		if o.filter != "" {
			hidden := ""
			if live && o.selRow < 0 {
				hidden = " (not the selected one)"
			}
			imgui.Text(fitText(fmt.Sprintf("%d of %d bodies match%s", o.matches, total, hidden), imgui.ContentRegionAvail().X))
		} else {
			imgui.Textf("%d bodies, %d joints", total, w.NumJoints())
		}
		rowH := imgui.TextLineHeightWithSpacing()
		g.beginChild("tree", imgui.Vec2{Y: outlinerRows*rowH + 2*imgui.CurrentStyle().WindowPadding().Y}, true)
		if a.Selected != o.seen {
			o.seen = a.Selected
			a.scrollToRow(o.selRow, rowH)
		}
		var clip imgui.ListClipper
		clip.BeginV(len(o.rows), rowH)
		for clip.Step() {
			for r := clip.DisplayStart; r < clip.DisplayEnd; r++ {
				a.outlinerRow(w, r)
			}
		}
		g.endChild()
	})
}

// countBodies counts the body rows.
func countBodies(rows []outlinerRow) int {
	n := 0
	for _, r := range rows {
		if r.kind == rowBody {
			n++
		}
	}
	return n
}

// forgetRows drops the rows and the world they were built for (the outliner closed).
func (o *outlinerState) forgetRows() { o.rowsValid, o.rowsWorld = false, nil }

// rowsCurrent says whether the rows were built for the world, the filter and the expanded bodies as
// they are now.
func (o *outlinerState) rowsCurrent(w *sim.World) bool {
	if !o.rowsValid || o.rowsWorld != w || o.rowsFilter != o.filter || o.rowsOpenRev != o.openRev || len(o.handles) != w.Bodies.Len() ||
		len(o.jointBodies) != w.NumJoints() {
		return false
	}
	for i, h := range o.handles {
		if w.HandleAt(i) != h {
			return false
		}
	}
	for k, jb := range o.jointBodies {
		if j := w.Joint(k); jb != [2]sim.Handle{j.BodyA, j.BodyB} {
			return false
		}
	}
	return true
}

// outlinerRows flattens the tree: every body whose name matches the filter, and under each expanded
// one its shape and its joints. The rows are kept while nothing they show changed (rowsCurrent).
func (a *App) outlinerRows(w *sim.World) {
	o := &a.tools.outliner
	for h, on := range o.open { // forget the bodies closed or gone
		if _, live := w.Index(h); !on || !live {
			delete(o.open, h)
			o.openRev++
		}
	}
	if o.rowsCurrent(w) {
		return
	}
	o.rebuilt++
	o.rowsValid, o.rowsWorld, o.rowsFilter, o.rowsOpenRev = true, w, o.filter, o.openRev
	o.handles = o.handles[:0]
	for i := range w.Bodies.Len() {
		o.handles = append(o.handles, w.HandleAt(i))
	}
	o.jointBodies = o.jointBodies[:0]
	for k := range w.NumJoints() {
		j := w.Joint(k)
		o.jointBodies = append(o.jointBodies, [2]sim.Handle{j.BodyA, j.BodyB})
	}
	clear(o.jointsOf)
	for k := range w.NumJoints() {
		j := w.Joint(k)
		if i, ok := w.Index(j.BodyA); ok {
			o.jointsOf[i] = append(o.jointsOf[i], k)
		}
		if i, ok := w.Index(j.BodyB); ok {
			o.jointsOf[i] = append(o.jointsOf[i], k)
		}
	}
	f := strings.ToLower(o.filter)
	o.rows = o.rows[:0]
	b := &w.Bodies
	for i := range b.Len() {
		// ToLower returns an ASCII name without capitals as it is, without a copy.
		if f != "" && !strings.Contains(strings.ToLower(b.Name[i]), f) {
			continue
		}
		o.rows = append(o.rows, outlinerRow{kind: rowBody, body: i})
		if len(o.open) == 0 || !o.open[w.HandleAt(i)] { // most often none is open: no lookup a body
			continue
		}
		if sh := &b.Shape[i]; sh.Kind == geom.Compound { // a row per shape of a compound
			for c := range sh.Compound.Children {
				o.rows = append(o.rows, outlinerRow{kind: rowShape, body: i, shape: c})
			}
		} else {
			o.rows = append(o.rows, outlinerRow{kind: rowShape, body: i, shape: -1})
		}
		for _, k := range o.jointsOf[i] {
			o.rows = append(o.rows, outlinerRow{kind: rowJoint, body: i, joint: k})
		}
	}
	o.matches = countBodies(o.rows)
}

// scrollToRow scrolls the list (the current child window) so that row r is in its middle, unless it
// is in view already.
func (a *App) scrollToRow(r int, rowH float32) {
	if r < 0 {
		return
	}
	top := float32(r) * rowH
	view := imgui.WindowHeight() - 2*imgui.CurrentStyle().WindowPadding().Y
	if y := imgui.ScrollY(); top >= y && top+rowH <= y+view {
		return
	}
	imgui.SetScrollY(max(top-(view-rowH)/2, 0))
}

// outlinerRow builds row r of the list.
func (a *App) outlinerRow(w *sim.World, r int) {
	g := &a.w
	o := &a.tools.outliner
	o.built = append(o.built, r)
	row := o.rows[r]
	b := &w.Bodies
	h := w.HandleAt(row.body)
	name := b.Name[row.body]
	// Each row's ID is its kind in its body's scope (and its joint's): one generic path for the tests'
	// coverage, whatever the names.
	g.pushInt(row.body)
	defer g.pop()
	switch row.kind {
	case rowBody:
		flags := imgui.TreeNodeFlagsOpenOnArrow | imgui.TreeNodeFlagsSpanAvailWidth
		if h == a.Selected {
			flags |= imgui.TreeNodeFlagsSelected
		}
		toggled, clicked := g.treeRow(name+"###body", flags, o.open[h])
		if toggled {
			o.open[h] = !o.open[h]
			o.openRev++
		}
		if clicked {
			a.Selected, o.seen = h, h
		}
		imgui.SameLine()
		if b.Type[row.body] == sim.Dynamic {
			textDisabled(fmt.Sprintf("%s, %s", b.Shape[row.body].Kind, kg(b.Mass[row.body])))
		} else {
			textDisabled(fmt.Sprintf("%s %s", b.Type[row.body], b.Shape[row.body].Kind))
		}
	case rowShape:
		imgui.Indent()
		text := shapeText(&b.Shape[row.body])
		if row.shape >= 0 {
			text = partText(b.Shape[row.body].Compound, row.shape)
		}
		g.pushInt(row.shape) // a compound's shapes, each in its own scope under one generic path
		_, clicked := g.treeRow(text+"###shape", imgui.TreeNodeFlagsLeaf|imgui.TreeNodeFlagsBullet|imgui.TreeNodeFlagsSpanAvailWidth, false)
		g.pop()
		imgui.Unindent()
		if clicked {
			a.Selected, o.seen = h, h
		}
	case rowJoint:
		imgui.Indent()
		k := row.joint
		flags := imgui.TreeNodeFlagsLeaf | imgui.TreeNodeFlagsBullet | imgui.TreeNodeFlagsSpanAvailWidth
		if a.panel.joint.selected == k {
			flags |= imgui.TreeNodeFlagsSelected
		}
		g.pushInt(k)
		_, clicked := g.treeRow(jointText(w, k, row.body)+"###joint", flags, false)
		g.pop()
		imgui.Unindent()
		tip("click: inspect this joint in the Joints section")
		if clicked {
			a.Selected, o.seen = h, h
			a.panel.joint.selected = k
		}
	}
}

// shapeText describes a shape in one line, sizes in metres.
func shapeText(s *geom.Shape) string {
	switch s.Kind {
	case geom.Box:
		e := s.HalfExtents
		return fmt.Sprintf("box, half extents %.3g x %.3g x %.3g m", e[0], e[1], e[2])
	case geom.Sphere:
		return fmt.Sprintf("sphere, radius %.3g m", s.Radius)
	case geom.Capsule:
		return fmt.Sprintf("capsule, radius %.3g m, half height %.3g m", s.Radius, s.HalfHeight)
	case geom.Cylinder:
		return fmt.Sprintf("cylinder, radius %.3g m, height %.3g m", s.Radius, 2*s.HalfHeight)
	case geom.ConvexHull:
		if s.Hull != nil {
			return fmt.Sprintf("convex hull, %d vertices", len(s.Hull.Verts))
		}
	case geom.TriMesh:
		if s.Mesh != nil {
			return fmt.Sprintf("mesh, %d triangles", len(s.Mesh.Tris))
		}
	case geom.HeightField:
		if f := s.Field; f != nil {
			return fmt.Sprintf("height field, %d x %d samples %.3g x %.3g m apart", f.NX, f.NZ, f.DX, f.DZ)
		}
	case geom.Plane:
		return fmt.Sprintf("plane, normal %.2g %.2g %.2g", s.Normal[0], s.Normal[1], s.Normal[2])
	case geom.Compound:
		if s.Compound != nil {
			return fmt.Sprintf("compound, %d shapes", len(s.Compound.Children))
		}
	}
	return s.Kind.String()
}

// partText describes shape k of compound c in one line: its index, shape and where it sits from the
// body's centre of mass.
func partText(c *geom.CompoundShape, k int) string {
	ch := &c.Children[k]
	p := ch.Pose.P
	return fmt.Sprintf("shapes[%d]: %s, at %.2f %.2f %.2f m", k, shapeText(&ch.Shape), p[0], p[1], p[2])
}

// jointText names joint k as seen from the body at dense index i: its type and the other body.
func jointText(w *sim.World, k, i int) string {
	j := w.Joint(k)
	other := "the world"
	h := j.BodyB
	if ib, ok := w.Index(h); ok && ib == i {
		h = j.BodyA
	}
	if io, ok := w.Index(h); ok && h != w.HandleAt(i) {
		other = w.Bodies.Name[io]
	}
	return fmt.Sprintf("joint %d: %s to %s", k, j.Type, other)
}
