package scenes

import (
	"bytes"
	"math"
	"strings"
	"testing"
)

// A cluster with a fault is refused naming the file, the JSON path and the value.
func TestBadClustersAreRefusedWithPathAndValue(t *testing.T) {
	scene := func(solver, clusters string) string {
		return `{"solver": {"type": "` + solver + `"}, "bodies": [
			{"name": "a", "shape": {"type": "sphere", "radius": 0.1}},
			{"name": "b", "shape": {"type": "sphere", "radius": 0.1}, "position": [1, 0, 0]},
			{"name": "g", "type": "static", "shape": {"type": "sphere", "radius": 0.1}, "position": [2, 0, 0]}],
			"clusters": [` + clusters + `]}`
	}
	for _, tc := range []struct{ name, solver, cluster, want string }{
		{"unknown body", "shapematch", `{"bodies": ["a", "ghost"], "stiffness": 0.5}`,
			`clusters[0].bodies[1]: no body has this name, got "ghost"`},
		{"one member", "shapematch", `{"bodies": ["a"], "stiffness": 0.5}`,
			"clusters[0].bodies: a cluster needs at least 2 bodies, got 1 bodies"},
		{"twice", "shapematch", `{"bodies": ["a", "a"], "stiffness": 0.5}`,
			`clusters[0].bodies[1]: listed twice in the cluster, got "a"`},
		{"static member", "shapematch", `{"bodies": ["a", "g"], "stiffness": 0.5}`,
			`clusters[0].bodies[1]: a cluster's bodies must be dynamic, got "g" (static)`},
		{"stiffness above 1", "shapematch", `{"bodies": ["a", "b"], "stiffness": 1.5}`,
			"clusters[0].stiffness: must be at most 1, got 1.5"},
		{"stiffness below 0", "shapematch", `{"bodies": ["a", "b"], "stiffness": -0.1}`,
			"clusters[0].stiffness: must be >= 0, got -0.1"},
		{"no stiffness", "shapematch", `{"bodies": ["a", "b"]}`, "clusters[0].stiffness: missing (required)"},
		{"damping", "shapematch", `{"bodies": ["a", "b"], "stiffness": 0.5, "damping": 2}`,
			"clusters[0].damping: must be at most 1, got 2"},
		{"linear", "shapematch", `{"bodies": ["a", "b"], "stiffness": 0.5, "linear": -1}`,
			"clusters[0].linear: must be >= 0, got -1"},
		{"not a name", "shapematch", `{"bodies": ["a", 3], "stiffness": 0.5}`,
			"clusters[0].bodies[1]: must be a body name (a string), got 3"},
		{"unknown field", "shapematch", `{"bodies": ["a", "b"], "stiffness": 0.5, "mass": 1}`, "clusters[0].mass"},
		{"other solver", "pgs", `{"bodies": ["a", "b"], "stiffness": 0.5}`,
			`clusters[0]: clusters are matched only by the shapematch solver: set solver.type to "shapematch", got solver.type "pgs"`},
	} {
		s, err := Parse("jelly.json", []byte(scene(tc.solver, tc.cluster)))
		if err == nil {
			t.Errorf("%s: accepted", tc.name)
			continue
		}
		if s != nil {
			t.Errorf("%s: returned a scene with the error", tc.name)
		}
		if msg := err.Error(); !strings.HasPrefix(msg, "jelly.json: ") || !strings.Contains(msg, tc.want) {
			t.Errorf("%s: got %q, want it to contain %q", tc.name, msg, tc.want)
		}
	}
}

// The example cluster file loads, saves back to the same scene, and builds a world with its cluster.
func TestClusterSceneRoundTripsAndBuildsTheCluster(t *testing.T) {
	s, err := Load("../examples/shapematch-cluster.json")
	if err != nil {
		t.Fatal(err)
	}
	roundTrip(t, s)
	w, err := s.World(Options{})
	if err != nil {
		t.Fatal(err)
	}
	if w.NumClusters() != 1 {
		t.Fatalf("%d clusters", w.NumClusters())
	}
	d := w.Cluster(0)
	if len(d.Bodies) != 4 || d.Stiffness != 0.3 || d.Damping != 0.3 || d.Linear != 0 {
		t.Errorf("cluster %+v", d)
	}
	var buf bytes.Buffer
	if err := s.Save(&buf); err != nil || !strings.Contains(buf.String(), `"clusters": [`) {
		t.Errorf("saved without its clusters (%v):\n%s", err, buf.String())
	}
}

// clusterShape returns, for the jelly preset's cube whose bodies' names start with prefix, the largest
// change of a distance between two of its boxes from the rest distance, and its height (top box centre
// minus bottom box centre).
func clusterShape(s *Scene, pos func(name string) [3]float64, prefix string) (err, height float64) {
	var names []string
	for i := range s.Bodies {
		if strings.HasPrefix(s.Bodies[i].Name, prefix) {
			names = append(names, s.Bodies[i].Name)
		}
	}
	rest := map[string][3]float64{}
	for i := range s.Bodies {
		if p := s.Bodies[i].Position; p != nil {
			rest[s.Bodies[i].Name] = *p
		}
	}
	dist := func(a, b [3]float64) float64 { return math.Sqrt(sq(a[0]-b[0]) + sq(a[1]-b[1]) + sq(a[2]-b[2])) }
	lo, hi := math.Inf(1), math.Inf(-1)
	for i, a := range names {
		for _, b := range names[i+1:] {
			err = max(err, math.Abs(dist(pos(a), pos(b))-dist(rest[a], rest[b])))
		}
		lo, hi = min(lo, pos(a)[1]), max(hi, pos(a)[1])
	}
	return err, hi - lo
}

func sq(x float64) float64 { return x * x }

// The jelly preset does what docs/SCENES.md says. Dropped from 1.5 m, each cube is squashed on landing
// until its boxes touch (a distance 0.06 m short, the gap, at two gaps per cube: 0.12 m). Then:
//   - the firm cube (stiffness 0.3, damping 0.3) recovers its shape but for the sag its springs need to
//     carry its weight: each box above the bottom layer hangs g dt^2 / alpha below its goal, the goals
//     ride on the centre of mass, so the distance from the bottom to the upper layers is 3 g dt^2 / alpha
//     = 2.72 cm short (within 5%), and it is at rest;
//   - the soft one (0.02) would sag 3 g dt^2 / alpha = 41 cm, more than its gaps: it stays squashed
//     until its boxes touch, 0.48 m high instead of 0.6 (volume lost);
//   - the stiff one (1, undamped) is still ringing after 5 s: its boxes move at tenths of a m/s.
func TestJellyPresetFirmRecoversSoftSagsStiffRings(t *testing.T) {
	s, _ := Preset("jelly")
	w, err := s.World(Options{})
	if err != nil {
		t.Fatal(err)
	}
	pos := func(name string) [3]float64 {
		h, _ := w.Find(name)
		i, _ := w.Index(h)
		p := w.Bodies.Position[i]
		return [3]float64{float64(p[0]), float64(p[1]), float64(p[2])}
	}
	peak := map[string]float64{}
	for range 300 {
		if err := w.Step(); err != nil {
			t.Fatal(err)
		}
		for _, c := range jellyCubes {
			e, _ := clusterShape(s, pos, c.name)
			peak[c.name] = max(peak[c.name], e)
		}
	}
	speed := func(prefix string) float64 {
		top := 0.0
		for i, n := range w.Bodies.Name {
			if strings.HasPrefix(n, prefix) {
				top = max(top, float64(w.Bodies.Velocity[i].Len()))
			}
		}
		return top
	}
	dt := *s.Dt
	for _, c := range jellyCubes {
		e, h := clusterShape(s, pos, c.name)
		sag := 3 * 9.81 * dt * dt / c.stiffness
		t.Logf("%s: peak deformation %.4f m, after 5 s %.4f m (3 g dt^2/alpha = %.4f m), height %.3f m, fastest box %.4f m/s",
			c.name, peak[c.name], e, sag, h, speed(c.name))
		if peak[c.name] < 0.1 {
			t.Errorf("%s: the landing deformed it by only %.4f m", c.name, peak[c.name])
		}
		switch c.name {
		case "firm":
			if math.Abs(e-sag) > 0.05*sag || speed(c.name) > 0.01 {
				t.Errorf("firm: deformation %.4f m, want %.4f m within 5%%, at rest (fastest %.4f m/s)", e, sag, speed(c.name))
			}
		case "soft":
			if want := 2 * (JellySpacing - 2*JellyHalf); math.Abs(e-want) > 0.005 || h > 0.49 {
				t.Errorf("soft: deformation %.4f m, want %.4f (its gaps closed), height %.3f m", e, want, h)
			}
		case "stiff":
			if speed(c.name) < 0.1 {
				t.Errorf("stiff: fastest box %.4f m/s after 5 s; an undamped cluster should still ring", speed(c.name))
			}
		}
	}
}
