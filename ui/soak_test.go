package ui

import (
	"math/rand/v2"
	"testing"

	"github.com/go-gl/glfw/v3.3/glfw"

	"tumble/scenes"
	"tumble/sim"
	"tumble/ui/command"
)

// Every combination of open and closed sections (512), reached by clicking one header at a time in
// Gray-code order: each frame's IDs are unique (drive fails otherwise) and each header is as clicked.
func TestEveryCombinationOfOpenSections(t *testing.T) {
	d := drive(t, Options{Scene: "door", NoShadows: true, Setup: func(a *App) {
		a.panel.joint.selected = 0
		a.S.View(func(w *sim.World) { a.Selected, _ = w.Find("door") })
	}})
	for _, s := range sections { // start from all closed
		d.open(s.label, false)
	}
	n := len(sections)
	for i := 1; i < 1<<n; i++ {
		code, prev := i^(i>>1), (i-1)^((i-1)>>1)
		bit := 0
		for (code^prev)>>bit != 1 {
			bit++
		}
		s := sections[bit]
		d.open(s.label, code&(1<<bit) != 0)
		for k, s := range sections {
			if got, want := d.a.panel.openNow[s.name], code&(1<<k) != 0; got != want {
				t.Fatalf("combination %08b: %s open %v", code, s.label, got)
			}
		}
	}
}

// A few thousand random clicks, drags, wheel turns, keys and characters over the whole window, on
// several presets: the app must not panic, and no frame may submit an ID twice.
func TestRandomInputSoakEndsWithoutAPanic(t *testing.T) {
	t.Chdir(t.TempDir()) // a random click on Save writes here
	keys := []glfw.Key{glfw.KeySpace, glfw.KeyN, glfw.KeyR, glfw.KeyDelete, glfw.KeyB, glfw.KeyF, glfw.KeyC, glfw.KeyW,
		glfw.KeyEscape, glfw.KeyF1, glfw.KeyTab, glfw.KeyEnter, glfw.KeyBackspace, glfw.KeyLeft, glfw.KeyRight,
		glfw.KeyUp, glfw.KeyDown, glfw.KeyA, glfw.KeyHome, glfw.KeyEnd, glfw.KeyPageDown}
	events := 0
	for _, preset := range []string{"pyramid20", "door", "ragdoll", "mixed"} {
		rng := rand.New(rand.NewPCG(7, uint64(len(preset))))
		d := drive(t, Options{Scene: preset, Width: 1024, Height: 720, Open: SectionNames, NoShadows: true})
		for range 600 {
			x, y := rng.Float64()*1024, rng.Float64()*720
			switch r := rng.IntN(100); {
			case r < 55:
				d.move(x, y)
				d.press(glfw.MouseButton(rng.IntN(3)))
				d.release(glfw.MouseButton(rng.IntN(3)))
				d.release(glfw.MouseButtonLeft)
				d.release(glfw.MouseButtonRight)
				d.release(glfw.MouseButtonMiddle)
			case r < 65:
				d.move(x, y)
				d.press(glfw.MouseButtonLeft)
				d.move(x+rng.NormFloat64()*40, y+rng.NormFloat64()*40)
				d.release(glfw.MouseButtonLeft)
			case r < 72:
				d.move(x, y)
				d.wheel(float64(rng.IntN(5) - 2))
			case r < 92:
				d.tap(keys[rng.IntN(len(keys))])
			default:
				d.typeText(string(rune('0' + rng.IntN(10))))
			}
			events++
			d.frames(1)
			// Keep the soak on small scenes: a random click may load a big one or spawn thousands.
			var n int
			d.world(func(w *sim.World) { n = w.Bodies.Len() })
			if n > 1500 || d.a.S.BackendKind() != command.BackendCPU {
				d.a.S.Do(command.UseBackend(command.BackendCPU))
				d.a.S.Do(command.LoadPreset(preset))
			}
		}
		d.settle()
	}
	t.Logf("%d random events", events)
}

// Every preset loads by a click in the scene browser (a heavy one on software GL only after its
// warning, which this test cancels).
func TestLoadingEveryPresetFromTheBrowser(t *testing.T) {
	d := drive(t, Options{Scene: "stack"})
	for _, info := range scenes.Catalog() {
		d.click("presets/###" + info.Name)
		if info.Heavy && d.a.softwareGL() {
			if d.a.S.Name() == info.Name {
				t.Errorf("%s loaded without its warning", info.Name)
			}
			d.click("scene/Cancel")
			continue
		}
		if d.a.S.Name() != info.Name {
			t.Errorf("clicked %s, scene is %s: %s", info.Name, d.a.S.Name(), d.a.panel.message)
		}
	}
}
