package scenes

import (
	"encoding/binary"
	"errors"
	"math"
	"strconv"
	"sync"

	"tumble/sim"
	"tumble/sim/geom"
)

// Convex hull shapes: {"type": "hull", "points": [[x, y, z], ...]}. The hull of the points is built by
// quickhull (sim/geom); points inside it are dropped. Like every body, a hull body's position is its
// centre of mass: the points are re-centred on it. Its rotation turns the frame the points are written
// in; the simulation holds the hull in its principal frame, so the body's rotation in traces is that
// rotation times the hull's principal frame (geom.Hull.Frame).

// hullCache holds every hull built, by its points, so a scene with a hundred copies of a rock builds it
// once and all of them share it. It is bounded: past maxCachedHulls it starts again.
var hullCache struct {
	sync.Mutex
	m map[string]*geom.Hull
}

const maxCachedHulls = 4096

// hullKey is the points' float32 bits, the identity of a hull.
func hullKey(pts []geom.Vec3) string {
	b := make([]byte, 0, 12*len(pts))
	for _, p := range pts {
		for _, x := range p {
			b = binary.LittleEndian.AppendUint32(b, math.Float32bits(x))
		}
	}
	return string(b)
}

// Hull returns the shared hull of points (built once per distinct point list), or NewHull's error.
func Hull(pts []geom.Vec3) (*geom.Hull, error) {
	key := hullKey(pts)
	hullCache.Lock()
	h, ok := hullCache.m[key]
	hullCache.Unlock()
	if ok {
		return h, nil
	}
	h, err := geom.NewHull(pts)
	if err != nil {
		return nil, err
	}
	hullCache.Lock()
	if hullCache.m == nil || len(hullCache.m) >= maxCachedHulls {
		hullCache.m = map[string]*geom.Hull{}
	}
	hullCache.m[key] = h
	hullCache.Unlock()
	return h, nil
}

// hullPoints converts a scene's points to the simulation's type.
func hullPoints(pts []Vec3) []geom.Vec3 {
	out := make([]geom.Vec3, len(pts))
	for i, p := range pts {
		out[i] = vec(p)
	}
	return out
}

// points decodes an array of [x, y, z] points.
func (d *decoder) points(m map[string]*node, key, path string) []Vec3 {
	n, ok := m[key]
	if !ok || d.err != nil {
		return nil
	}
	p := join(path, key)
	if n.kind != 'a' {
		d.fail(p, "must be an array of [x, y, z] points", n)
		return nil
	}
	out := make([]Vec3, len(n.vals))
	for i, v := range n.vals {
		a := d.array(v, p+"["+strconv.Itoa(i)+"]", 3)
		if d.err != nil {
			return nil
		}
		out[i] = Vec3{a[0], a[1], a[2]}
	}
	return out
}

// validateHull checks a hull's points: present, at most geom.MaxHullPoints, finite and within
// MaxCoordinate, spanning a volume; the message of a refused hull says why.
func (s *Shape) validateHull(c *check, path string) {
	p := path + ".points"
	if s.Points == nil {
		c.fail(p, "missing (required for a hull)", "")
		return
	}
	if len(s.Points) > geom.MaxHullPoints {
		c.fail(p, "too many points: a hull takes at most "+strconv.Itoa(geom.MaxHullPoints), strconv.Itoa(len(s.Points))+" points")
		return
	}
	if len(s.Points) < 4 {
		c.fail(p, "a hull needs at least 4 points that span a volume", strconv.Itoa(len(s.Points))+" points")
		return
	}
	for i, q := range s.Points {
		c.vec(p+"["+strconv.Itoa(i)+"]", q[:], MaxCoordinate, " m")
	}
	if c.err != nil {
		return
	}
	h, err := Hull(hullPoints(s.Points))
	if err != nil {
		// NewHull's errors begin with what is wrong: "degenerate: all 4 points lie in one plane ...".
		problem := err.Error()
		if !errors.Is(err, geom.ErrHullDegenerate) {
			problem = "cannot build a hull: " + problem
		}
		c.fail(p, problem, strconv.Itoa(len(s.Points))+" points")
		return
	}
	if r := float64(h.Radius); r < MinSize || r > MaxSize {
		c.fail(p, "hull size (largest distance from its centre of mass) must be in ["+fmtNum(MinSize)+", "+fmtNum(MaxSize)+"] m", fmtNum(r))
	}
}

// hullDef sets d's shape to the hull of sh's points and turns d's rotation into the principal frame.
// The scene must be valid.
func hullDef(d *sim.BodyDef, sh *Shape) {
	h, err := Hull(hullPoints(sh.Points))
	if err != nil {
		panic("scenes: BodyDef of an invalid scene: " + err.Error())
	}
	d.Shape = geom.Shape{Kind: geom.ConvexHull, Hull: h}
	d.Rotation = h.BodyRotation(d.Rotation)
}
