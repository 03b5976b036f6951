package ui

import (
	"fmt"
	"strings"
	"testing"

	"tumble/sim"
	"tumble/sim/geom"
	"tumble/ui/command"
)

// On the emulated CUDA backend, which runs no cylinders or compounds, the Spawn section's cylinder,
// table, chair and dumbbell entries are greyed with the reason, and clicking one picks nothing; the
// shapes it runs, the rock and the bunny among them, are picked as before.
// Back on the CPU backend, the rock is picked and spawned.
func TestSpawnGreysTheShapesTheBackendDoesNotRun(t *testing.T) {
	d := drive(t, Options{Scene: "stack", Backend: command.BackendEmulated, Open: []string{"spawn", "simulation"}})
	if d.a.S.BackendKind() != command.BackendEmulated {
		t.Fatalf("on %q, want emu: %s", d.a.S.BackendKind(), d.a.panel.message)
	}
	d.click("Tumble/###play") // paused: the emulator's steps are slow
	kind := func() string { return spawnKinds[d.a.panel.spawn.Kind].name }
	d.choose("spawn/shape", "sphere")
	if kind() != "sphere" {
		t.Fatalf("the shape is %q after choosing sphere on emu", kind())
	}
	for _, name := range []string{"cylinder", "table"} {
		d.choose("spawn/shape", name)
		if kind() != "sphere" {
			t.Errorf("clicking the greyed %s picked %q", name, kind())
		}
		// The popup stays open after a click on a greyed entry: each entry says whether it is greyed.
		for i, k := range spawnKinds {
			it := d.find(fmt.Sprintf("spawn/shape/#%d/%s", i, k.name))
			want := ""
			if k.kind == geom.Compound {
				want = "a " + k.name + " is a " + k.kind.String() + " shape, which the CUDA backend does not run; switch the backend to cpu"
			}
			if k.name == "cylinder" {
				want = "a cylinder is a cylinder shape, which the CUDA backend does not run; switch the backend to cpu"
			}
			if it.Greyed != want {
				t.Errorf("%s on emu: greyed %q, want %q", k.name, it.Greyed, want)
			}
		}
		d.click("spawn/shape") // closes the popup
		if d.has("spawn/shape/#0/box") {
			t.Fatal("the shape popup is still open")
		}
	}
	for _, name := range []string{"rock", "bunny"} {
		d.choose("spawn/shape", name)
		if kind() != name {
			t.Errorf("the shape is %q after choosing %s on emu", kind(), name)
		}
	}
	d.choose("simulation/backend", "cpu")
	if d.a.S.BackendKind() != command.BackendCPU {
		t.Fatalf("on %q after choosing cpu: %s", d.a.S.BackendKind(), d.a.panel.message)
	}
	d.choose("spawn/shape", "rock")
	if kind() != "rock" {
		t.Fatalf("the shape is %q after choosing rock on the CPU", kind())
	}
	var before, after int
	d.world(func(w *sim.World) { before = w.Bodies.Len() })
	d.click("spawn/Spawn")
	d.world(func(w *sim.World) { after = w.Bodies.Len() })
	if after <= before {
		t.Errorf("%d bodies after spawning rocks on the CPU, %d before: %s", after, before, d.a.panel.message)
	}
}

// Switching the backend to the emulated one with the furniture preset loaded is refused: the status
// line names the backend once, the compound and the shapes the backend runs, the world stays on the CPU
// backend with sleeping on, and it steps on.
func TestSwitchingToABackendThatDoesNotRunTheScenesShapesSaysWhyAndKeepsTheCPU(t *testing.T) {
	d := drive(t, Options{Scene: "furniture", Open: []string{"simulation"}})
	var steps int
	d.world(func(w *sim.World) { steps = w.StepCount })
	d.choose("simulation/backend", command.BackendLabel(command.BackendEmulated))
	msg := d.a.panel.message
	if d.a.S.BackendKind() != command.BackendCPU || !d.a.panel.isErr ||
		!strings.Contains(msg, `body "table0" is a compound: the CUDA backend runs box, sphere, capsule, plane, hull and mesh shapes`) ||
		strings.Count(msg, "emu") != 1 { // the backend named once, not once by the panel and again by the command
		t.Errorf("on %q after choosing emu with furniture loaded; status %q (error %v)", d.a.S.BackendKind(), msg, d.a.panel.isErr)
	}
	d.frames(3)
	d.world(func(w *sim.World) {
		if w.Backend() != nil || !w.Settings().Sleep || w.StepCount <= steps {
			t.Errorf("after the refusal: backend %v, sleeping %v, step %d (was %d)", w.Backend(), w.Settings().Sleep, w.StepCount, steps)
		}
	})
}
