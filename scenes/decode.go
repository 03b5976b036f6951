package scenes

import (
	"bytes"
	"encoding/json"
	"errors"
	"io"
	"math"
	"os"
	"path/filepath"
	"strconv"
	"strings"
	"unicode/utf8"

	"tumble/sim"
)

// Load reads and parses a scene file; see Parse.
func Load(path string) (*Scene, error) {
	data, err := os.ReadFile(path)
	if err != nil {
		return nil, err
	}
	return Parse(path, data)
}

// Parse decodes and validates a scene file. file names the source in error messages. The error, if any,
// is an *Error naming the JSON path and the value; a nil error means the scene is complete and valid.
// Parse never panics, whatever the input.
func Parse(file string, data []byte) (*Scene, error) {
	root, err := parseTree(data)
	if err != nil {
		var se *json.SyntaxError
		if errors.As(err, &se) {
			line, col := lineCol(data, se)
			return nil, &Error{File: file, Line: line, Column: col, Problem: "malformed JSON: " + se.Error()}
		}
		var e *Error
		if errors.As(err, &e) {
			e.File = file
			return nil, e
		}
		return nil, &Error{File: file, Problem: "malformed JSON: " + err.Error()}
	}
	d := decoder{}
	if file != "" {
		d.dir = filepath.Dir(file)
	}
	s := d.scene(root)
	if d.err == nil {
		d.err = s.validate()
	}
	if d.err != nil {
		d.err.File = file
		return nil, d.err
	}
	return s, nil
}

// lineCol turns a syntax error's byte offset into a 1-based line and column of the offending byte.
func lineCol(data []byte, se *json.SyntaxError) (line, col int) {
	pos := int(se.Offset) - 1 // Offset counts the offending byte
	if strings.Contains(se.Error(), "unexpected end") || pos < 0 {
		pos = int(se.Offset)
	}
	pos = min(pos, len(data))
	before := data[:pos]
	line = 1 + bytes.Count(before, []byte{'\n'})
	col = pos - bytes.LastIndexByte(before, '\n')
	return line, col
}

// node is a JSON value with its object members kept in file order, so duplicate keys can be refused
// and errors come in the order a reader meets them.
type node struct {
	kind byte   // 'o' object, 'a' array, 's' string, 'n' number, 'b' bool, 'z' null
	text string // string value, or a number's literal
	b    bool
	keys []string
	vals []*node // object members, or array elements
}

// parseTree checks the syntax (with the standard scanner, for exact error offsets) and builds the tree.
func parseTree(data []byte) (*node, error) {
	var raw json.RawMessage
	if err := json.Unmarshal(data, &raw); err != nil {
		return nil, err
	}
	dec := json.NewDecoder(bytes.NewReader(data))
	dec.UseNumber()
	return readNode(dec, "")
}

func readNode(dec *json.Decoder, path string) (*node, error) {
	tok, err := dec.Token()
	if err != nil {
		return nil, err
	}
	switch t := tok.(type) {
	case json.Delim:
		if t == '{' {
			n := &node{kind: 'o'}
			seen := map[string]bool{}
			for dec.More() {
				kt, err := dec.Token()
				if err != nil {
					return nil, err
				}
				key, _ := kt.(string)
				kp := join(path, key)
				v, err := readNode(dec, kp)
				if err != nil {
					return nil, err
				}
				if seen[key] {
					return nil, &Error{Path: kp, Problem: "duplicate key", Value: v.String()}
				}
				seen[key] = true
				n.keys = append(n.keys, key)
				n.vals = append(n.vals, v)
			}
			_, err := dec.Token() // '}'
			return n, err
		}
		n := &node{kind: 'a'}
		for dec.More() {
			v, err := readNode(dec, path+"["+strconv.Itoa(len(n.vals))+"]")
			if err != nil {
				return nil, err
			}
			n.vals = append(n.vals, v)
		}
		_, err := dec.Token() // ']'
		return n, err
	case string:
		return &node{kind: 's', text: t}, nil
	case json.Number:
		return &node{kind: 'n', text: string(t)}, nil
	case bool:
		return &node{kind: 'b', b: t}, nil
	case nil:
		return &node{kind: 'z'}, nil
	}
	return nil, io.ErrUnexpectedEOF
}

// String returns the node as compact JSON, shortened for error messages.
func (n *node) String() string {
	var b strings.Builder
	n.write(&b)
	s := b.String()
	if len(s) > 60 {
		cut := 57
		for cut > 0 && !utf8.RuneStart(s[cut]) {
			cut--
		}
		s = s[:cut] + "..."
	}
	return s
}

func (n *node) write(b *strings.Builder) {
	if b.Len() > 60 {
		return
	}
	switch n.kind {
	case 'o':
		b.WriteByte('{')
		for i, k := range n.keys {
			if i > 0 {
				b.WriteString(", ")
			}
			b.WriteString(strconv.Quote(k) + ": ")
			n.vals[i].write(b)
		}
		b.WriteByte('}')
	case 'a':
		b.WriteByte('[')
		for i, v := range n.vals {
			if i > 0 {
				b.WriteString(", ")
			}
			v.write(b)
		}
		b.WriteByte(']')
	case 's':
		b.WriteString(strconv.Quote(n.text))
	case 'n':
		b.WriteString(n.text)
	case 'b':
		b.WriteString(strconv.FormatBool(n.b))
	default:
		b.WriteString("null")
	}
}

func join(path, key string) string {
	if path == "" {
		return key
	}
	return path + "." + key
}

// decoder turns the tree into a Scene, checking shapes of values: unknown fields, wrong JSON types,
// missing required fields, non-finite numbers. Ranges and cross references are validate's. The first
// error wins; later calls do nothing once err is set.
type decoder struct {
	err *Error
	dir string // the scene file's folder: mesh files are relative to it
}

func (d *decoder) fail(path, problem string, n *node) {
	if d.err != nil {
		return
	}
	e := &Error{Path: path, Problem: problem}
	if n != nil {
		e.Value = n.String()
	}
	if path == "" {
		e.Path = "(top level)"
	}
	d.err = e
}

// fields checks that n is an object with only the given keys, then returns a lookup of its members.
func (d *decoder) fields(n *node, path string, allowed ...string) map[string]*node {
	if d.err != nil {
		return nil
	}
	if n.kind != 'o' {
		d.fail(path, "must be an object", n)
		return nil
	}
	m := make(map[string]*node, len(n.keys))
	for i, k := range n.keys {
		ok := false
		for _, a := range allowed {
			ok = ok || a == k
		}
		if !ok {
			problem := "unknown field"
			for _, a := range allowed {
				if strings.EqualFold(a, k) {
					problem += " (did you mean \"" + a + "\"?)"
				}
			}
			d.fail(join(path, k), problem, n.vals[i])
			return nil
		}
		m[k] = n.vals[i]
	}
	return m
}

func (d *decoder) number(n *node, path string) float64 {
	if d.err != nil {
		return 0
	}
	if n.kind != 'n' {
		d.fail(path, "must be a number", n)
		return 0
	}
	x, err := strconv.ParseFloat(n.text, 64)
	if err != nil && !math.IsInf(x, 0) {
		d.fail(path, "must be a number", n)
		return 0
	}
	if math.IsInf(x, 0) {
		d.fail(path, "must be finite", n)
		return 0
	}
	return x
}

func (d *decoder) optNumber(m map[string]*node, key, path string) *float64 {
	n, ok := m[key]
	if !ok || d.err != nil {
		return nil
	}
	x := d.number(n, join(path, key))
	return &x
}

func (d *decoder) optInt(m map[string]*node, key, path string) *int {
	n, ok := m[key]
	if !ok || d.err != nil {
		return nil
	}
	p := join(path, key)
	x := d.number(n, p)
	if d.err == nil && x != math.Trunc(x) {
		d.fail(p, "must be a whole number", n)
	}
	if d.err == nil && math.Abs(x) > 1e9 {
		d.fail(p, "must be at most 1000000000", n)
	}
	i := int(x)
	return &i
}

func (d *decoder) optBool(m map[string]*node, key, path string) *bool {
	n, ok := m[key]
	if !ok || d.err != nil {
		return nil
	}
	if n.kind != 'b' {
		d.fail(join(path, key), "must be true or false", n)
		return nil
	}
	b := n.b
	return &b
}

// optString returns "" for an absent key; a present string must not be empty, since "" means absent.
func (d *decoder) optString(m map[string]*node, key, path string) string {
	n, ok := m[key]
	if !ok || d.err != nil {
		return ""
	}
	if n.kind != 's' {
		d.fail(join(path, key), "must be a string", n)
		return ""
	}
	if n.text == "" {
		d.fail(join(path, key), "must not be empty", n)
	}
	return n.text
}

func (d *decoder) array(n *node, path string, size int) []float64 {
	if d.err != nil {
		return nil
	}
	if n.kind != 'a' || len(n.vals) != size {
		d.fail(path, "must be an array of "+strconv.Itoa(size)+" numbers", n)
		return nil
	}
	out := make([]float64, size)
	for i, v := range n.vals {
		out[i] = d.number(v, path+"["+strconv.Itoa(i)+"]")
	}
	return out
}

func (d *decoder) optVec(m map[string]*node, key, path string) *Vec3 {
	n, ok := m[key]
	if !ok || d.err != nil {
		return nil
	}
	a := d.array(n, join(path, key), 3)
	if d.err != nil {
		return nil
	}
	return &Vec3{a[0], a[1], a[2]}
}

func (d *decoder) required(m map[string]*node, key, path string) {
	if d.err == nil && m != nil && m[key] == nil {
		d.fail(join(path, key), "missing (required)", nil)
	}
}

func (d *decoder) scene(n *node) *Scene {
	m := d.fields(n, "", "name", "gravity", "dt", "solver", "bodies", "joints", "clusters", "broadphase", "view")
	s := &Scene{Bodies: []Body{}}
	if m == nil {
		return s
	}
	if v, ok := m["name"]; ok {
		if v.kind != 's' {
			d.fail("name", "must be a string", v)
		}
		s.Name = v.text
	}
	s.Gravity = d.optVec(m, "gravity", "")
	s.Dt = d.optNumber(m, "dt", "")
	if v, ok := m["solver"]; ok {
		s.Solver = d.solver(v, "solver")
	}
	if v, ok := m["broadphase"]; ok {
		if v.kind != 's' {
			d.fail("broadphase", "must be a string", v)
		}
		s.Broadphase = v.text
	}
	if v, ok := m["view"]; ok {
		s.View = d.view(v, "view")
	}
	if v, ok := m["bodies"]; ok {
		if v.kind != 'a' {
			d.fail("bodies", "must be an array of bodies", v)
			return s
		}
		s.Bodies = make([]Body, len(v.vals))
		for i, b := range v.vals {
			d.body(b, "bodies["+strconv.Itoa(i)+"]", &s.Bodies[i])
		}
	}
	if v, ok := m["joints"]; ok {
		if v.kind != 'a' {
			d.fail("joints", "must be an array of joints", v)
			return s
		}
		if len(v.vals) > 0 {
			s.Joints = make([]Joint, len(v.vals))
		}
		for i, j := range v.vals {
			d.joint(j, "joints["+strconv.Itoa(i)+"]", &s.Joints[i])
		}
	}
	if v, ok := m["clusters"]; ok {
		if v.kind != 'a' {
			d.fail("clusters", "must be an array of clusters", v)
			return s
		}
		if len(v.vals) > 0 {
			s.Clusters = make([]Cluster, len(v.vals))
		}
		for i, c := range v.vals {
			d.cluster(c, "clusters["+strconv.Itoa(i)+"]", &s.Clusters[i])
		}
	}
	return s
}

func (d *decoder) view(n *node, path string) *View {
	m := d.fields(n, path, "follow")
	if m == nil {
		return nil
	}
	return &View{Follow: d.optString(m, "follow", path)}
}

func (d *decoder) cluster(n *node, path string, c *Cluster) {
	m := d.fields(n, path, "bodies", "stiffness", "damping", "linear")
	d.required(m, "bodies", path)
	d.required(m, "stiffness", path)
	if m == nil || d.err != nil {
		return
	}
	bp := join(path, "bodies")
	if b := m["bodies"]; b.kind != 'a' {
		d.fail(bp, "must be an array of body names", b)
	} else {
		c.Bodies = make([]string, len(b.vals))
		for i, e := range b.vals {
			if e.kind != 's' {
				d.fail(bp+"["+strconv.Itoa(i)+"]", "must be a body name (a string)", e)
				return
			}
			c.Bodies[i] = e.text
		}
	}
	c.Stiffness = d.optNumber(m, "stiffness", path)
	c.Damping = d.optNumber(m, "damping", path)
	c.Linear = d.optNumber(m, "linear", path)
}

func (d *decoder) solver(n *node, path string) *Solver {
	tunables := sim.Tunables()
	keys := []string{"type", "sleep"}
	for _, t := range tunables {
		keys = append(keys, t.Key)
	}
	m := d.fields(n, path, keys...)
	if m == nil {
		return nil
	}
	v := &Solver{Type: d.optString(m, "type", path), Sleep: d.optBool(m, "sleep", path)}
	for _, t := range tunables {
		if _, ok := m[t.Key]; !ok {
			continue
		}
		switch t.Kind {
		case sim.TunableInt:
			if x := d.optInt(m, t.Key, path); x != nil {
				v.SetValue(t, float64(*x))
			}
		case sim.TunableFloat:
			if x := d.optNumber(m, t.Key, path); x != nil {
				v.SetValue(t, *x)
			}
		case sim.TunableOnOff:
			if x := d.optBool(m, t.Key, path); x != nil {
				v.SetValue(t, onOff(*x))
			}
		}
	}
	return v
}

func onOff(on bool) float64 {
	if on {
		return 1
	}
	return 0
}

func (d *decoder) body(n *node, path string, b *Body) {
	m := d.fields(n, path, "name", "type", "shape", "shapes", "position", "rotation", "velocity",
		"angularVelocity", "mass", "density", "friction", "restitution", "rollingResistance", "spinningResistance", "inertia", "centerOfMass")
	if _, ok := m["shapes"]; !ok {
		d.required(m, "shape", path)
	}
	if m == nil || d.err != nil {
		return
	}
	b.Name = d.optString(m, "name", path)
	b.Type = d.optString(m, "type", path)
	if v, ok := m["shape"]; ok {
		d.shape(v, join(path, "shape"), &b.Shape)
	}
	if v, ok := m["shapes"]; ok {
		b.Shapes = d.parts(v, join(path, "shapes"))
	}
	b.Position = d.optVec(m, "position", path)
	b.Rotation = d.optQuat(m, "rotation", path)
	b.Velocity = d.optVec(m, "velocity", path)
	b.AngularVelocity = d.optVec(m, "angularVelocity", path)
	b.Mass = d.optNumber(m, "mass", path)
	b.Density = d.optNumber(m, "density", path)
	b.Friction = d.optNumber(m, "friction", path)
	b.Restitution = d.optNumber(m, "restitution", path)
	b.RollingResistance = d.optNumber(m, "rollingResistance", path)
	b.SpinningResistance = d.optNumber(m, "spinningResistance", path)
	if v, ok := m["inertia"]; ok {
		if a := d.array(v, join(path, "inertia"), 6); a != nil {
			b.Inertia = &[6]float64{a[0], a[1], a[2], a[3], a[4], a[5]}
		}
	}
	b.CenterOfMass = d.optVec(m, "centerOfMass", path)
}

// optQuat reads an optional rotation [x, y, z, w].
func (d *decoder) optQuat(m map[string]*node, key, path string) *Quat {
	v, ok := m[key]
	if !ok {
		return nil
	}
	if a := d.array(v, join(path, key), 4); a != nil {
		return &Quat{a[0], a[1], a[2], a[3]}
	}
	return nil
}

func (d *decoder) shape(n *node, path string, s *Shape) {
	m := d.fields(n, path, "type", "halfExtents", "radius", "halfHeight", "normal", "offset", "points", "file", "vertices", "triangles", "heights", "spacing", "heightScale")
	d.required(m, "type", path)
	if m == nil || d.err != nil {
		return
	}
	s.Type = d.optString(m, "type", path)
	s.HalfExtents = d.optVec(m, "halfExtents", path)
	s.Radius = d.optNumber(m, "radius", path)
	s.HalfHeight = d.optNumber(m, "halfHeight", path)
	s.Normal = d.optVec(m, "normal", path)
	s.Offset = d.optNumber(m, "offset", path)
	s.Points = d.points(m, "points", path)
	s.File = d.optString(m, "file", path)
	s.Vertices = d.points(m, "vertices", path)
	s.Triangles = d.triangles(m, "triangles", path)
	s.Heights = d.heights(m, "heights", path)
	if v, ok := m["spacing"]; ok {
		if a := d.array(v, join(path, "spacing"), 2); a != nil {
			s.Spacing = &[2]float64{a[0], a[1]}
		}
	}
	s.HeightScale = d.optNumber(m, "heightScale", path)
	if s.File != "" {
		s.base = d.dir
	}
}

func (d *decoder) joint(n *node, path string, j *Joint) {
	m := d.fields(n, path, "type", "bodyA", "bodyB", "anchor", "axis", "limits", "motor", "swing", "twist", "breakForce", "axisB", "friction")
	d.required(m, "type", path)
	d.required(m, "bodyA", path)
	if m == nil || d.err != nil {
		return
	}
	j.Type = d.optString(m, "type", path)
	j.BodyA = d.optString(m, "bodyA", path)
	j.BodyB = d.optString(m, "bodyB", path)
	j.Anchor = d.optVec(m, "anchor", path)
	j.Axis = d.optVec(m, "axis", path)
	j.AxisB = d.optVec(m, "axisB", path)
	if v, ok := m["limits"]; ok {
		if a := d.array(v, join(path, "limits"), 2); a != nil {
			j.Limits = &[2]float64{a[0], a[1]}
		}
	}
	j.Swing = d.optNumber(m, "swing", path)
	j.BreakForce = d.optNumber(m, "breakForce", path)
	j.Friction = d.optNumber(m, "friction", path)
	if v, ok := m["twist"]; ok {
		if a := d.array(v, join(path, "twist"), 2); a != nil {
			j.Twist = &[2]float64{a[0], a[1]}
		}
	}
	if v, ok := m["motor"]; ok {
		mp := join(path, "motor")
		mm := d.fields(v, mp, "mode", "speed", "target", "maxForce")
		mode := d.optString(mm, "mode", mp)
		// A servo's speed is an optional limit; a speed motor's is what it drives to.
		if mode == "position" {
			d.required(mm, "target", mp)
		} else {
			d.required(mm, "speed", mp)
		}
		d.required(mm, "maxForce", mp)
		speed, target, force := d.optNumber(mm, "speed", mp), d.optNumber(mm, "target", mp), d.optNumber(mm, "maxForce", mp)
		if d.err == nil {
			j.Motor = &Motor{Mode: mode, Target: target, MaxForce: *force}
			if speed != nil {
				j.Motor.Speed = *speed
			}
		}
	}
}
