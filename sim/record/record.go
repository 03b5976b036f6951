// Package record records a World's steps into a bounded ring, bit for bit, so that a timeline can show
// any recorded step, a run can be rewound and branched, saved to a replay file, and checked for
// determinism.
//
// The ring is a list of groups. A group starts with a keyframe: the whole sim.State (everything the
// next step reads), compressed. Each later step of the group is a delta: every body's position,
// rotation, velocity and angular velocity as float bits, XORed with the previous step's (a body at rest
// gives zeros), the bytes split into planes (the sign and exponent bytes, which rarely change,
// together) and flate-compressed. A step is rebuilt bit for bit by applying its group's deltas to the
// keyframe's poses; the full state of any step is rebuilt by restoring the keyframe and re-simulating
// (Seek). An edit starts a new group, so re-simulation never has to replay one. When the ring holds
// more than its budget the oldest groups go.
package record

import (
	"bytes"
	"compress/flate"
	"errors"
	"fmt"
	"io"
	"math"
	"slices"
	"strconv"
	"strings"

	"tumble/sim"
)

// DefaultBudget is the ring's default memory budget, bytes.
const DefaultBudget = 256 << 20

// DefaultKeyEvery is the default number of steps between keyframes.
const DefaultKeyEvery = 120

// Recorder is a ring of recorded steps. Its methods are not safe for concurrent use.
type Recorder struct {
	// Budget bounds the memory the recording holds, bytes; the oldest groups are dropped past it
	// (the newest group always stays).
	Budget int64
	// KeyEvery is the most steps between two keyframes.
	KeyEvery int

	groups  []*group
	bytes   int64
	dropped int // groups dropped for the budget

	last    []uint32 // pose bits of the newest recorded step
	scratch sim.State
	enc     *flate.Writer
	buf     bytes.Buffer

	// cache of the last frame rebuilt by Frame: its group and step and bits
	cacheGroup *group
	cacheStep  int
	cacheBits  []uint32
}

// group is a keyframe and the deltas of the steps after it.
type group struct {
	step   int      // the keyframe's step
	n      int      // bodies
	state  []byte   // flate(sim.State binary form)
	poses  []byte   // flate(planes(pose bits)) at the keyframe
	deltas [][]byte // flate(planes(bits XOR previous bits)) for step+1, step+2, ...
	edit   string   // the edit that started the group ("" for a periodic keyframe or the start)
	names  []byte   // flate(body names joined by newlines)
	dt     float64  // seconds per step
	bytes  int64
}

// decimal widens a float32 to the float64 nearest its shortest decimal form (0.01, not
// 0.009999999776), the way a scene file gives a time step.
func decimal(x float32) float64 {
	f, _ := strconv.ParseFloat(strconv.FormatFloat(float64(x), 'g', -1, 32), 64)
	return f
}

func (g *group) last() int { return g.step + len(g.deltas) }

// New returns an empty recorder with the given budget (bytes; 0 means DefaultBudget) and keyframe
// interval (0 means DefaultKeyEvery).
func New(budget int64, keyEvery int) *Recorder {
	if budget <= 0 {
		budget = DefaultBudget
	}
	if keyEvery <= 0 {
		keyEvery = DefaultKeyEvery
	}
	return &Recorder{Budget: budget, KeyEvery: keyEvery}
}

// PoseWords is the number of float32 words a step holds per body: position (3), rotation (x, y, z,
// w), velocity (3) and angular velocity (3).
const PoseWords = 13

// PoseBits appends every body's pose words (see PoseWords) as float bits to out.
func PoseBits(b *sim.Bodies, out []uint32) []uint32 {
	for i := range b.Position {
		p, q, v, a := b.Position[i], b.Rotation[i], b.Velocity[i], b.AngularVelocity[i]
		for _, x := range [PoseWords]float32{p[0], p[1], p[2], q.V[0], q.V[1], q.V[2], q.W, v[0], v[1], v[2], a[0], a[1], a[2]} {
			out = append(out, math.Float32bits(x))
		}
	}
	return out
}

// Record adds the world's current state as the step w.StepCount. Recorded steps at or after it are
// dropped first (a branch). A keyframe is taken when edit is not empty (it names the edit made since
// the last step), when the steps do not follow on, when the body count changed, and every KeyEvery
// steps; otherwise a delta. It fails when the world's state cannot be captured (a backend other than
// the CPU).
func (r *Recorder) Record(w *sim.World, edit string) error {
	if b := w.Backend(); b != nil {
		// Refused before reading anything, so a backend's bodies are not read back every step.
		return fmt.Errorf("%s: %w", b.Name(), sim.ErrStateBackend)
	}
	step := w.StepCount
	truncated := r.Truncate(step - 1)
	bits := PoseBits(&w.Bodies, nil)
	g := r.newest()
	key := edit != "" || truncated || g == nil || g.last() != step-1 || g.n != w.Bodies.Len() ||
		len(g.deltas)+1 >= r.KeyEvery
	if key {
		if err := w.SaveState(&r.scratch); err != nil {
			return err
		}
		data, err := r.scratch.MarshalBinary()
		if err != nil {
			return err
		}
		ng := &group{step: step, n: w.Bodies.Len(), edit: edit, dt: decimal(w.Resolved().Dt)}
		ng.state = r.compress(data)
		ng.poses = r.compress(planes(bits))
		ng.names = r.compress([]byte(strings.Join(w.Bodies.Name, "\n")))
		ng.bytes = int64(len(ng.state) + len(ng.poses) + len(ng.names) + len(edit) + groupOverhead)
		r.groups = append(r.groups, ng)
		r.bytes += ng.bytes
	} else {
		x := make([]uint32, len(bits))
		for i := range bits {
			x[i] = bits[i] ^ r.last[i]
		}
		d := r.compress(planes(x))
		g.deltas = append(g.deltas, d)
		g.bytes += int64(len(d) + deltaOverhead)
		r.bytes += int64(len(d) + deltaOverhead)
	}
	r.last = bits
	for len(r.groups) > 1 && r.bytes > r.Budget {
		r.bytes -= r.groups[0].bytes
		if r.cacheGroup == r.groups[0] {
			r.cacheGroup = nil
		}
		r.groups[0] = nil
		r.groups = r.groups[1:]
		r.dropped++
	}
	return nil
}

// Bookkeeping bytes counted per group and per delta besides their data (slice headers, the group).
const (
	groupOverhead = 160
	deltaOverhead = 24
)

func (r *Recorder) newest() *group {
	if len(r.groups) == 0 {
		return nil
	}
	return r.groups[len(r.groups)-1]
}

// Truncate drops every recorded step after step; it reports whether it dropped any.
func (r *Recorder) Truncate(step int) bool {
	dropped := false
	for len(r.groups) > 0 {
		g := r.newest()
		if g.step > step {
			r.bytes -= g.bytes
			r.groups = r.groups[:len(r.groups)-1]
			dropped = true
			continue
		}
		if g.last() > step {
			for _, d := range g.deltas[step-g.step:] {
				r.bytes -= int64(len(d) + deltaOverhead)
				g.bytes -= int64(len(d) + deltaOverhead)
			}
			clear(g.deltas[step-g.step:])
			g.deltas = g.deltas[:step-g.step]
			dropped = true
		}
		break
	}
	if dropped {
		r.cacheGroup, r.last = nil, nil
		if g := r.newest(); g != nil {
			if b, err := r.bits(g, g.last()); err == nil {
				r.last = slices.Clone(b)
			}
		}
	}
	return dropped
}

// Reset drops everything.
func (r *Recorder) Reset() {
	r.groups, r.bytes, r.last, r.cacheGroup, r.dropped = nil, 0, nil, nil, 0
}

// Empty reports whether nothing is recorded.
func (r *Recorder) Empty() bool { return len(r.groups) == 0 }

// First is the oldest recorded step (0 when empty).
func (r *Recorder) First() int {
	if len(r.groups) == 0 {
		return 0
	}
	return r.groups[0].step
}

// Last is the newest recorded step (-1 when empty).
func (r *Recorder) Last() int {
	if g := r.newest(); g != nil {
		return g.last()
	}
	return -1
}

// Bytes is the memory the recording holds, bytes.
func (r *Recorder) Bytes() int64 { return r.bytes }

// KeyBytes is the part of Bytes the keyframes hold (the rest is the deltas).
func (r *Recorder) KeyBytes() int64 {
	var n int64
	for _, g := range r.groups {
		n += int64(len(g.state) + len(g.poses) + len(g.names) + groupOverhead)
	}
	return n
}

// Keyframes is the number of keyframes held.
func (r *Recorder) Keyframes() int { return len(r.groups) }

// Dropped is the number of groups (a keyframe and its deltas) dropped so far to stay in the budget.
func (r *Recorder) Dropped() int { return r.dropped }

// Edit returns the edit recorded at step (the one that started a group there), or "".
func (r *Recorder) Edit(step int) string {
	if g := r.find(step); g != nil && g.step == step {
		return g.edit
	}
	return ""
}

// Edits lists the recorded steps that start with an edit, oldest first, with the edits' names.
func (r *Recorder) Edits() (steps []int, names []string) {
	for _, g := range r.groups {
		if g.edit != "" {
			steps, names = append(steps, g.step), append(names, g.edit)
		}
	}
	return steps, names
}

func (r *Recorder) find(step int) *group {
	for i := len(r.groups) - 1; i >= 0; i-- {
		if g := r.groups[i]; g.step <= step {
			if step <= g.last() {
				return g
			}
			return nil
		}
	}
	return nil
}

// ErrNotRecorded is returned for a step outside the recording.
var ErrNotRecorded = errors.New("step not recorded")

// Frame returns the pose bits (see PoseBits) of a recorded step; the slice is the recorder's until
// the next call.
func (r *Recorder) Frame(step int) ([]uint32, error) {
	g := r.find(step)
	if g == nil {
		return nil, fmt.Errorf("step %d: %w (recorded: %d to %d)", step, ErrNotRecorded, r.First(), r.Last())
	}
	return r.bits(g, step)
}

func (r *Recorder) bits(g *group, step int) ([]uint32, error) {
	if r.cacheGroup != g || r.cacheStep > step {
		raw, err := inflate(g.poses)
		if err != nil {
			return nil, err
		}
		r.cacheBits, err = unplanes(raw, r.cacheBits[:0])
		if err != nil || len(r.cacheBits) != g.n*PoseWords {
			return nil, fmt.Errorf("step %d: keyframe poses damaged", g.step)
		}
		r.cacheGroup, r.cacheStep = g, g.step
	}
	var x []uint32
	for r.cacheStep < step {
		raw, err := inflate(g.deltas[r.cacheStep-g.step])
		if err == nil {
			x, err = unplanes(raw, x[:0])
		}
		if err != nil || len(x) != len(r.cacheBits) {
			r.cacheGroup = nil
			return nil, fmt.Errorf("step %d: delta damaged", r.cacheStep+1)
		}
		for i := range x {
			r.cacheBits[i] ^= x[i]
		}
		r.cacheStep++
	}
	return r.cacheBits, nil
}

// Names returns the names of the bodies at a recorded step, in the order of its pose bits, and the
// time step in force then (seconds).
func (r *Recorder) Names(step int) ([]string, float64, error) {
	g := r.find(step)
	if g == nil {
		return nil, 0, fmt.Errorf("step %d: %w (recorded: %d to %d)", step, ErrNotRecorded, r.First(), r.Last())
	}
	raw, err := inflate(g.names)
	if err != nil {
		return nil, 0, fmt.Errorf("step %d: body names damaged", g.step)
	}
	names := strings.Split(string(raw), "\n")
	if g.n == 0 {
		names = nil
	}
	if len(names) != g.n {
		return nil, 0, fmt.Errorf("step %d: %d body names for %d bodies", g.step, len(names), g.n)
	}
	return names, g.dt, nil
}

// KeyState decodes the keyframe at or before step into st and returns its step.
func (r *Recorder) KeyState(step int, st *sim.State) (int, error) {
	g := r.find(step)
	if g == nil {
		return 0, fmt.Errorf("step %d: %w (recorded: %d to %d)", step, ErrNotRecorded, r.First(), r.Last())
	}
	data, err := inflate(g.state)
	if err != nil {
		return 0, fmt.Errorf("keyframe at step %d: %w", g.step, err)
	}
	if err := st.UnmarshalBinary(data); err != nil {
		return 0, fmt.Errorf("keyframe at step %d: %w", g.step, err)
	}
	return g.step, nil
}

// Divergence reports the first difference between a re-simulated step and the recording.
type Divergence struct {
	Step  int
	Body  string
	Field string  // "position x", "rotation w", ...
	Want  float32 // recorded
	Got   float32 // re-simulated
}

func (d *Divergence) Error() string {
	return fmt.Sprintf("step %d, body %q, %s: recorded %v (%#08x), re-simulated %v (%#08x)", d.Step, d.Body, d.Field,
		d.Want, math.Float32bits(d.Want), d.Got, math.Float32bits(d.Got))
}

var fieldNames = [PoseWords]string{"position x", "position y", "position z", "rotation x", "rotation y", "rotation z",
	"rotation w", "velocity x", "velocity y", "velocity z", "angular velocity x", "angular velocity y", "angular velocity z"}

// Compare returns a *Divergence for the first word where the world's poses differ from the recorded
// bits of its step, or nil.
func Compare(w *sim.World, rec []uint32) *Divergence {
	got := PoseBits(&w.Bodies, nil)
	if len(got) != len(rec) {
		return &Divergence{Step: w.StepCount, Body: fmt.Sprintf("(%d bodies, recorded %d)", w.Bodies.Len(), len(rec)/PoseWords), Field: "body count"}
	}
	for i := range got {
		if got[i] != rec[i] {
			return &Divergence{Step: w.StepCount, Body: w.Bodies.Name[i/PoseWords], Field: fieldNames[i%PoseWords],
				Want: math.Float32frombits(rec[i]), Got: math.Float32frombits(got[i])}
		}
	}
	return nil
}

// Seek makes w the recorded world at step, exactly: it restores the keyframe at or before it and
// re-simulates the steps between, checking each against the recording (a *Divergence if one
// differs). progress, when not nil, is called after each re-simulated step with the steps done and
// the total.
func (r *Recorder) Seek(w *sim.World, step int, progress func(done, total int)) error {
	var st sim.State
	from, err := r.KeyState(step, &st)
	if err != nil {
		return err
	}
	if err := w.RestoreState(&st); err != nil {
		return err
	}
	for w.StepCount < step {
		if err := w.Step(); err != nil {
			return err
		}
		rec, err := r.Frame(w.StepCount)
		if err != nil {
			return err
		}
		if d := Compare(w, rec); d != nil {
			return d
		}
		if progress != nil {
			progress(w.StepCount-from, step-from)
		}
	}
	return nil
}

func (r *Recorder) compress(p []byte) []byte {
	r.buf.Reset()
	if r.enc == nil {
		r.enc, _ = flate.NewWriter(&r.buf, flate.BestSpeed)
	} else {
		r.enc.Reset(&r.buf)
	}
	r.enc.Write(p)
	r.enc.Close()
	return bytes.Clone(r.buf.Bytes())
}

func inflate(p []byte) ([]byte, error) {
	return io.ReadAll(flate.NewReader(bytes.NewReader(p)))
}

// planes lays the words' bytes out plane by plane: every word's lowest byte, then every word's
// second byte, and so on. XORed float bits of a body barely moving differ in the low mantissa bytes
// only, so the high planes are runs of zeros that compress to almost nothing.
func planes(x []uint32) []byte {
	n := len(x)
	out := make([]byte, 4*n)
	for i, v := range x {
		out[i] = byte(v)
		out[n+i] = byte(v >> 8)
		out[2*n+i] = byte(v >> 16)
		out[3*n+i] = byte(v >> 24)
	}
	return out
}

func unplanes(p []byte, out []uint32) ([]uint32, error) {
	if len(p)%4 != 0 {
		return nil, errors.New("plane data not a whole number of words")
	}
	n := len(p) / 4
	for i := 0; i < n; i++ {
		out = append(out, uint32(p[i])|uint32(p[n+i])<<8|uint32(p[2*n+i])<<16|uint32(p[3*n+i])<<24)
	}
	return out, nil
}

// Clone returns a recorder holding the same steps that later recording into r does not change
// (the steps' data is shared: it is never modified once recorded).
func (r *Recorder) Clone() *Recorder {
	c := &Recorder{Budget: r.Budget, KeyEvery: r.KeyEvery, bytes: r.bytes, dropped: r.dropped}
	for _, g := range r.groups {
		ng := *g
		ng.deltas = slices.Clone(g.deltas)
		c.groups = append(c.groups, &ng)
	}
	c.last = slices.Clone(r.last)
	return c
}
