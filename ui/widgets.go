package ui

import (
	"fmt"
	"strings"

	"github.com/inkyblackness/imgui-go/v4"
)

// The panel submits every widget through the wrappers in this file, never through imgui directly
// (TestPanelCallsImGuiWidgetsOnlyThroughTheWrappers checks the source). Each wrapper draws the widget,
// then records it: its ID path (a mirror of Dear ImGui's ID stack: window, pushed IDs, label) and its
// rectangle on screen. The record serves two ends:
//   - a frame that submits one ID twice is caught (Dear ImGui 1.85 does not check: two widgets with one
//     ID share their state, so one click reaches the wrong widget or trips an assertion);
//   - the real-input tests find a widget by its label and click, drag or type at its rectangle.

// Item is one widget as the last frame submitted it.
type Item struct {
	Path     string     // "window/pushed IDs/label": the label's ID part (see idPart)
	Label    string     // the label as shown (without its ## part)
	Kind     string     // button, checkbox, slider, drag, combo, option, input, header, selectable
	Min, Max imgui.Vec2 // the item's rectangle in screen coordinates
	Visible  bool       // inside its window's visible region (not scrolled away or clipped)
	Clip     [2]imgui.Vec2
	Greyed   string // why the item is greyed out and does nothing when clicked, or ""
	Disabled bool   // drawn greyed between beginDisabled and endDisabled: it takes no input
}

// Centre is the middle of the item's rectangle.
func (it Item) Centre() (float32, float32) {
	return (it.Min.X + it.Max.X) / 2, (it.Min.Y + it.Max.Y) / 2
}

// widgets is the record of one frame's items and the mirror of the ID stack.
type widgets struct {
	stack []string
	items []Item
	seen  map[string]int // path -> index in items
	dups  []string       // paths submitted twice in this frame
	clip  [2]imgui.Vec2  // the current window's visible region
	// onDup, if set, is called for every duplicate (tests fail on it); the app logs the first.
	onDup func(path string)
	clips []([2]imgui.Vec2) // the visible regions of the windows begun inside the current one

	disabled bool // inside beginDisabled(true)
}

// beginFrame starts a frame's record (until then, items is the last frame's).
func (g *widgets) beginFrame() {
	g.items = g.items[:0]
	g.stack = g.stack[:0]
	g.dups = g.dups[:0]
	if g.seen == nil {
		g.seen = map[string]int{}
	}
	clear(g.seen)
}

// idPart is the part of a label Dear ImGui hashes into the ID: the whole label, or after "###" only
// what follows it.
func idPart(label string) string {
	if i := strings.Index(label, "###"); i >= 0 {
		return label[i:]
	}
	return label
}

// shown is the part of a label Dear ImGui displays.
func shown(label string) string {
	if i := strings.Index(label, "##"); i >= 0 {
		return label[:i]
	}
	return label
}

// begin opens a window (imgui.BeginV) and starts its ID scope.
func (g *widgets) begin(name string, open *bool, flags imgui.WindowFlags) bool {
	vis := imgui.BeginV(name, open, flags)
	g.stack = append(g.stack[:0], idPart(name))
	p, s := imgui.WindowPos(), imgui.WindowSize()
	g.clip = [2]imgui.Vec2{p, {X: p.X + s.X, Y: p.Y + s.Y}}
	return vis
}

// end closes the window begun by begin.
func (g *widgets) end() {
	imgui.End()
	g.stack = g.stack[:0]
}

// push opens an ID scope (imgui.PushID).
func (g *widgets) push(id string) {
	imgui.PushID(id)
	g.stack = append(g.stack, id)
}

// pushInt opens an integer ID scope (imgui.PushIDInt).
func (g *widgets) pushInt(id int) {
	imgui.PushIDInt(id)
	g.stack = append(g.stack, fmt.Sprint("#", id))
}

// pop closes the innermost ID scope.
func (g *widgets) pop() {
	imgui.PopID()
	g.stack = g.stack[:len(g.stack)-1]
}

// record notes the item just submitted.
func (g *widgets) record(kind, label string) {
	path := strings.Join(append(g.stack, idPart(label)), "/")
	it := Item{Path: path, Label: shown(label), Kind: kind, Min: imgui.ItemRectMin(), Max: imgui.ItemRectMax(),
		Visible: imgui.IsItemVisible(), Clip: g.clip, Disabled: g.disabled}
	if _, dup := g.seen[path]; dup {
		g.dups = append(g.dups, path)
		if g.onDup != nil {
			g.onDup(path)
		}
	}
	g.seen[path] = len(g.items)
	g.items = append(g.items, it)
}

// beginDisabled greys the widgets up to endDisabled and makes them take no input, if disabled; they
// keep their place, so nothing below them moves. (Dear ImGui 1.85's BeginDisabled, which imgui-go
// leaves out: the disabled item flag, and the style's alpha halved.)
func (g *widgets) beginDisabled(disabled bool) {
	if disabled {
		imgui.PushItemFlag(imgui.ItemFlagsDisabled, true)
		imgui.PushStyleVarFloat(imgui.StyleVarAlpha, imgui.CurrentStyle().Alpha()*0.5)
	}
	g.disabled = disabled
}

// endDisabled closes beginDisabled.
func (g *widgets) endDisabled() {
	if g.disabled {
		imgui.PopStyleVar()
		imgui.PopItemFlag()
	}
	g.disabled = false
}

// text draws a line of text, recorded as an item (its label the text) so that a test can read what
// the panel says.
func (g *widgets) text(s string) {
	imgui.Text(s)
	g.record("text", s+"###text")
}

func (g *widgets) button(label string) bool {
	r := imgui.Button(label)
	g.record("button", label)
	return r
}

func (g *widgets) checkbox(label string, v *bool) bool {
	r := imgui.Checkbox(label, v)
	g.record("checkbox", label)
	return r
}

func (g *widgets) sliderInt(label string, v *int32, lo, hi int32) bool {
	r := imgui.SliderInt(label, v, lo, hi)
	g.record("slider", label)
	return r
}

func (g *widgets) sliderFloat(label string, v *float32, lo, hi float32) bool {
	r := imgui.SliderFloat(label, v, lo, hi)
	g.record("slider", label)
	return r
}

func (g *widgets) sliderFloatV(label string, v *float32, lo, hi float32, format string, flags imgui.SliderFlags) bool {
	r := imgui.SliderFloatV(label, v, lo, hi, format, flags)
	g.record("slider", label)
	return r
}

func (g *widgets) dragFloat(label string, v *float32, speed, lo, hi float32, format string) bool {
	r := imgui.DragFloatV(label, v, speed, lo, hi, format, 0)
	g.record("drag", label)
	return r
}

func (g *widgets) dragFloat2(label string, v *[2]float32, speed, lo, hi float32, format string) bool {
	r := imgui.DragFloat2V(label, v, speed, lo, hi, format, 0)
	g.record("drag", label)
	return r
}

func (g *widgets) dragFloat3(label string, v *[3]float32, speed, lo, hi float32, format string) bool {
	r := imgui.DragFloat3V(label, v, speed, lo, hi, format, 0)
	g.record("drag", label)
	return r
}

func (g *widgets) inputText(label string, v *string) bool {
	r := imgui.InputText(label, v)
	g.record("input", label)
	return r
}

func (g *widgets) selectable(label string, selected bool) bool {
	r := imgui.SelectableV(label, selected, 0, imgui.Vec2{})
	g.record("selectable", label)
	return r
}

// header is a collapsing header (imgui.CollapsingHeaderV).
func (g *widgets) header(label string, flags imgui.TreeNodeFlags) bool {
	r := imgui.CollapsingHeaderV(label, flags)
	g.record("header", label)
	return r
}

// combo is a combo box whose options are recorded as items of their own ("label/option"), so tests
// can open it and click an option. It returns whether the user picked an option.
func (g *widgets) combo(label string, cur *int32, options []string) bool {
	return g.comboGreyed(label, cur, options, nil)
}

// comboGreyed is combo with some options greyed out: where greyed[i] is not "", option i cannot be
// picked and greyed[i], the reason, is its tooltip. greyed may be shorter than options, or nil.
func (g *widgets) comboGreyed(label string, cur *int32, options, greyed []string) bool {
	preview := ""
	if *cur >= 0 && int(*cur) < len(options) {
		preview = options[*cur]
	}
	at, width, height := imgui.CursorScreenPos(), imgui.CalcItemWidth(), imgui.FrameHeight()
	open := imgui.BeginCombo(label, preview)
	g.record("combo", label)
	if !open {
		return false
	}
	// Open, the last item is the popup's window: the combo's own box is where it was placed, so a
	// click on it (which closes the popup) lands on the combo.
	it := &g.items[len(g.items)-1]
	it.Min, it.Max = at, imgui.Vec2{X: at.X + width, Y: at.Y + height}
	it.Visible = it.Max.Y > it.Clip[0].Y && it.Min.Y < it.Clip[1].Y
	picked := false
	g.push(idPart(label))
	save := g.clip
	p, s := imgui.WindowPos(), imgui.WindowSize() // the popup's window
	g.clip = [2]imgui.Vec2{p, {X: p.X + s.X, Y: p.Y + s.Y}}
	for i, o := range options {
		why := ""
		if i < len(greyed) {
			why = greyed[i]
		}
		var flags imgui.SelectableFlags
		if why != "" {
			flags = imgui.SelectableFlagsDisabled
		}
		g.pushInt(i)
		if imgui.SelectableV(o, int32(i) == *cur, flags, imgui.Vec2{}) && why == "" {
			*cur, picked = int32(i), true
		}
		if why != "" && imgui.IsItemHoveredV(imgui.HoveredFlagsAllowWhenDisabled) {
			imgui.SetTooltip(why)
		}
		g.record("option", o)
		g.items[len(g.items)-1].Greyed = why
		g.pop()
	}
	g.clip = save
	g.pop()
	imgui.EndCombo()
	return picked
}

// find returns the last frame's item whose path ends with suffix (a label, or "section/label" to tell
// two of one label apart), and how many match (one, unless none or several do).
func (g *widgets) find(suffix string) (Item, int) {
	var it Item
	n := 0
	for _, x := range g.items {
		if x.Path == suffix || strings.HasSuffix(x.Path, "/"+suffix) {
			it = x
			n++
		}
	}
	return it, n
}

// beginTable opens a table (imgui.BeginTableV), which is an ID scope of its own (and, scrolling, a
// window of its own).
func (g *widgets) beginTable(id string, columns int, flags imgui.TableFlags, size imgui.Vec2) bool {
	if !imgui.BeginTableV(id, columns, flags, size, 0) {
		return false
	}
	g.stack = append(g.stack, idPart(id))
	g.enterClip()
	imgui.PushTextWrapPosV(-1) // a cell's text stays on one line
	return true
}

// endTable closes the table begun by beginTable (only when that returned true).
func (g *widgets) endTable() {
	imgui.PopTextWrapPos()
	imgui.EndTable()
	g.stack = g.stack[:len(g.stack)-1]
	g.leaveClip()
}

// beginChild opens a child region (imgui.BeginChildV) with a scroll of its own: a window whose ID
// scope is inside the current one.
func (g *widgets) beginChild(id string, size imgui.Vec2, border bool) {
	imgui.BeginChildV(id, size, border, 0)
	g.stack = append(g.stack, idPart(id))
	g.enterClip()
}

// endChild closes the region begun by beginChild.
func (g *widgets) endChild() {
	imgui.EndChild()
	g.stack = g.stack[:len(g.stack)-1]
	g.leaveClip()
}

// enterClip makes the current window's visible region, within the enclosing one, the items' clip.
func (g *widgets) enterClip() {
	g.clips = append(g.clips, g.clip)
	p, s := imgui.WindowPos(), imgui.WindowSize()
	g.clip = [2]imgui.Vec2{{X: max(p.X, g.clip[0].X), Y: max(p.Y, g.clip[0].Y)},
		{X: min(p.X+s.X, g.clip[1].X), Y: min(p.Y+s.Y, g.clip[1].Y)}}
}

func (g *widgets) leaveClip() {
	g.clip = g.clips[len(g.clips)-1]
	g.clips = g.clips[:len(g.clips)-1]
}

// treeNode is a tree node (imgui.TreeNode): when it returns true its contents follow in its ID scope,
// closed by treePop.
func (g *widgets) treeNode(label string) bool {
	open := imgui.TreeNode(label)
	g.record("header", label)
	if open {
		g.stack = append(g.stack, idPart(label))
	}
	return open
}

// treePop closes an open tree node.
func (g *widgets) treePop() {
	imgui.TreePop()
	g.stack = g.stack[:len(g.stack)-1]
}

// treeRow is one row of a flattened tree (imgui.TreeNodeV without a tree push: its children are rows
// of their own), open or closed as the caller keeps it. It reports whether the arrow was clicked
// (toggled) and whether the row was clicked elsewhere.
func (g *widgets) treeRow(label string, flags imgui.TreeNodeFlags, open bool) (toggled, clicked bool) {
	imgui.SetNextItemOpen(open, imgui.ConditionAlways)
	imgui.TreeNodeV(label, flags|imgui.TreeNodeFlagsNoTreePushOnOpen)
	toggled = imgui.IsItemToggledOpen()
	clicked = imgui.IsItemClicked() && !toggled
	g.record("row", label)
	return toggled, clicked
}

// sameLine puts the next widget (a button or a checkbox with this label) on the current line if it
// fits inside the window, and on a new line if not: a narrow panel wraps rather than cuts widgets off.
func (g *widgets) sameLine(kind, label string) {
	if len(g.items) == 0 {
		return
	}
	st := imgui.CurrentStyle()
	w := imgui.CalcTextSize(label, true, 0).X
	if kind == "checkbox" {
		w += imgui.FrameHeight() + st.ItemInnerSpacing().X
	} else {
		w += 2 * st.FramePadding().X
	}
	right := imgui.WindowPos().X + imgui.WindowContentRegionMax().X
	if g.items[len(g.items)-1].Max.X+st.ItemSpacing().X+w <= right {
		imgui.SameLine()
	}
}
