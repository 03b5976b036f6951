package ui

import (
	"fmt"
	"slices"
	"sort"
	"strconv"
	"strings"
	"sync"
	"testing"

	"github.com/go-gl/glfw/v3.3/glfw"
	"github.com/inkyblackness/imgui-go/v4"

	"tumble/sim"
)

// The real-input harness: the app runs in a visible window on the (virtual) display, frame by frame
// as its loop runs it, and the test moves the mouse, presses and releases buttons and keys and types
// through the functions GLFW's callbacks call (onCursorPos, onMouseButton, onKey, onChar, onScroll).
// Widgets are found by label in the rectangles the panel recorded the frame before (see widgets), so
// a click lands where a user's would, and a widget that does not react to it fails the test.

// driver is one app under test.
type driver struct {
	t        *testing.T
	a        *App
	closeAll func()
	x, y     float64
}

// driven records every widget path a test has acted on, and seen every widget path a frame showed, so
// TestEveryControlIsDrivenByRealInput can tell which controls no test touches.
var (
	coverMu sync.Mutex
	driven  = map[string]bool{}
	seen    = map[string]string{} // generic path -> kind
)

// generic replaces a path's row numbers ("#12") with "#*": one row stands for all.
func generic(path string) string {
	parts := strings.Split(path, "/")
	for i, p := range parts {
		if strings.HasPrefix(p, "#") {
			if _, err := strconv.Atoi(p[1:]); err == nil {
				parts[i] = "#*"
			}
		}
	}
	return strings.Join(parts, "/")
}

// drive opens the app in a window of the options' size (default 1280 x 800) and draws two frames.
func drive(t *testing.T, opt Options) *driver {
	t.Helper()
	needDisplay(t)
	if opt.Width == 0 {
		opt.Width, opt.Height = 1280, 800
	}
	d := &driver{t: t}
	var err error
	opt = withBackends(opt)
	onMain(func() { d.a, d.closeAll, err = start(opt) })
	if err != nil {
		t.Fatal(err)
	}
	t.Cleanup(func() { onMain(d.closeAll) })
	d.frames(2)
	return d
}

// frames runs n frames of the window loop; each takes one simulation step first unless paused, as
// the real loop does in real time. A panic or a frame that submits one ImGui ID twice fails the test.
func (d *driver) frames(n int) {
	d.t.Helper()
	for range n {
		var dups []string
		var perr any
		onMain(func() {
			defer func() { perr = recover() }()
			d.a.S.Advance(0, d.a.S.Dt())
			d.a.runFrame()
			dups = append(dups, d.a.w.dups...)
			coverMu.Lock()
			for _, it := range d.a.w.items {
				seen[generic(it.Path)] = it.Kind
			}
			coverMu.Unlock()
		})
		if perr != nil {
			d.t.Fatalf("a frame panicked: %v", perr)
		}
		if len(dups) > 0 {
			d.t.Fatalf("one frame submitted these ImGui IDs twice: %v", dups)
		}
	}
}

// settle runs frames until the input queue is empty (the trickle spreads events over frames), then
// one more so the last event's effect is drawn.
func (d *driver) settle() {
	d.t.Helper()
	for k := 0; k < 50 && d.a.in.pending() > 0; k++ {
		d.frames(1)
	}
	d.frames(1)
}

func (d *driver) move(x, y float64) {
	d.x, d.y = x, y
	d.a.onCursorPos(x, y)
}

func (d *driver) press(b glfw.MouseButton)   { d.a.onMouseButton(b, glfw.Press, 0) }
func (d *driver) release(b glfw.MouseButton) { d.a.onMouseButton(b, glfw.Release, 0) }

// tap presses and releases a key at once: shorter than a frame, as a quick typist's.
func (d *driver) tap(k glfw.Key) {
	d.a.onKey(k, glfw.Press, 0)
	d.a.onKey(k, glfw.Release, 0)
}

func (d *driver) typeText(s string) {
	for _, r := range s {
		d.a.onChar(r)
	}
}

// wheel scrolls dy notches (positive: up) where the mouse is.
func (d *driver) wheel(dy float64) { d.a.onScroll(0, dy) }

// find returns the widget whose path ends with suffix in the last frame, failing unless exactly one.
func (d *driver) find(suffix string) Item {
	d.t.Helper()
	it, n := d.a.w.find(suffix)
	if n != 1 {
		var near []string
		for _, x := range d.a.w.items {
			if strings.Contains(strings.ToLower(x.Path), strings.ToLower(lastPart(suffix))) {
				near = append(near, x.Path)
			}
		}
		d.t.Fatalf("%d widgets match %q (near: %v)", n, suffix, near)
	}
	return it
}

func lastPart(s string) string {
	if i := strings.LastIndex(s, "/"); i >= 0 {
		return s[i+1:]
	}
	return s
}

// has reports whether a widget matching suffix was in the last frame.
func (d *driver) has(suffix string) bool {
	_, n := d.a.w.find(suffix)
	return n > 0
}

// reveal scrolls the panel (or a table) with the mouse wheel until the widget is inside its window's
// visible region, and returns it as it now is.
func (d *driver) reveal(suffix string) Item {
	d.t.Helper()
	missing, stuck := 0, 0
	lastY := float32(0)
	for range 60 {
		if _, n := d.a.w.find(suffix); n == 0 && missing < 40 {
			// Not submitted this frame: a table scrolled wholly out of its window submits nothing (and
			// how far down it sits depends on text above it that wraps, such as a status line). Wheel
			// the panel's sections down, then up, until it is.
			missing++
			d.move(float64(d.a.opt.Width)-10, float64(d.a.opt.Height)*0.7)
			if missing <= 20 {
				d.wheel(-1)
			} else {
				d.wheel(1)
			}
			d.settle()
			continue
		}
		it := d.find(suffix)
		top, bottom := it.Clip[0].Y, it.Clip[1].Y
		if it.Visible && it.Min.Y >= top-1 && it.Max.Y <= bottom+1 {
			return it
		}
		// The wheel over the item's own window, at its right edge (its scroll bar), so that no region
		// nested in it (the preset list) takes the wheel instead; if that window is scrolled to its end
		// and the item is still out of view (the window itself is half out of the panel's), over the
		// panel's own scroll bar.
		x := float64(it.Clip[1].X - 4)
		y := float64(min(max(it.Min.Y, top+4), bottom-4))
		if stuck > 0 && it.Min.Y == lastY {
			x, y = float64(d.a.opt.Width)-14, float64(d.a.opt.Height)/2 // the sections' scroll bar
		}
		stuck, lastY = stuck+1, it.Min.Y
		d.move(x, y)
		if it.Min.Y < top {
			d.wheel(1)
		} else {
			d.wheel(-1)
		}
		d.settle()
	}
	d.t.Fatalf("could not scroll %q into view", suffix)
	return Item{}
}

// mark notes that a test acted on the widget.
func mark(it Item) {
	coverMu.Lock()
	driven[generic(it.Path)] = true
	coverMu.Unlock()
}

// click moves to the widget's centre (or the fraction fx of its width) and clicks it.
func (d *driver) click(suffix string) Item {
	d.t.Helper()
	return d.clickAt(suffix, 0.5)
}

func (d *driver) clickAt(suffix string, fx float32) Item {
	d.t.Helper()
	it := d.reveal(suffix)
	mark(it)
	_, cy := it.Centre()
	x := it.Min.X + fx*(it.Max.X-it.Min.X)
	if it.Kind == "checkbox" {
		x = it.Min.X + (it.Max.Y-it.Min.Y)/2 // the box itself, left of the label
	}
	d.move(float64(x), float64(cy))
	d.frames(1) // hover first, as a hand does
	d.press(glfw.MouseButtonLeft)
	d.frames(1)
	d.release(glfw.MouseButtonLeft)
	d.settle()
	return it
}

// fieldX is the x of the first (or k-th of n) input frame of a slider or drag: left of the label.
func (d *driver) fieldX(it Item, k, n int) float64 {
	label := float32(len(it.Label)*7 + 8)
	w := max(it.Max.X-it.Min.X-label, 20)
	part := w / float32(n)
	return float64(it.Min.X + part*(float32(k)+0.5))
}

// setText ctrl+clicks the k-th of n fields of a slider or drag, which turns it into a text field,
// selects all, types s and presses Enter: how a user enters an exact number.
func (d *driver) setText(suffix string, k, n int, s string) {
	d.t.Helper()
	it := d.reveal(suffix)
	mark(it)
	_, cy := it.Centre()
	d.move(d.fieldX(it, k, n), float64(cy))
	d.frames(1)
	d.a.onKey(glfw.KeyLeftControl, glfw.Press, glfw.ModControl)
	d.frames(1)
	d.press(glfw.MouseButtonLeft)
	d.frames(1)
	d.release(glfw.MouseButtonLeft)
	d.a.onKey(glfw.KeyLeftControl, glfw.Release, 0)
	d.settle()
	d.selectAllAndType(s)
}

// selectAllAndType replaces the focused text field's content with s and presses Enter.
func (d *driver) selectAllAndType(s string) {
	d.a.onKey(glfw.KeyLeftControl, glfw.Press, glfw.ModControl)
	d.frames(1)
	d.tap(glfw.KeyA)
	d.frames(1)
	d.a.onKey(glfw.KeyLeftControl, glfw.Release, 0)
	d.frames(1)
	d.typeText(s)
	d.frames(1)
	d.tap(glfw.KeyEnter)
	d.settle()
}

// typeInto clicks a text input, replaces its text with s and presses Enter.
func (d *driver) typeInto(suffix, s string) {
	d.t.Helper()
	d.click(suffix)
	d.selectAllAndType(s)
}

// drag presses on the widget's k-th of n fields, moves by dx pixels in steps, and releases.
func (d *driver) drag(suffix string, k, n int, dx float64) {
	d.t.Helper()
	it := d.reveal(suffix)
	mark(it)
	_, cy := it.Centre()
	x := d.fieldX(it, k, n)
	d.move(x, float64(cy))
	d.frames(1)
	d.press(glfw.MouseButtonLeft)
	d.frames(1)
	for s := 1; s <= 4; s++ {
		d.move(x+dx*float64(s)/4, float64(cy))
		d.frames(1)
	}
	d.release(glfw.MouseButtonLeft)
	d.settle()
}

// choose opens a combo and clicks one of its options.
func (d *driver) choose(combo, option string) {
	d.t.Helper()
	d.click(combo)
	it := d.a.w.items
	var path string
	for _, x := range it {
		if x.Kind == "option" && strings.HasSuffix(x.Path, "/"+option) && strings.Contains(x.Path, "/"+lastPart(combo)+"/") {
			path = x.Path
		}
	}
	if path == "" {
		d.t.Fatalf("combo %q: no option %q open", combo, option)
	}
	d.click(path)
}

// open opens (or closes) a panel section by clicking its header if it is not already so.
func (d *driver) open(label string, want bool) {
	d.t.Helper()
	name := sectionName(label)
	if d.a.panel.openNow[name] != want {
		d.click("sections/" + label)
	}
	if d.a.panel.openNow[name] != want {
		d.t.Fatalf("section %s: open %v after a click, want %v", label, d.a.panel.openNow[name], want)
	}
}

func sectionName(label string) string {
	for _, s := range sections {
		if s.label == label {
			return s.name
		}
	}
	return label
}

// world runs f on the session's world.
func (d *driver) world(f func(w *sim.World)) { d.a.S.View(f) }

// clickView clicks the 3D view at the pixel (x, y).
func (d *driver) clickView(x, y float32) {
	d.move(float64(x), float64(y))
	d.frames(1)
	d.press(glfw.MouseButtonLeft)
	d.frames(1)
	d.release(glfw.MouseButtonLeft)
	d.settle()
}

// clickBody clicks the named body where the camera shows it.
func (d *driver) clickBody(name string) {
	d.t.Helper()
	var p sim.Vec3
	found := false
	d.world(func(w *sim.World) {
		if h, ok := w.Find(name); ok {
			i, _ := w.Index(h)
			p, found = w.Bodies.Position[i], true
		}
	})
	if !found {
		d.t.Fatalf("no body %q", name)
	}
	vw, vh := d.a.viewport()
	x, y, ok := d.a.Cam.Project(p, vw, vh)
	if !ok {
		d.t.Fatalf("%s is not in view", name)
	}
	d.clickView(x, y)
}

// uncovered lists the widgets some frame showed that no test acted on.
func uncovered() []string {
	coverMu.Lock()
	defer coverMu.Unlock()
	var out []string
	for p, kind := range seen {
		if kind == "option" || kind == "cell" || kind == "text" || driven[p] { // text is read, not acted on
			continue
		}
		out = append(out, fmt.Sprintf("%s (%s)", p, kind))
	}
	sort.Strings(out)
	return slices.Compact(out)
}

// imguiIO is the current ImGui context's IO (on the main thread).
func imguiIO() imgui.IO { return imgui.CurrentIO() }
