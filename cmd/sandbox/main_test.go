package main

import (
	"bytes"
	"encoding/csv"
	"errors"
	"os"
	"path/filepath"
	"reflect"
	"strconv"
	"strings"
	"testing"

	"tumble/scenes"
	"tumble/sim"
)

// sandbox runs the program in-process.
func sandbox(args ...string) (code int, stdout, stderr string) {
	var out, errb bytes.Buffer
	code = run(args, &out, &errb)
	return code, out.String(), errb.String()
}

// contractScene is the contract checker's scene: every shape and body type, and a joint.
const contractScene = `{"name": "contract", "gravity": [0, -9.81, 0], "dt": 0.01,
 "bodies": [{"name": "floor", "type": "static", "shape": {"type": "plane", "normal": [0, 1, 0], "offset": 0}},
  {"name": "cube", "shape": {"type": "box", "halfExtents": [0.5, 0.5, 0.5]}, "position": [0, 2, 0], "mass": 2},
  {"name": "ball", "shape": {"type": "sphere", "radius": 0.25}, "position": [3, 1, 0], "rotation": [0, 0, 0.7071068, 0.7071068]},
  {"name": "pill, the", "shape": {"type": "capsule", "radius": 0.2, "halfHeight": 0.5}, "position": [-3, 1, 0], "velocity": [1, 0, 0]},
  {"name": "lift", "type": "kinematic", "shape": {"type": "box", "halfExtents": [1, 0.1, 1]}, "position": [0, 0.5, 5], "velocity": [0, 0.5, 0]}],
 "joints": [{"type": "ball", "bodyA": "ball", "anchor": [3, 2, 0]}]}`

func writeFile(t *testing.T, name, text string) string {
	t.Helper()
	p := filepath.Join(t.TempDir(), name)
	if err := os.WriteFile(p, []byte(text), 0o644); err != nil {
		t.Fatal(err)
	}
	return p
}

func readTrace(t *testing.T, path string) [][]string {
	t.Helper()
	f, err := os.Open(path)
	if err != nil {
		t.Fatal(err)
	}
	defer f.Close()
	rows, err := csv.NewReader(f).ReadAll()
	if err != nil {
		t.Fatal(err)
	}
	return rows
}

func tracedSteps(rows [][]string) []int {
	var steps []int
	for _, r := range rows[1:] {
		s, _ := strconv.Atoi(r[0])
		if len(steps) == 0 || steps[len(steps)-1] != s {
			steps = append(steps, s)
		}
	}
	return steps
}

// The window app without a display, and a -frames run told to use GLFW (-gl glfw): one line, the
// headless commands, exit 2. (A -frames run in auto mode renders through EGL instead: egl_test.go.)
func TestNoDisplaySaysSoInOneLineAndShowsTheHeadlessCommands(t *testing.T) {
	t.Setenv("DISPLAY", "")
	t.Setenv("WAYLAND_DISPLAY", "")
	t.Setenv("TUMBLE_GL", "")
	for _, args := range [][]string{nil, {"-scene", "stack"}, {"-gl", "glfw", "-scene", "stack", "-frames", "2", "-screenshot", "x.png"}} {
		code, out, errs := sandbox(args...)
		first, _, _ := strings.Cut(errs, "\n")
		if code != 2 || out != "" || !strings.Contains(first, "no display") ||
			!strings.Contains(errs, "sandbox run -scene") || !strings.Contains(errs, "xvfb-run") {
			t.Errorf("%v: code %d, stderr %q", args, code, errs)
		}
	}
}

func TestScreenshotFlagsGoTogether(t *testing.T) {
	for _, args := range [][]string{{"-frames", "3"}, {"-screenshot", "x.png"}, {"-video", "x.gif"}} {
		if code, _, errs := sandbox(args...); code != 2 || !strings.Contains(errs, "go together") {
			t.Errorf("%v: code %d, stderr %q", args, code, errs)
		}
	}
}

func TestUnknownCommandIsAUsageError(t *testing.T) {
	if code, _, errs := sandbox("fly"); code != 2 || !strings.HasPrefix(errs, "sandbox: unknown command") {
		t.Errorf("code %d, stderr %q", code, errs)
	}
	if code, out, _ := sandbox("help"); code != 0 || !strings.Contains(out, "sandbox bench") {
		t.Errorf("help: code %d", code)
	}
}

func TestRunTracesStepZeroEveryKthAndTheLastStep(t *testing.T) {
	scene := writeFile(t, "s.json", contractScene)
	for _, c := range []struct {
		steps, every int
		want         []int
	}{
		{7, 3, []int{0, 3, 6, 7}},
		{6, 3, []int{0, 3, 6}},
		{3, 1, []int{0, 1, 2, 3}},
		{0, 1, []int{0}},
		{2, 10, []int{0, 2}},
	} {
		trace := filepath.Join(t.TempDir(), "t.csv")
		code, _, errs := sandbox("run", "-scene", scene, "-steps", strconv.Itoa(c.steps), "-trace", trace,
			"-every", strconv.Itoa(c.every))
		if code != 0 {
			t.Fatalf("exit %d: %s", code, errs)
		}
		rows := readTrace(t, trace)
		if strings.Join(rows[0], ",") != "step,time,body,px,py,pz,qx,qy,qz,qw,vx,vy,vz,wx,wy,wz" {
			t.Fatalf("header %v", rows[0])
		}
		if got := tracedSteps(rows); !reflect.DeepEqual(got, c.want) {
			t.Errorf("steps %d every %d: traced %v, want %v", c.steps, c.every, got, c.want)
		}
		if len(rows)-1 != 5*len(c.want) {
			t.Errorf("%d rows for %d steps of 5 bodies", len(rows)-1, len(c.want))
		}
		for _, r := range rows[1:] {
			step, _ := strconv.Atoi(r[0])
			if tm, _ := strconv.ParseFloat(r[1], 64); tm != float64(step)*0.01 && r[1] != strconv.FormatFloat(float64(step)*0.01, 'g', 12, 64) {
				t.Errorf("step %d at time %s", step, r[1])
			}
		}
	}
}

func TestRunTraceStepZeroIsTheLoadedState(t *testing.T) {
	scene := writeFile(t, "s.json", contractScene)
	trace := filepath.Join(t.TempDir(), "t.csv")
	if code, _, errs := sandbox("run", "-scene", scene, "-steps", "1", "-trace", trace); code != 0 {
		t.Fatal(errs)
	}
	rows := readTrace(t, trace)
	want := map[string]string{
		"floor":     "0,0,floor,0,0,0,0,0,0,1,0,0,0,0,0,0",
		"cube":      "0,0,cube,0,2,0,0,0,0,1,0,0,0,0,0,0",
		"ball":      "0,0,ball,3,1,0,0,0,0.7071068,0.7071068,0,0,0,0,0,0",
		"pill, the": "0,0,pill, the,-3,1,0,0,0,0,1,1,0,0,0,0,0",
		"lift":      "0,0,lift,0,0.5,5,0,0,0,1,0,0.5,0,0,0,0",
	}
	for _, r := range rows[1:6] {
		if got := strings.Join(r, ","); got != want[r[2]] {
			t.Errorf("got  %s\nwant %s", got, want[r[2]])
		}
	}
	// The name with a comma is quoted in the file itself.
	raw, _ := os.ReadFile(trace)
	if !strings.Contains(string(raw), `,"pill, the",`) {
		t.Error("name with a comma not quoted")
	}
}

func TestRunNotesCUDA(t *testing.T) {
	scene := writeFile(t, "s.json", contractScene)
	code, out, errs := sandbox("run", "-scene", scene, "-steps", "2", "-backend", "cuda")
	if code != 0 || !strings.Contains(errs, "built without CUDA; running on the CPU") ||
		strings.Contains(errs, "not simulated") || !strings.Contains(out, "2 steps") {
		t.Errorf("code %d, stdout %q, stderr %q", code, out, errs)
	}
}

// A joint whose break force is exceeded is reported on stderr, one line, and the run goes on.
func TestRunReportsBrokenJoints(t *testing.T) {
	scene := writeFile(t, "s.json", `{"bodies": [{"name": "weight", "shape": {"type": "sphere", "radius": 0.1},
 "position": [0, 1, 0], "mass": 10}],
 "joints": [{"type": "ball", "bodyA": "weight", "anchor": [0, 1.2, 0], "breakForce": 50}]}`)
	code, out, errs := sandbox("run", "-scene", scene, "-steps", "10")
	if code != 0 || strings.Count(errs, "broke") != 1 ||
		!strings.Contains(errs, "step 1: joint 0 (ball, weight-world) broke: force") || !strings.Contains(out, "10 steps") {
		t.Errorf("code %d, stdout %q, stderr %q", code, out, errs)
	}
}

func TestRunTakesAPresetAndOverridesTheSolver(t *testing.T) {
	if code, out, errs := sandbox("run", "-scene", "stack", "-steps", "3", "-solver", "jacobi", "-workers", "2"); code != 0 ||
		!strings.HasPrefix(out, "stack: 21 bodies, 3 steps") {
		t.Errorf("code %d, %q %q", code, out, errs)
	}
	if code, out, errs := sandbox("run", "-scene", "pendulum", "-steps", "3", "-solver", "xpbd", "-iterations", "2",
		"-joint-damping", "3"); code != 0 || !strings.HasPrefix(out, "pendulum: 3 bodies, 3 steps") {
		t.Errorf("xpbd with its own settings: code %d, %q %q", code, out, errs)
	}
	if code, _, errs := sandbox("run", "-scene", "stack", "-steps", "3", "-solver", "newton"); code != 1 ||
		!strings.Contains(errs, "unknown solver") {
		t.Errorf("bad solver: code %d, %q", code, errs)
	}
}

func TestRunRefusesBadInputWithoutPanicking(t *testing.T) {
	bad := writeFile(t, "bad.json", `{"bodies": [{"name": "cube", "shape": {"type": "box", "halfExtents": [1, 0, 1]}}]}`)
	for _, c := range []struct {
		args []string
		code int
		msg  string
	}{
		{[]string{"run", "-scene", bad, "-steps", "1"}, 1, "bodies[0].shape.halfExtents[1]: must be > 0, got 0"},
		{[]string{"run", "-scene", "nosuch", "-steps", "1"}, 1, "presets: arm, bowling, bridge, bunny, car"},
		{[]string{"run", "-scene", "stack", "-steps", "1", "-backend", "metal"}, 1, "unknown backend"},
		{[]string{"run", "-scene", "stack", "-steps", "1", "-trace", "/nonexistent/dir/t.csv"}, 1, "sandbox: "},
		{[]string{"run", "-scene", "stack"}, 2, "-steps N is required"},
		{[]string{"run", "-steps", "1"}, 2, "-scene is required"},
		{[]string{"bench", "-scene", "stack", "-workers", "-1"}, 2, "-workers must be >= 0"},
		{[]string{"run", "-scene", "stack", "-steps", "1", "-every", "0"}, 2, "-every must be >= 1"},
		{[]string{"run", "-scene", "stack", "-steps", "1", "extra"}, 2, "unexpected argument"},
		{[]string{"run", "-bogus"}, 2, "flag provided but not defined"},
		{[]string{"bench", "-scene", bad}, 1, "must be > 0, got 0"},
		{[]string{"bench", "-scene", "stack", "-broadphase", "octree"}, 1, `unknown broad phase "octree"`},
		{[]string{"bench", "-scene", "stack", "-bvh-refit", "0.5"}, 2, "-bvh-refit must be 0 (the default) or in [1, 1000]"},
		{[]string{"run", "-scene", "stack", "-steps", "1", "-iterations", "-2"}, 2, `invalid value "-2" for flag -iterations: must be in [1, 1000]`},
		// A setting the solver does not read is refused, naming what it does read.
		{[]string{"run", "-scene", "stack", "-steps", "1", "-solver", "xpbd", "-contact-hertz", "60"}, 1,
			"-contact-hertz: the xpbd solver does not read it (the solvers that do: pgs, jacobi, shapematch), got 60"},
		{[]string{"run", "-scene", "stack", "-steps", "1", "-solver", "pgs", "-joint-damping", "2"}, 1,
			"-joint-damping: the pgs solver does not read it (the solvers that do: xpbd), got 2"},
	} {
		code, _, errs := sandbox(c.args...)
		if code != c.code || !strings.Contains(errs, c.msg) || strings.Contains(errs, "panic") {
			t.Errorf("%v: code %d, stderr %q", c.args, code, errs)
		}
	}
}

func TestRunStopsOnABlowUpNamingTheBody(t *testing.T) {
	old := stepWorld
	defer func() { stepWorld = old }()
	stepWorld = func(w *sim.World) error {
		if err := old(w); err != nil {
			return err
		}
		if w.StepCount == 3 {
			return &sim.BlowUpError{Body: "box2", Step: 3, What: "velocity"}
		}
		return nil
	}
	trace := filepath.Join(t.TempDir(), "t.csv")
	code, _, errs := sandbox("run", "-scene", "stack", "-steps", "10", "-trace", trace, "-every", "2")
	if code != 1 || !strings.Contains(errs, `"box2"`) || !strings.HasPrefix(errs, "sandbox: ") {
		t.Errorf("code %d, stderr %q", code, errs)
	}
	if got := tracedSteps(readTrace(t, trace)); !reflect.DeepEqual(got, []int{0, 2, 3}) {
		t.Errorf("traced %v, want the steps up to and including the failing one", got)
	}
	stepWorld = func(*sim.World) error { return errors.New("boom") }
	if code, _, errs := sandbox("bench", "-scene", "stack", "-steps", "5"); code != 1 || !strings.Contains(errs, "boom") {
		t.Errorf("bench: code %d, stderr %q", code, errs)
	}
}

func TestBenchPrintsEveryStageAndTheProtocolMedian(t *testing.T) {
	code, out, errs := sandbox("bench", "-scene", "tumbling", "-steps", "5")
	if code != 0 {
		t.Fatal(errs)
	}
	for _, want := range []string{"bounds", "broad", "narrow", "prepare", "solve", "integrate", "total (wall)",
		"mean ms/step", "median ms/step", "1 bodies", "pairs", "manifolds", "contacts"} {
		if !strings.Contains(out, want) {
			t.Errorf("no %q in\n%s", want, out)
		}
	}
	if strings.Contains(out, "steps 60..599") {
		t.Error("protocol median printed for 5 steps")
	}
	code, out, _ = sandbox("bench", "-scene", "tumbling", "-warmup", "2", "-workers", "1")
	if code != 0 || !strings.Contains(out, "median ms/step over steps 60..599: ") || !strings.Contains(out, "600 timed steps after 2") {
		t.Errorf("code %d\n%s", code, out)
	}
}

// bench breaks the broad stage down by LBVH stage, and says how often the broad phase ran (the resting
// stack queries once and keeps its pairs) and how often the tree was rebuilt; with another broad phase
// it names that one and prints no LBVH rows.
func TestBenchBreaksDownTheLBVH(t *testing.T) {
	code, out, errs := sandbox("bench", "-scene", "stack", "-steps", "4", "-bvh-refit", "1")
	if code != 0 {
		t.Fatal(errs)
	}
	for _, want := range []string{"broad phase lbvh", "  lbvh bounds", "  lbvh morton", "  lbvh sort", "  lbvh build",
		"  lbvh fit", "  lbvh query", "  lbvh pairs", "broad phase: queried on 1 of 4 timed steps; the others kept",
		"lbvh: rebuilt on each of its 1 queries"} {
		if !strings.Contains(out, want) {
			t.Errorf("no %q in\n%s", want, out)
		}
	}
	code, out, errs = sandbox("bench", "-scene", "stack", "-steps", "4", "-broadphase", "sap")
	if code != 0 || !strings.Contains(out, "broad phase sap") || strings.Contains(out, "lbvh") {
		t.Errorf("code %d, stderr %q\n%s", code, errs, out)
	}
}

func TestScenesListsAndExportsPresets(t *testing.T) {
	code, out, _ := sandbox("scenes")
	if code != 0 || strings.Join(strings.Fields(out), " ") != strings.Join(scenes.Names(), " ") {
		t.Fatalf("code %d, %q", code, out)
	}
	code, out, _ = sandbox("scenes", "-l")
	lines := strings.Split(strings.TrimSpace(out), "\n")
	if code != 0 || len(lines) != len(scenes.Names())+1 || !strings.HasPrefix(lines[0], "name") {
		t.Fatalf("scenes -l: code %d, %q", code, out)
	}
	for i, in := range scenes.Catalog() {
		if f := strings.Fields(lines[i+1]); len(f) < 5 || f[0] != in.Name || !strings.HasSuffix(lines[i+1], in.Description) {
			t.Errorf("scenes -l line %d: %q, want %s ... %s", i+1, lines[i+1], in.Name, in.Description)
		}
	}
	code, out, _ = sandbox("scenes", "export", "pyramid20")
	if code != 0 {
		t.Fatal(code)
	}
	s, err := scenes.Parse("export", []byte(out))
	want, _ := scenes.Preset("pyramid20")
	if err != nil || !reflect.DeepEqual(s, want) {
		t.Errorf("export does not read back as the preset: %v", err)
	}
	if code, _, errs := sandbox("scenes", "export", "nope"); code != 1 || !strings.Contains(errs, "presets: ") {
		t.Errorf("code %d, %q", code, errs)
	}
	if code, _, _ := sandbox("scenes", "import"); code != 2 {
		t.Errorf("code %d", code)
	}
}

func TestValidateExitsZeroOrOneWithTheMessage(t *testing.T) {
	good := writeFile(t, "good.json", contractScene)
	if code, out, errs := sandbox("validate", good); code != 0 || !strings.Contains(out, "ok (5 bodies, 1 joints)") {
		t.Errorf("code %d, %q %q", code, out, errs)
	}
	dup := writeFile(t, "dup.json", `{"bodies": [{"name": "cube", "shape": {"type": "sphere", "radius": 1}},
		{"name": "cube", "shape": {"type": "sphere", "radius": 1}}]}`)
	code, _, errs := sandbox("validate", good, dup)
	if code != 1 || errs != "sandbox: "+dup+": bodies[1].name: duplicate of bodies[0]'s name, got \"cube\"\n" {
		t.Errorf("code %d, %q", code, errs)
	}
	if code, _, errs := sandbox("validate", filepath.Join(t.TempDir(), "missing.json")); code != 1 || !strings.Contains(errs, "no such file") {
		t.Errorf("code %d, %q", code, errs)
	}
	if code, _, _ := sandbox("validate"); code != 2 {
		t.Errorf("code %d", code)
	}
}

// The emulated CUDA backend runs the same steps as the CPU's Jacobi and PGS solvers: the traces agree, and
// settings it cannot run are errors that name them.
func TestRunOnTheEmulatedBackend(t *testing.T) {
	dir := t.TempDir()
	emu, cpu := filepath.Join(dir, "emu.csv"), filepath.Join(dir, "cpu.csv")
	if code, _, errs := sandbox("run", "-scene", "stack", "-steps", "30", "-backend", "emu", "-trace", emu, "-every", "10"); code != 0 {
		t.Fatalf("emu: code %d: %s", code, errs)
	}
	if code, _, errs := sandbox("run", "-scene", "stack", "-steps", "30", "-solver", "jacobi", "-trace", cpu, "-every", "10"); code != 0 {
		t.Fatalf("cpu: code %d: %s", code, errs)
	}
	a, _ := os.ReadFile(emu)
	b, _ := os.ReadFile(cpu)
	if len(a) == 0 || string(a) != string(b) {
		t.Errorf("the emulated backend's trace differs from the CPU's Jacobi trace")
	}
	// PGS on the emulated backend gives the CPU's PGS trace, the CPU without its contact cache (a
	// world on a backend runs the narrow phase afresh every step).
	emuPGS, cpuPGS := filepath.Join(dir, "emu-pgs.csv"), filepath.Join(dir, "cpu-pgs.csv")
	if code, _, errs := sandbox("run", "-scene", "stack", "-steps", "30", "-backend", "emu", "-solver", "pgs", "-trace", emuPGS, "-every", "10"); code != 0 {
		t.Fatalf("emu pgs: code %d: %s", code, errs)
	}
	if code, _, errs := sandbox("run", "-scene", "stack", "-steps", "30", "-solver", "pgs", "-contact-cache", "off", "-trace", cpuPGS, "-every", "10"); code != 0 {
		t.Fatalf("cpu pgs: code %d: %s", code, errs)
	}
	a, _ = os.ReadFile(emuPGS)
	b, _ = os.ReadFile(cpuPGS)
	if len(a) == 0 || string(a) != string(b) {
		t.Errorf("the emulated backend's PGS trace differs from the CPU's PGS trace")
	}
	code, _, errs := sandbox("run", "-scene", "stack", "-steps", "1", "-backend", "emu", "-solver", "xpbd")
	if code != 1 || !strings.Contains(errs, "solves with jacobi, pgs; the xpbd solver runs on the CPU backend") {
		t.Errorf("xpbd on the CUDA backend: code %d, %q", code, errs)
	}
	// Shape matching runs on the CPU only: the jelly preset is refused in one line.
	code, _, errs = sandbox("run", "-scene", "jelly", "-steps", "1", "-backend", "emu")
	if code != 1 || strings.Count(errs, "\n") != 1 || !strings.Contains(errs, "solves with jacobi, pgs; the shapematch solver runs on the CPU backend") {
		t.Errorf("shapematch on the CUDA backend: code %d, %q", code, errs)
	}
	code, _, errs = sandbox("run", "-scene", "stack", "-steps", "1", "-backend", "emu", "-broadphase", "grid")
	if code != 0 || strings.Count(errs, "\n") != 1 || !strings.Contains(errs, "broad phase is its LBVH") {
		t.Errorf("grid on the CUDA backend: code %d, %q", code, errs)
	}
}

// A scene with a body of a shape the CUDA backend does not run (a compound, a cylinder, a height
// field) is refused on -backend emu before its first step, in one line that names the body and its
// shape, with exit status 1 and no trace written; the same scene runs on the CPU.
func TestRunOnTheEmulatedBackendRefusesAShapeItDoesNotRunNamingTheBody(t *testing.T) {
	const runs = "the CUDA backend runs box, sphere, capsule, plane, hull and mesh shapes; the CPU backend runs every shape\n"
	wedge := writeFile(t, "wedge.json", `{"solver": {"type": "jacobi"}, "bodies": [
 {"name": "ground", "type": "static", "shape": {"type": "plane", "normal": [0, 1, 0]}},
 {"name": "ball", "shape": {"type": "sphere", "radius": 0.5}, "position": [3, 1, 0]},
 {"name": "wedge", "shape": {"type": "hull", "points": [[0, 0, 0], [2, 0, 0], [0, 1, 0], [0, 0, 1], [2, 1, 0], [2, 0, 1]]}, "position": [0, 1, 0]},
 {"name": "log", "shape": {"type": "cylinder", "radius": 0.3, "halfHeight": 0.5}, "position": [-3, 1, 0]}]}`)
	for _, c := range []struct {
		args []string
		want string
	}{
		{[]string{"run", "-scene", "furniture", "-steps", "10"}, `sandbox: furniture: -backend emu: body "table0" is a compound: ` + runs},
		{[]string{"run", "-scene", wedge, "-steps", "10"}, "sandbox: " + wedge + `: -backend emu: body "log" is a cylinder: ` + runs},
		{[]string{"bench", "-scene", "hills", "-steps", "1"}, `sandbox: hills: -backend emu: body "hills" is a heightfield: ` + runs},
	} {
		trace := filepath.Join(t.TempDir(), "t.csv")
		args := append(c.args, "-backend", "emu")
		if c.args[0] == "run" {
			args = append(args, "-trace", trace)
		}
		code, out, errs := sandbox(args...)
		if code != 1 || errs != c.want || out != "" {
			t.Errorf("%v: code %d, stdout %q, stderr %q, want code 1 and %q", args, code, out, errs, c.want)
		}
		if _, err := os.Stat(trace); !errors.Is(err, os.ErrNotExist) {
			t.Errorf("%v: a trace was written (%v)", args, err)
		}
	}
	if code, _, errs := sandbox("run", "-scene", wedge, "-steps", "10"); code != 0 {
		t.Errorf("the wedge and the log on the CPU: code %d, %q", code, errs)
	}
	// The hulls run on the emulated backend.
	if code, _, errs := sandbox("run", "-scene", "rocks", "-steps", "2", "-backend", "emu"); code != 0 {
		t.Errorf("rocks on -backend emu: code %d, %q", code, errs)
	}
}

// A joint breaks on the emulated CUDA backend at the step and force the CPU's Jacobi step reports.
func TestRunReportsBrokenJointsOnTheEmulatedBackend(t *testing.T) {
	scene := writeFile(t, "s.json", `{"solver": {"type": "jacobi"},
 "bodies": [{"name": "weight", "shape": {"type": "sphere", "radius": 0.1}, "position": [0, 1, 0], "mass": 10}],
 "joints": [{"type": "ball", "bodyA": "weight", "anchor": [0, 1.2, 0], "breakForce": 50}]}`)
	_, _, cpu := sandbox("run", "-scene", scene, "-steps", "10")
	code, out, emu := sandbox("run", "-scene", scene, "-steps", "10", "-backend", "emu")
	if code != 0 || strings.Count(emu, "broke") != 1 || emu != cpu || !strings.Contains(out, "10 steps") {
		t.Errorf("code %d, stdout %q\nstderr (emu) %q\nstderr (cpu) %q", code, out, emu, cpu)
	}
}

// bench on the emulated CUDA backend prints the device's counts for the last timed step (kernel by
// kernel) and for one untimed step (one graph launch), the LBVH query's longest walk with the plane
// on the big list, and the Jacobi pass's bytes in sectors.
func TestBenchOnTheEmulatorPrintsLaunchesAndWalks(t *testing.T) {
	code, out, errs := sandbox("bench", "-scene", "pyramid20", "-backend", "emu", "-steps", "1", "-warmup", "3")
	if code != 0 {
		t.Fatal(errs)
	}
	for _, want := range []string{"device, last timed step: 285 launches (0 of them graphs)",
		"device, one untimed step: 1 launches (1 of them graphs), 0 waits, 1 read-backs (16 bytes)",
		"lbvh query, last step: 211 threads, longest walk", "1 big bodies tested by every leaf",
		"move as", "of 32-byte sectors"} {
		if !strings.Contains(out, want) {
			t.Errorf("no %q in\n%s", want, out)
		}
	}
}

// bench and run -cpuprofile write a CPU profile that go tool pprof reads (a gzipped protobuf,
// non-empty); a file they cannot create is an error naming the flag.
func TestBenchAndRunWriteACPUProfile(t *testing.T) {
	for _, cmd := range []string{"bench", "run"} {
		path := filepath.Join(t.TempDir(), "cpu.prof")
		code, _, errs := sandbox(cmd, "-scene", "pyramid20", "-steps", "20", "-workers", "1", "-cpuprofile", path)
		if code != 0 {
			t.Fatalf("%s: %s", cmd, errs)
		}
		data, err := os.ReadFile(path)
		if err != nil || len(data) < 2 || data[0] != 0x1f || data[1] != 0x8b {
			t.Fatalf("%s: profile %s: %d bytes, err %v: want a gzipped profile", cmd, path, len(data), err)
		}
		code, _, errs = sandbox(cmd, "-scene", "stack", "-steps", "2", "-cpuprofile", filepath.Join(path, "no", "x.prof"))
		if code != 1 || !strings.Contains(errs, "-cpuprofile") {
			t.Errorf("%s: code %d, stderr %q: want 1 and an error naming -cpuprofile", cmd, code, errs)
		}
	}
}

// -grains holds the grains coarse or fine instead of trying both; under fine grains a world of
// separate stacks runs its sub-steps island by island (where the build has the wide passes), and
// -islands=false runs them stage by stage. A bad -grains is a usage error.
func TestBenchGrainsAndIslands(t *testing.T) {
	var b strings.Builder
	b.WriteString(`{"name": "stacks", "bodies": [{"name": "ground", "type": "static", "shape": {"type": "plane", "normal": [0, 1, 0]}}`)
	for s := range 4 {
		for i := range 3 {
			b.WriteString(`, {"shape": {"type": "box", "halfExtents": [0.5, 0.5, 0.5]}, "mass": 1, "position": [` +
				strconv.Itoa(3*s) + `, ` + strconv.FormatFloat(0.5+float64(i), 'f', 1, 64) + `, 0]}`)
		}
	}
	b.WriteString(`]}`)
	f := writeFile(t, "stacks.json", b.String())
	code, out, errs := sandbox("bench", "-scene", f, "-steps", "20", "-workers", "4", "-grains", "fine")
	if code != 0 {
		t.Fatal(errs)
	}
	if island := strings.Contains(out, "the sub-steps ran island by island on 20 of 20 timed steps, in up to 4 regions"); island != sim.WideAvailable() {
		t.Errorf("-grains fine, wide passes %v: island by island %v\n%s", sim.WideAvailable(), island, out)
	}
	if strings.Contains(out, "trials") {
		t.Errorf("-grains fine ran trials\n%s", out)
	}
	for _, args := range [][]string{{"-grains", "fine", "-islands=false"}, {"-grains", "coarse"}} {
		code, out, errs = sandbox(append([]string{"bench", "-scene", f, "-steps", "20", "-workers", "4"}, args...)...)
		if code != 0 || strings.Contains(out, "island by island") {
			t.Errorf("%v: code %d, stderr %q\n%s", args, code, errs, out)
		}
	}
	if code, _, errs := sandbox("bench", "-scene", f, "-grains", "medium"); code != 2 || !strings.Contains(errs, `-grains must be auto, coarse or fine, got "medium"`) {
		t.Errorf("-grains medium: code %d, stderr %q", code, errs)
	}
}

// -lanes picks the wide contact kernels: bench names them, and a run gives the same trace, bit for
// bit, with eight lanes as with sixteen. A width the CPU lacks is an error naming the widths it has;
// one that no CPU has is a usage error.
func TestLanes(t *testing.T) {
	if code, _, errs := sandbox("bench", "-scene", "pyramid20", "-lanes", "4"); code != 2 || !strings.Contains(errs, "-lanes must be 0, 8 or 16, got 4") {
		t.Errorf("-lanes 4: code %d, stderr %q", code, errs)
	}
	if !sim.WideAvailable() {
		code, _, errs := sandbox("bench", "-scene", "pyramid20", "-steps", "2", "-lanes", "8")
		if code == 0 || !strings.Contains(errs, "no wide contact pass") {
			t.Errorf("-lanes 8 without the wide pass: code %d, stderr %q", code, errs)
		}
		return
	}
	lanes, abouts := sim.LaneWidths()
	widest, about := lanes[len(lanes)-1], abouts[len(abouts)-1]
	code, out, errs := sandbox("bench", "-scene", "pyramid20", "-steps", "2")
	if code != 0 || !strings.Contains(out, "contact pass: wide, "+about) {
		t.Errorf("bench: code %d, stderr %q, want the %d-lane pass named\n%s", code, errs, widest, out)
	}
	code, out, errs = sandbox("bench", "-scene", "pyramid20", "-steps", "2", "-lanes", "8")
	if code != 0 || !strings.Contains(out, "contact pass: wide, 8 manifolds at once (AVX2)") {
		t.Errorf("bench -lanes 8: code %d, stderr %q\n%s", code, errs, out)
	}
	trace := func(lanes string) []byte {
		f := filepath.Join(t.TempDir(), "trace.csv")
		if code, _, errs := sandbox("run", "-scene", "pyramid20", "-steps", "40", "-lanes", lanes, "-trace", f); code != 0 {
			t.Fatalf("run -lanes %s: %s", lanes, errs)
		}
		b, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		return b
	}
	if widest == 16 {
		if !bytes.Equal(trace("8"), trace("16")) {
			t.Error("run -lanes 8 and -lanes 16 traced different states")
		}
		return
	}
	if code, _, errs := sandbox("bench", "-scene", "pyramid20", "-steps", "2", "-lanes", "16"); code == 0 || !strings.Contains(errs, "contact kernels of [8] lanes") {
		t.Errorf("-lanes 16 without AVX-512: code %d, stderr %q", code, errs)
	}
}

// TestHelpListsEverySolver: `sandbox -help` names each solver ParseSolver accepts.
func TestHelpListsEverySolver(t *testing.T) {
	for _, arg := range []string{"-help", "help"} {
		code, out, _ := sandbox(arg)
		if code != 0 {
			t.Fatalf("%s: code %d", arg, code)
		}
		i := strings.Index(out, "Solvers:")
		if i < 0 {
			t.Fatalf("%s: no Solvers: line in %q", arg, out)
		}
		line := out[i:]
		line = line[:strings.IndexByte(line, '\n')]
		for _, k := range sim.Solvers() {
			if !strings.Contains(line, k.String()) {
				t.Errorf("%s: %q does not name the %s solver", arg, line, k)
			}
		}
	}
}

// A URDF file runs and validates as a scene (scenes/urdf's mapping): its bodies named by their links,
// what it leaves out one line each on stderr, and what it cannot build refused with the element and
// its line.
func TestRunAndValidateReadURDF(t *testing.T) {
	pointer := filepath.Join("..", "..", "scenes", "urdf", "testdata", "simple", "pointer.urdf")
	trace := filepath.Join(t.TempDir(), "pointer.csv")
	code, _, errs := sandbox("run", "-scene", pointer, "-steps", "10", "-trace", trace)
	if code != 0 || errs != "" {
		t.Fatalf("run: code %d, %q", code, errs)
	}
	if b, err := os.ReadFile(trace); err != nil || !strings.Contains(string(b), "\n10,") || !strings.Contains(string(b), ",arm,") {
		t.Errorf("trace without the arm's last step: %v", err)
	}
	if code, out, errs := sandbox("validate", pointer); code != 0 || !strings.Contains(out, "ok (3 bodies, 2 joints)") {
		t.Errorf("validate: code %d, %q %q", code, out, errs)
	}
	arm := filepath.Join("..", "..", "scenes", "urdf", "testdata", "arm_description", "urdf", "arm.urdf")
	if code, _, errs := sandbox("validate", arm); code != 1 || !strings.Contains(errs, `arm.urdf:70: <link name="hand">: a link with mass but no collision shape`) {
		t.Errorf("validate the arm: code %d, %q", code, errs)
	}
}
