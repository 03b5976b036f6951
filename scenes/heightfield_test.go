package scenes

import (
	"encoding/json"
	"errors"
	"flag"
	"image"
	"image/color"
	"image/png"
	"math"
	"os"
	"path/filepath"
	"strings"
	"testing"

	"tumble/sim"
)

var updateHills = flag.Bool("update-hills", false, "write assets/terrain/hills.png from hillsHeight")

// hillsPNG is assets/terrain/hills.png as hillsHeight makes it: 1024 x 1024 samples over the hills'
// square, the range [lo, hi] spread over the 16 bits.
func hillsPNG() (img *image.Gray16, lo, hi float64) {
	const n = 1024
	hs := make([]float64, n*n)
	lo, hi = math.Inf(1), math.Inf(-1)
	for j := range n {
		for i := range n {
			h := hillsHeight(-hillsSize/2+hillsSize*float64(i)/(n-1), -hillsSize/2+hillsSize*float64(j)/(n-1))
			hs[j*n+i] = h
			lo, hi = math.Min(lo, h), math.Max(hi, h)
		}
	}
	img = image.NewGray16(image.Rect(0, 0, n, n))
	for k, h := range hs {
		img.SetGray16(k%n, k/n, color.Gray16{Y: uint16(math.Round((h - lo) / (hi - lo) * 65535))})
	}
	return img, lo, hi
}

// The height map in assets/ is what its generator makes (go test ./scenes -run TestHillsPNG
// -args -update-hills writes it), and examples/shape-heightfield-png.json, which loads it, places it
// where the hills preset's surface is: every 16th sample each way within the PNG's quantisation
// (5 m / 131070) and float rounding of hillsHeight.
func TestHillsPNGIsCurrent(t *testing.T) {
	path := "../assets/terrain/hills.png"
	if *updateHills {
		img, lo, hi := hillsPNG()
		if err := os.MkdirAll(filepath.Dir(path), 0o755); err != nil {
			t.Fatal(err)
		}
		fh, err := os.Create(path)
		if err != nil {
			t.Fatal(err)
		}
		if err := (&png.Encoder{CompressionLevel: png.BestCompression}).Encode(fh, img); err != nil {
			t.Fatal(err)
		}
		if err := fh.Close(); err != nil {
			t.Fatal(err)
		}
		t.Logf("wrote %s: heights %.17g to %.17g m (heightScale %.17g)", path, lo, hi, hi-lo)
	}
	// The example read as plain JSON (TestEveryExampleFileValidates loads it), so that the PNG is
	// decoded once here.
	data, err := os.ReadFile("../examples/shape-heightfield-png.json")
	if err != nil {
		t.Fatal(err)
	}
	var s Scene
	if err := json.Unmarshal(data, &s); err != nil {
		t.Fatal(err)
	}
	sh := &s.Bodies[0].Shape
	src, err := readHeightPNG(path, *sh.HeightScale)
	if err != nil {
		t.Fatal(err)
	}
	if src.nx != 1024 || src.nz != 1024 || sh.Spacing[0] != hillsSize/1023.0 {
		t.Fatalf("the example's field is %d x %d spaced %v", src.nx, src.nz, sh.Spacing)
	}
	y := s.Bodies[0].Position[1]
	for j := 0; j < src.nz; j += 16 {
		for i := 0; i < src.nx; i += 16 {
			x, z := -hillsSize/2+hillsSize*float64(i)/1023, -hillsSize/2+hillsSize*float64(j)/1023
			h := float64(src.step) * float64(src.q[j*src.nx+i])
			if got, want := h+y, hillsHeight(x, z); math.Abs(got-want) > 1e-4 {
				t.Fatalf("sample (%d, %d) is at %.5f m, hillsHeight %.5f: run with -update-hills", i, j, got, want)
			}
		}
	}
}

// Height fields in scene files: each bad input is refused with its JSON path and value.
func TestHeightFieldSceneErrors(t *testing.T) {
	dir := t.TempDir()
	write := func(name string, img image.Image) {
		fh, err := os.Create(filepath.Join(dir, name))
		if err != nil {
			t.Fatal(err)
		}
		if err := png.Encode(fh, img); err != nil {
			t.Fatal(err)
		}
		fh.Close()
	}
	write("gray8.png", image.NewGray(image.Rect(0, 0, 4, 4)))
	write("rgb16.png", image.NewRGBA64(image.Rect(0, 0, 4, 4)))
	write("line.png", image.NewGray16(image.Rect(0, 0, 1, 4)))
	write("ok.png", image.NewGray16(image.Rect(0, 0, 4, 3)))
	if err := os.WriteFile(filepath.Join(dir, "text.png"), []byte("not a png"), 0o644); err != nil {
		t.Fatal(err)
	}
	body := func(shape string) string {
		return `{"bodies": [{"name": "ground", "type": "static", "shape": ` + shape + `}]}`
	}
	cases := []struct{ scene, path, value, problem string }{
		{body(`{"type": "heightfield", "spacing": [1, 1], "file": "missing.png", "heightScale": 2}`),
			"bodies[0].shape.file", `"missing.png"`, "cannot read"},
		{body(`{"type": "heightfield", "spacing": [1, 1], "file": "text.png", "heightScale": 2}`),
			"bodies[0].shape.file", `"text.png"`, "not a PNG"},
		{body(`{"type": "heightfield", "spacing": [1, 1], "file": "gray8.png", "heightScale": 2}`),
			"bodies[0].shape.file", `"gray8.png"`, "8-bit grayscale"},
		{body(`{"type": "heightfield", "spacing": [1, 1], "file": "rgb16.png", "heightScale": 2}`),
			"bodies[0].shape.file", `"rgb16.png"`, "16-bit colour"},
		{body(`{"type": "heightfield", "spacing": [1, 1], "file": "line.png", "heightScale": 2}`),
			"bodies[0].shape.file", `"line.png"`, "1 x 4 pixels"},
		{body(`{"type": "heightfield", "spacing": [1, 1], "file": "ok.png"}`),
			"bodies[0].shape.heightScale", "", "missing"},
		{body(`{"type": "heightfield", "spacing": [1, 1], "file": "ok.png", "heightScale": -1}`),
			"bodies[0].shape.heightScale", "-1", "> 0"},
		{body(`{"type": "heightfield", "spacing": [1, 1], "heights": [[0, 1, 2], [0, 1], [1, 1, 1]]}`),
			"bodies[0].shape.heights[1]", "2 samples", "as many samples as the first (3)"},
		{body(`{"type": "heightfield", "spacing": [1, 1], "heights": [[0, 1, 2]]}`),
			"bodies[0].shape.heights", "1 rows", "2 to 4097 rows"},
		{body(`{"type": "heightfield", "spacing": [1, 1], "heights": [[0, 1], [0, "a"]]}`),
			"bodies[0].shape.heights[1][1]", `"a"`, "must be a number"},
		{body(`{"type": "heightfield", "spacing": [1, 1], "heights": [[0, 1], [0, 1e6]]}`),
			"bodies[0].shape.heights[1][1]", "1000000", "at most"},
		{body(`{"type": "heightfield", "heights": [[0, 1], [0, 1]]}`),
			"bodies[0].shape.spacing", "", "missing"},
		{body(`{"type": "heightfield", "spacing": [1, 0], "heights": [[0, 1], [0, 1]]}`),
			"bodies[0].shape.spacing[1]", "0", "> 0"},
		{body(`{"type": "heightfield", "spacing": [1, 1], "heights": [[0, 1], [0, 1]], "file": "ok.png"}`),
			"bodies[0].shape.file", `"ok.png"`, "not both"},
		{body(`{"type": "heightfield", "spacing": [1, 1], "heights": [[0, 1], [0, 1]], "heightScale": 3}`),
			"bodies[0].shape.heightScale", "3", "only with a file"},
		{body(`{"type": "heightfield", "spacing": [1, 1]}`),
			"bodies[0].shape.heights", "", "missing"},
		{body(`{"type": "box", "halfExtents": [1, 1, 1], "spacing": [1, 1]}`),
			"bodies[0].shape.spacing", "[1, 1]", "not a field of a box"},
		{`{"bodies": [{"name": "g", "shape": {"type": "heightfield", "spacing": [1, 1], "heights": [[0, 1], [0, 1]]}}]}`,
			"bodies[0].type", `"dynamic"`, "static"},
	}
	for _, c := range cases {
		file := filepath.Join(dir, "scene.json")
		if err := os.WriteFile(file, []byte(c.scene), 0o644); err != nil {
			t.Fatal(err)
		}
		_, err := Load(file)
		var se *Error
		if err == nil {
			t.Errorf("%s: accepted", c.scene)
			continue
		}
		if !errors.As(err, &se) || se.Path != c.path || se.Value != c.value || !strings.Contains(se.Problem, c.problem) {
			t.Errorf("%s:\n got %v\nwant path %s, value %s, problem with %q", c.scene, err, c.path, c.value, c.problem)
		}
	}
	// The good PNG loads: 4 x 3 pixels, 4 samples along x and 3 along z.
	if err := os.WriteFile(filepath.Join(dir, "good.json"), []byte(body(`{"type": "heightfield", "spacing": [0.5, 2], "file": "ok.png", "heightScale": 2}`)), 0o644); err != nil {
		t.Fatal(err)
	}
	s, err := Load(filepath.Join(dir, "good.json"))
	if err != nil {
		t.Fatal(err)
	}
	if f := s.Bodies[0].Shape.builtField(); f.NX != 4 || f.NZ != 3 || f.DX != 0.5 || f.DZ != 2 {
		t.Errorf("the 4 x 3 PNG made a %d x %d field spaced %v, %v", f.NX, f.NZ, f.DX, f.DZ)
	}
}

// A body alone on the hills' field, placed where it lay after 120 s of the preset, comes to rest under
// the default solver (PGS) and stays at rest: over the last 10 s of 30, no centre faster than
// sim.RestSpeed. The box stands on its incident face's corners and edge crossings, the rock on its
// vertices over the grid's edges, each within a millimetre or two of level; where the four points of
// their manifolds are chosen afresh each step (collide's fieldKeepDepth) the box rocks at up to
// 0.1 m/s and the rock at 0.02, resting now and then and starting again.
func TestBodiesOnHillsComeToRest(t *testing.T) {
	cases := []struct {
		name string
		at   Vec3
		rot  Quat
	}{
		{"body68", Vec3{2.5835614, 3.2434137, 2.164561}, Quat{-0.020487664, -0.014887755, -0.592964, 0.8048306}},
		{"body39", Vec3{-0.19062606, 2.688632, 4.1900496}, Quat{-0.13075823, 0.85856223, 0.47730017, 0.13400647}},
	}
	all := hills()
	for _, c := range cases {
		t.Run(c.name, func(t *testing.T) {
			s := newScene("hills-" + c.name)
			s.add(all.Bodies[0])
			for _, b := range all.Bodies {
				if b.Name == c.name {
					b.Position, b.Rotation, b.Velocity = &c.at, &c.rot, nil
					s.add(b)
				}
			}
			if len(s.Bodies) != 2 {
				t.Fatalf("the hills preset has no %s", c.name)
			}
			w, err := s.World(Options{Workers: 1})
			if err != nil {
				t.Fatal(err)
			}
			defer w.Close()
			const seconds, watch = 30, 10
			fastest, when := float32(0), 0.0
			for k := range int(seconds / DefaultDt) {
				w.Step()
				if at := float64(k+1) * DefaultDt; at > seconds-watch {
					if m := w.Bodies.Motion(sim.RestSpeed); m.Speed > fastest {
						fastest, when = m.Speed, at
					}
				}
			}
			if fastest > sim.RestSpeed {
				t.Errorf("%s moves at %.4f m/s at %.1f s", c.name, fastest, when)
			}
		})
	}
}
