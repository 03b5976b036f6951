// Package record records a World's steps into a bounded ring, so that a timeline can show any
// recorded step, a run can be rewound and branched, saved to a replay file, and checked for
// determinism.
//
// The ring is a list of groups of consecutive steps. Every step holds three things:
//
//   - its display poses: every body's position and rotation quantised (1/2048 m, 1/8192 of a
//     rotation unit), predicted from the two steps before it (a body moving steadily or at rest
//     predicts to zero), the residuals' bytes split into planes and flate-compressed. A step is
//     shown from them at once, with no re-simulation; a few KB per step for thousands of moving
//     bodies.
//   - a 64-bit hash of its exact pose bits (position, rotation, velocity, angular velocity), which a
//     re-simulation is checked against.
//   - while the budget allows, its exact pose bits, XORed with the previous step's and
//     flate-compressed (the format of version 1); the oldest groups lose them first.
//
// A group starts with a keyframe: the whole sim.State (everything the next step reads), compressed.
// The exact state of any step is rebuilt by restoring the nearest keyframe at or before it and
// re-simulating (Seek), each re-simulated step checked against the recorded hash. An edit starts a
// new group, whose keyframe is always kept, so re-simulation never has to replay one. Past the budget
// the ring first drops the oldest exact pose bits, then thins the older periodic keyframes (their
// groups' steps stay, shown from the display poses and reached exactly by re-simulating from the
// keyframe before), then drops the oldest groups.
package record

import (
	"bytes"
	"compress/flate"
	"errors"
	"fmt"
	"io"
	"math"
	"runtime"
	"slices"
	"strconv"
	"strings"
	"sync"
	"sync/atomic"

	"tumble/sim"
)

// DefaultBudget is the ring's default memory budget, bytes.
const DefaultBudget = 256 << 20

// DefaultKeyEvery is the default number of steps between keyframes.
const DefaultKeyEvery = 120

// MaxKeyGap is the most steps, in keyframe intervals (KeyEvery), that thinning leaves between two
// kept keyframes: reaching a step's exact state re-simulates at most MaxKeyGap*KeyEvery steps.
const MaxKeyGap = 8

// keepDense is the number of newest groups whose keyframes are never thinned.
const keepDense = 2

// Recorder is a ring of recorded steps. Its methods are not safe for concurrent use.
type Recorder struct {
	// Budget bounds the memory the recording holds, bytes; past it the oldest exact poses, then
	// older keyframes, then the oldest groups are dropped (the newest group always stays).
	Budget int64
	// KeyEvery is the most steps between two keyframes (while none is thinned).
	KeyEvery int

	groups  []*group
	bytes   int64
	dropped int // groups dropped for the budget
	thinned int // keyframes thinned for the budget

	last     []uint32 // exact pose bits of the newest recorded step (nil when not held)
	lastQ    []uint32 // quantised poses of the newest recorded step
	prevQ    []uint32 // and of the step before it in its group (nil at a group's first step)
	scratch  sim.State
	stateBuf []byte // the keyframe's binary form before compression, reused

	exactCache frameCache // the last exact frame rebuilt
	dispCache  frameCache // the last display frame rebuilt (and the one before it)
	out        []uint32
}

// frameCache is a frame rebuilt from a group, kept so the next step in order costs one delta.
type frameCache struct {
	g    *group
	step int
	cur  []uint32
	prev []uint32 // display frames only: the step before (nil at the group's first)
}

// group is a run of consecutive steps that starts with a keyframe (which thinning may drop).
type group struct {
	step  int      // the group's first step
	n     int      // bodies
	state []byte   // flate(sim.State binary form) at step; nil once thinned
	disp  [][]byte // per step: flate(planes(quantised poses)) at step, residuals after
	hash  []uint64 // per step: PoseHash of the exact pose bits
	exact [][]byte // per step: flate(planes(pose bits)) at step, XOR with the previous after; nil once dropped
	edit  string   // the edit that started the group ("" for a periodic keyframe or the start)
	// periodic: the group was started only because the one before was KeyEvery steps long, so its
	// steps follow from the keyframe before by stepping, and its keyframe may be thinned.
	periodic bool
	names    []byte  // flate(body names joined by newlines)
	dt       float64 // seconds per step
	bytes    int64
}

// size is the memory the group holds, bytes.
func (g *group) size() int64 {
	n := int64(len(g.state) + len(g.names) + len(g.edit) + groupOverhead + len(g.hash)*8)
	for _, d := range g.disp {
		n += int64(len(d) + deltaOverhead)
	}
	for _, d := range g.exact {
		n += int64(len(d) + deltaOverhead)
	}
	return n
}

// hasExact reports whether the group holds every one of its steps' exact pose bits.
func (g *group) hasExact() bool { return len(g.exact) == len(g.disp) && len(g.exact) > 0 }

// decimal widens a float32 time step to the float64 a scene file most likely gave: a rate's
// reciprocal (1/60, not 0.01666666753) when the float32 is exactly that, else the float64 nearest the
// shortest decimal form (0.01, not 0.009999999776).
func decimal(x float32) float64 {
	if x > 0 {
		if r := math.Round(1 / float64(x)); r >= 1 && float32(1/r) == x {
			return 1 / r
		}
	}
	f, _ := strconv.ParseFloat(strconv.FormatFloat(float64(x), 'g', -1, 32), 64)
	return f
}

func (g *group) last() int { return g.step + len(g.disp) - 1 }

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
	n := len(out)
	out = slices.Grow(out, PoseWords*b.Len())[:n+PoseWords*b.Len()]
	poseBits(b, out[n:], 0, b.Len())
	return out
}

// poseBits writes bodies lo to hi's pose words into out, body i's at out[i*PoseWords:].
func poseBits(b *sim.Bodies, out []uint32, lo, hi int) {
	for i := lo; i < hi; i++ {
		p, q, v, a := b.Position[i], b.Rotation[i], b.Velocity[i], b.AngularVelocity[i]
		o := (*[PoseWords]uint32)(out[i*PoseWords:])
		o[0], o[1], o[2] = math.Float32bits(p[0]), math.Float32bits(p[1]), math.Float32bits(p[2])
		o[3], o[4], o[5], o[6] = math.Float32bits(q.V[0]), math.Float32bits(q.V[1]), math.Float32bits(q.V[2]), math.Float32bits(q.W)
		o[7], o[8], o[9] = math.Float32bits(v[0]), math.Float32bits(v[1]), math.Float32bits(v[2])
		o[10], o[11], o[12] = math.Float32bits(a[0]), math.Float32bits(a[1]), math.Float32bits(a[2])
	}
}

// PoseHash is the hash of a step's exact pose bits (see PoseBits) that the recording keeps for every
// step: 64-bit FNV-1a over the words.
func PoseHash(bits []uint32) uint64 {
	h := uint64(14695981039346656037)
	for _, w := range bits {
		h = (h ^ uint64(w)) * 1099511628211
	}
	return h
}

// Display quantisation: positions in units of 1/2048 m (half a millimetre), rotation components in 1/8192.
const (
	posScale = 2048
	rotScale = 8192
	// dispWords is the number of quantised words a step holds per body: position (3), rotation (4).
	dispWords = 7
)

func quant(x float32, scale float64) uint32 {
	v := math.Round(float64(x) * scale)
	if !(v > math.MinInt32) { // NaN too
		v = math.MinInt32
	}
	return uint32(int32(min(v, math.MaxInt32)))
}

// quantise appends every body's display words (see dispWords) for the pose bits to out.
func quantise(bits []uint32, out []uint32) []uint32 {
	n := len(out)
	bodies := len(bits) / PoseWords
	out = slices.Grow(out, bodies*dispWords)[:n+bodies*dispWords]
	for i := range bodies {
		quantiseBody(bits[i*PoseWords:], out[n+i*dispWords:])
	}
	return out
}

// quantiseBody writes one body's display words for its pose bits.
func quantiseBody(bits, out []uint32) {
	for k := range 3 {
		out[k] = quant(math.Float32frombits(bits[k]), posScale)
	}
	for k := 3; k < dispWords; k++ {
		out[k] = quant(math.Float32frombits(bits[k]), rotScale)
	}
}

// predict is display word i's prediction from the step before (p1) and the one before that (p2): nil
// p1 predicts zero, nil p2 predicts no motion, both predict steady motion.
func predict(p1, p2 []uint32, i int) uint32 {
	switch {
	case p2 != nil:
		return 2*p1[i] - p2[i]
	case p1 != nil:
		return p1[i]
	}
	return 0
}

// encodeGrain is the fewest bodies a goroutine of encode takes.
const encodeGrain = 2048

// encode computes what a step records from the bodies: their exact pose bits (PoseBits), their
// display words (quantise), the byte planes (see unplanes) of the display words' residuals from their
// prediction (predict), zigzag-coded so that small residuals of either sign have zero high bytes,
// and, when exact is set, the planes of the pose bits, XORed with xor unless it is nil. A large world
// is split by bodies across goroutines; the result is the same.
func encode(b *sim.Bodies, p1, p2, xor []uint32, exact bool) (bits, q []uint32, disp, ex []byte) {
	n := b.Len()
	bits = make([]uint32, n*PoseWords)
	q = make([]uint32, n*dispWords)
	disp = make([]byte, 4*len(q))
	if exact {
		ex = make([]byte, 4*len(bits))
	}
	body := func(lo, hi int) {
		poseBits(b, bits, lo, hi)
		for i := lo; i < hi; i++ {
			quantiseBody(bits[i*PoseWords:], q[i*dispWords:])
		}
		nq := len(q)
		for i := lo * dispWords; i < hi*dispWords; i++ {
			d := int32(q[i] - predict(p1, p2, i))
			z := uint32(d<<1) ^ uint32(d>>31)
			disp[i], disp[nq+i], disp[2*nq+i], disp[3*nq+i] = byte(z), byte(z>>8), byte(z>>16), byte(z>>24)
		}
		if !exact {
			return
		}
		nb := len(bits)
		for i := lo * PoseWords; i < hi*PoseWords; i++ {
			v := bits[i]
			if xor != nil {
				v ^= xor[i]
			}
			ex[i], ex[nb+i], ex[2*nb+i], ex[3*nb+i] = byte(v), byte(v>>8), byte(v>>16), byte(v>>24)
		}
	}
	parts := min(runtime.GOMAXPROCS(0), n/encodeGrain)
	if parts < 2 {
		body(0, n)
		return bits, q, disp, ex
	}
	var wg sync.WaitGroup
	for k := range parts {
		wg.Go(func() { body(k*n/parts, (k+1)*n/parts) })
	}
	wg.Wait()
	return bits, q, disp, ex
}

// unresiduals undoes encode's residual coding in place on x, which becomes the quantised step.
func unresiduals(x, p1, p2 []uint32) {
	for i, z := range x {
		x[i] = (z>>1 ^ -(z & 1)) + predict(p1, p2, i)
	}
}

// Record adds the world's current state as the step w.StepCount. Recorded steps at or after it are
// dropped first (a branch). A new group with a keyframe is started when edit is not empty (it names
// the edit made since the last step), when the steps do not follow on, when the body count changed,
// and every KeyEvery steps. It fails when the world's state cannot be captured (a backend other than
// the CPU).
func (r *Recorder) Record(w *sim.World, edit string) error {
	if b := w.Backend(); b != nil {
		// Refused before reading anything, so a backend's bodies are not read back every step.
		return fmt.Errorf("%s: %w", b.Name(), sim.ErrStateBackend)
	}
	step := w.StepCount
	truncated := r.Truncate(step - 1)
	g := r.newest()
	follows := edit == "" && !truncated && g != nil && g.last() == step-1 && g.n == w.Bodies.Len()
	if key := !follows || len(g.disp) >= r.KeyEvery; key {
		bits, q, disp, exact := encode(&w.Bodies, nil, nil, nil, true)
		if err := w.SaveState(&r.scratch); err != nil {
			return err
		}
		data, err := r.scratch.AppendBinary(r.stateBuf[:0])
		if err != nil {
			return err
		}
		r.stateBuf = data
		g = &group{step: step, n: w.Bodies.Len(), edit: edit, dt: decimal(w.Resolved().Dt), periodic: follows}
		z := compressAll(data, []byte(strings.Join(w.Bodies.Name, "\n")), disp, exact)
		g.state, g.names = z[0], z[1]
		g.disp = append(g.disp, z[2])
		g.exact = append(g.exact, z[3])
		g.hash = append(g.hash, PoseHash(bits))
		g.bytes = g.size()
		r.groups = append(r.groups, g)
		r.bytes += g.bytes
		r.prevQ = nil
		r.last, r.lastQ = bits, q
	} else {
		r.bytes -= g.bytes
		// The exact bits go on while every step of the group has them.
		held := len(g.exact) == len(g.disp) && len(g.exact) > 0 && r.last != nil
		bits, q, disp, exact := encode(&w.Bodies, r.lastQ, r.prevQ, r.last, held)
		g.hash = append(g.hash, PoseHash(bits))
		if held {
			z := compressAll(disp, exact)
			g.disp = append(g.disp, z[0])
			g.exact = append(g.exact, z[1])
		} else {
			g.disp = append(g.disp, compressAll(disp)[0])
			g.exact = nil
		}
		g.bytes = g.size()
		r.bytes += g.bytes
		r.prevQ = r.lastQ
		r.last, r.lastQ = bits, q
	}
	r.fit()
	return nil
}

// fit brings the ring within its budget: it drops the oldest groups' exact poses, then thins older
// keyframes, then drops the oldest groups, in that order, until it fits or one group is left.
func (r *Recorder) fit() {
	for r.bytes > r.Budget {
		if i := slices.IndexFunc(r.groups, func(g *group) bool { return g.exact != nil }); i >= 0 {
			r.resize(r.groups[i], func(g *group) { g.exact = nil })
			r.exactCache.g = nil
			if i == len(r.groups)-1 {
				r.last = nil
			}
			continue
		}
		if i := r.thinnable(); i >= 0 {
			r.resize(r.groups[i], func(g *group) { g.state = nil })
			r.thinned++
			continue
		}
		if len(r.groups) <= 1 {
			return
		}
		// Drop the oldest group, and the groups after it that have no keyframe to start from.
		r.dropOldest()
		for len(r.groups) > 1 && r.groups[0].state == nil {
			r.dropOldest()
		}
		r.exactCache.g, r.dispCache.g = nil, nil
	}
}

func (r *Recorder) dropOldest() {
	r.bytes -= r.groups[0].bytes
	r.groups[0] = nil
	r.groups = r.groups[1:]
	r.dropped++
}

// thinnable returns the index of the keyframe to thin next, or -1: a periodic keyframe (one taken
// only for the interval: not an edit's, not after a branch or a jump) outside the newest keepDense
// groups, whose removal leaves the smallest gap between the kept keyframes around it (the oldest of
// equals), at most MaxKeyGap*KeyEvery steps.
func (r *Recorder) thinnable() int {
	best, bestGap := -1, MaxKeyGap*r.KeyEvery+1
	prev := 0 // index of the last kept keyframe before i
	for i := 1; i < len(r.groups)-keepDense; i++ {
		g := r.groups[i]
		if g.state == nil {
			continue
		}
		if g.periodic {
			next := i + 1
			for next < len(r.groups) && r.groups[next].state == nil {
				next++
			}
			end := r.Last() + 1
			if next < len(r.groups) {
				end = r.groups[next].step
			}
			if gap := end - r.groups[prev].step; gap < bestGap {
				best, bestGap = i, gap
			}
		}
		prev = i
	}
	return best
}

// resize applies f to g and keeps the byte count.
func (r *Recorder) resize(g *group, f func(*group)) {
	r.bytes -= g.bytes
	f(g)
	g.bytes = g.size()
	r.bytes += g.bytes
}

// Bookkeeping bytes counted per group and per step besides their data (slice headers, the group).
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
			k := step - g.step + 1
			r.resize(g, func(g *group) {
				clear(g.disp[k:])
				g.disp, g.hash = g.disp[:k], g.hash[:k]
				if g.exact != nil {
					clear(g.exact[k:])
					g.exact = g.exact[:k]
				}
			})
			dropped = true
		}
		break
	}
	if dropped {
		r.tail()
	}
	return dropped
}

// tail sets the newest step's frames, which the next recorded step is coded against.
func (r *Recorder) tail() {
	r.exactCache.g, r.dispCache.g = nil, nil
	r.last, r.lastQ, r.prevQ = nil, nil, nil
	g := r.newest()
	if g == nil {
		return
	}
	if g.hasExact() {
		if b, err := r.exactBits(g, g.last()); err == nil {
			r.last = slices.Clone(b)
		}
	}
	if err := r.dispBits(g, g.last()); err == nil {
		r.lastQ = slices.Clone(r.dispCache.cur)
		if r.dispCache.prev != nil {
			r.prevQ = slices.Clone(r.dispCache.prev)
		}
	}
}

// Reset drops everything.
func (r *Recorder) Reset() {
	r.groups, r.bytes, r.dropped, r.thinned = nil, 0, 0, 0
	r.tail()
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

// KeyBytes is the part of Bytes the keyframes hold.
func (r *Recorder) KeyBytes() int64 {
	var n int64
	for _, g := range r.groups {
		n += int64(len(g.state) + len(g.names) + groupOverhead)
	}
	return n
}

// ExactBytes is the part of Bytes the exact pose bits hold.
func (r *Recorder) ExactBytes() int64 {
	var n int64
	for _, g := range r.groups {
		for _, d := range g.exact {
			n += int64(len(d) + deltaOverhead)
		}
	}
	return n
}

// Keyframes is the number of keyframes held.
func (r *Recorder) Keyframes() int {
	n := 0
	for _, g := range r.groups {
		if g.state != nil {
			n++
		}
	}
	return n
}

// Thinned is the number of keyframes thinned so far to stay in the budget.
func (r *Recorder) Thinned() int { return r.thinned }

// Dropped is the number of groups (a keyframe and its steps) dropped so far to stay in the budget.
func (r *Recorder) Dropped() int { return r.dropped }

// ExactFrom is the first step from which on every recorded step's exact pose bits are held (Last()+1
// when the newest step's are not).
func (r *Recorder) ExactFrom() int {
	from := r.Last() + 1
	for i := len(r.groups) - 1; i >= 0 && r.groups[i].hasExact(); i-- {
		from = r.groups[i].step
	}
	return from
}

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

func (r *Recorder) notRecorded(step int) error {
	return fmt.Errorf("step %d: %w (recorded: %d to %d)", step, ErrNotRecorded, r.First(), r.Last())
}

// Exact reports whether the recording holds the exact pose bits of step.
func (r *Recorder) Exact(step int) bool {
	g := r.find(step)
	return g != nil && g.hasExact()
}

// Frame returns the pose bits (see PoseBits) of a recorded step; the slice is the recorder's until
// the next call. They are exact when Exact(step); otherwise they are the display poses: positions
// and rotations to the recording's quantisation, velocities and angular velocities estimated from
// the step before (zero at a group's first step).
func (r *Recorder) Frame(step int) ([]uint32, error) {
	g := r.find(step)
	if g == nil {
		return nil, r.notRecorded(step)
	}
	if g.hasExact() {
		return r.exactBits(g, step)
	}
	if err := r.dispBits(g, step); err != nil {
		return nil, err
	}
	r.out = dequantise(r.dispCache.cur, r.dispCache.prev, g.dt, r.out[:0])
	return r.out, nil
}

// dequantise appends the pose bits of quantised step q, with velocities from the step before, p.
func dequantise(q, p []uint32, dt float64, out []uint32) []uint32 {
	val := func(x []uint32, i int) float64 {
		s := float64(posScale)
		if i%dispWords >= 3 {
			s = rotScale
		}
		return float64(int32(x[i])) / s
	}
	for i := 0; i+dispWords <= len(q); i += dispWords {
		var w [PoseWords]float64
		for k := 0; k < dispWords; k++ {
			w[k] = val(q, i+k)
		}
		if n := math.Sqrt(w[3]*w[3] + w[4]*w[4] + w[5]*w[5] + w[6]*w[6]); n > 0 {
			for k := 3; k < 7; k++ {
				w[k] /= n
			}
		} else {
			w[6] = 1
		}
		if p != nil && dt > 0 {
			for k := 0; k < 3; k++ {
				w[7+k] = (w[k] - val(p, i+k)) / dt
			}
			// Angular velocity from the rotation between the two steps: 2 (q p*).v / dt.
			px, py, pz, pw := val(p, i+3), val(p, i+4), val(p, i+5), val(p, i+6)
			if n := math.Sqrt(px*px + py*py + pz*pz + pw*pw); n > 0 {
				px, py, pz, pw = -px/n, -py/n, -pz/n, pw/n
				x, y, z, qw := w[3], w[4], w[5], w[6]
				rx := qw*px + x*pw + y*pz - z*py
				ry := qw*py - x*pz + y*pw + z*px
				rz := qw*pz + x*py - y*px + z*pw
				rw := qw*pw - x*px - y*py - z*pz
				if rw < 0 {
					rx, ry, rz = -rx, -ry, -rz
				}
				w[10], w[11], w[12] = 2*rx/dt, 2*ry/dt, 2*rz/dt
			}
		}
		for _, v := range w {
			out = append(out, math.Float32bits(float32(v)))
		}
	}
	return out
}

func (r *Recorder) exactBits(g *group, step int) ([]uint32, error) {
	c := &r.exactCache
	if c.g != g || c.step > step {
		raw, err := inflate(g.exact[0])
		if err == nil {
			c.cur, err = unplanes(raw, c.cur[:0])
		}
		if err != nil || len(c.cur) != g.n*PoseWords {
			c.g = nil
			return nil, fmt.Errorf("step %d: exact poses damaged", g.step)
		}
		c.g, c.step = g, g.step
	}
	var x []uint32
	for c.step < step {
		raw, err := inflate(g.exact[c.step-g.step+1])
		if err == nil {
			x, err = unplanes(raw, x[:0])
		}
		if err != nil || len(x) != len(c.cur) {
			c.g = nil
			return nil, fmt.Errorf("step %d: exact poses damaged", c.step+1)
		}
		for i := range x {
			c.cur[i] ^= x[i]
		}
		c.step++
	}
	return c.cur, nil
}

// dispBits rebuilds the quantised step (and the one before it) into r.dispCache.
func (r *Recorder) dispBits(g *group, step int) error {
	c := &r.dispCache
	if c.g != g || c.step > step {
		c.g, c.step, c.prev = g, g.step-1, nil
		c.cur = c.cur[:0]
	}
	for c.step < step {
		k := c.step - g.step + 1
		raw, err := inflate(g.disp[k])
		var x []uint32
		if err == nil {
			x, err = unplanes(raw, nil)
		}
		if err != nil || len(x) != g.n*dispWords {
			c.g = nil
			return fmt.Errorf("step %d: display poses damaged", c.step+1)
		}
		var p1, p2 []uint32
		if k >= 1 {
			p1 = c.cur
		}
		if k >= 2 {
			p2 = c.prev
		}
		unresiduals(x, p1, p2)
		if k >= 1 {
			c.prev = c.cur
		}
		c.cur = x
		c.step++
	}
	return nil
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

// keyGroup returns the group of the nearest keyframe at or before step.
func (r *Recorder) keyGroup(step int) (*group, error) {
	g := r.find(step)
	if g == nil {
		return nil, r.notRecorded(step)
	}
	i := slices.Index(r.groups, g)
	for i > 0 && r.groups[i].state == nil {
		i--
	}
	g = r.groups[i]
	if g.state == nil {
		return nil, fmt.Errorf("step %d: no keyframe at or before it (the oldest were thinned)", step)
	}
	return g, nil
}

// KeyStep returns the step of the nearest keyframe at or before step (the one KeyState decodes),
// without decoding it.
func (r *Recorder) KeyStep(step int) (int, error) {
	g, err := r.keyGroup(step)
	if err != nil {
		return 0, err
	}
	return g.step, nil
}

// KeyState decodes the nearest keyframe at or before step into st and returns its step.
func (r *Recorder) KeyState(step int, st *sim.State) (int, error) {
	g, err := r.keyGroup(step)
	if err != nil {
		return 0, err
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
	// Hashed is true when the step's exact bits were no longer held: the difference was seen in
	// the step's hash, and Body, Field and Want come from its display poses (Want to the
	// recording's quantisation), or are empty when the difference is below it.
	Hashed bool
}

func (d *Divergence) Error() string {
	if d.Hashed {
		if d.Body == "" {
			return fmt.Sprintf("step %d: the re-simulated poses' hash differs from the recorded one, by less than the recording's display precision (the step's exact bits were dropped for the budget)", d.Step)
		}
		return fmt.Sprintf("step %d, body %q, %s: recorded about %v (display precision; the exact bits were dropped for the budget), re-simulated %v (%#08x)",
			d.Step, d.Body, d.Field, d.Want, d.Got, math.Float32bits(d.Got))
	}
	return fmt.Sprintf("step %d, body %q, %s: recorded %v (%#08x), re-simulated %v (%#08x)", d.Step, d.Body, d.Field,
		d.Want, math.Float32bits(d.Want), d.Got, math.Float32bits(d.Got))
}

var fieldNames = [PoseWords]string{"position x", "position y", "position z", "rotation x", "rotation y", "rotation z",
	"rotation w", "velocity x", "velocity y", "velocity z", "angular velocity x", "angular velocity y", "angular velocity z"}

// Compare returns a *Divergence for the first word where the world's poses differ from the recorded
// bits of its step, or nil.
func Compare(w *sim.World, rec []uint32) *Divergence {
	return compareBits(w, PoseBits(&w.Bodies, nil), rec)
}

func compareBits(w *sim.World, got, rec []uint32) *Divergence {
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

// verify checks the world against its recorded step: the exact bits when held, else the hash (and
// the display poses, to name the body).
func (r *Recorder) verify(w *sim.World) error {
	g := r.find(w.StepCount)
	if g == nil {
		return r.notRecorded(w.StepCount)
	}
	got := PoseBits(&w.Bodies, nil)
	if g.hasExact() {
		rec, err := r.exactBits(g, w.StepCount)
		if err != nil {
			return err
		}
		if d := compareBits(w, got, rec); d != nil {
			return d
		}
		return nil
	}
	if len(got) != g.n*PoseWords {
		return &Divergence{Step: w.StepCount, Body: fmt.Sprintf("(%d bodies, recorded %d)", w.Bodies.Len(), g.n), Field: "body count"}
	}
	if PoseHash(got) == g.hash[w.StepCount-g.step] {
		return nil
	}
	d := &Divergence{Step: w.StepCount, Hashed: true}
	if err := r.dispBits(g, w.StepCount); err != nil {
		return err
	}
	q := quantise(got, nil)
	for i, v := range q {
		if v != r.dispCache.cur[i] {
			b, k := i/dispWords, i%dispWords
			scale := float64(posScale)
			if k >= 3 {
				scale = rotScale
			}
			d.Body, d.Field = w.Bodies.Name[b], fieldNames[k]
			d.Want = float32(float64(int32(r.dispCache.cur[i])) / scale)
			d.Got = math.Float32frombits(got[b*PoseWords+k])
			break
		}
	}
	return d
}

// Seek makes w the recorded world at step, exactly: it restores the nearest keyframe at or before it
// and re-simulates the steps between, checking each against the recording (a *Divergence if one
// differs). progress, when not nil, is called after each re-simulated step with the steps done and
// the total; an error it returns stops the re-simulation there and is returned, w left part way.
func (r *Recorder) Seek(w *sim.World, step int, progress func(done, total int) error) error {
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
		if err := r.verify(w); err != nil {
			return err
		}
		if progress != nil {
			if err := progress(w.StepCount-from, step-from); err != nil {
				return err
			}
		}
	}
	return nil
}

// ExactFrame returns the exact pose bits of step: the recorded ones when held, else w re-simulated
// to it (stepped once when w is at the step before, else sought from a keyframe), checked against
// the recorded hash. The slice is valid until the next call.
func (r *Recorder) ExactFrame(w *sim.World, step int) ([]uint32, error) {
	if r.Exact(step) {
		return r.Frame(step)
	}
	if w.StepCount == step-1 && r.find(step-1) != nil && r.Edit(step) == "" && w.Bodies.Len() > 0 {
		if err := w.Step(); err != nil {
			return nil, err
		}
		if err := r.verify(w); err != nil {
			return nil, err
		}
	} else if w.StepCount != step || w.Bodies.Len() == 0 {
		if err := r.Seek(w, step, nil); err != nil {
			return nil, err
		}
	}
	r.out = PoseBits(&w.Bodies, r.out[:0])
	return r.out, nil
}

// compressChunk is the size of the pieces a step's large arrays are flate-compressed in, concurrently:
// each piece is its own flate blocks, ended by a sync flush (the last by the final block), so the
// pieces' concatenation is one flate stream that reads back as before. A piece's matches reach no
// further back than its start, which costs little (flate's window is 32 KB). The cut depends on the
// sizes alone, never on the machine, so a recording's bytes are the same everywhere.
const compressChunk = 64 << 10

// coder is a flate writer and its output buffer, kept between uses (coders): a writer holds some
// hundreds of KB of tables.
type coder struct {
	enc *flate.Writer
	buf bytes.Buffer
}

var coders = sync.Pool{New: func() any {
	enc, _ := flate.NewWriter(io.Discard, flate.BestSpeed)
	return &coder{enc: enc}
}}

// compressAll returns each input flate-compressed (BestSpeed). Inputs larger than compressChunk are
// cut into pieces, and the pieces of all inputs are compressed on up to GOMAXPROCS goroutines: for the
// 10,000-box pile that is most of what recording a step costs.
func compressAll(in ...[]byte) [][]byte {
	type piece struct {
		src, out []byte
		last     bool
		input    int
	}
	var pieces []piece
	total := 0
	for i, p := range in {
		k := max(1, (len(p)+compressChunk-1)/compressChunk)
		for c := range k {
			pieces = append(pieces, piece{src: p[c*len(p)/k : (c+1)*len(p)/k], last: c == k-1, input: i})
		}
		total += len(p)
	}
	run := func(pc *piece) { pc.out = deflate(pc.src, pc.last) }
	if workers := min(len(pieces), runtime.GOMAXPROCS(0)); total < compressChunk || workers < 2 {
		for i := range pieces {
			run(&pieces[i])
		}
	} else {
		var next atomic.Int32
		var wg sync.WaitGroup
		for range workers {
			wg.Go(func() {
				for i := int(next.Add(1)) - 1; i < len(pieces); i = int(next.Add(1)) - 1 {
					run(&pieces[i])
				}
			})
		}
		wg.Wait()
	}
	// Each input's pieces joined, into a slice of their total size.
	size, count := make([]int, len(in)), make([]int, len(in))
	for _, pc := range pieces {
		size[pc.input] += len(pc.out)
		count[pc.input]++
	}
	out := make([][]byte, len(in))
	for _, pc := range pieces {
		switch {
		case count[pc.input] == 1:
			out[pc.input] = pc.out
		case out[pc.input] == nil:
			out[pc.input] = append(make([]byte, 0, size[pc.input]), pc.out...)
		default:
			out[pc.input] = append(out[pc.input], pc.out...)
		}
	}
	return out
}

// deflate compresses p as one piece of a flate stream: ended by the final block when last, else by a
// sync flush, which leaves the stream byte-aligned for the next piece. The result is a slice of its
// own.
func deflate(p []byte, last bool) []byte {
	c := coders.Get().(*coder)
	c.buf.Reset()
	c.enc.Reset(&c.buf)
	c.enc.Write(p)
	if last {
		c.enc.Close()
	} else {
		c.enc.Flush()
	}
	out := bytes.Clone(c.buf.Bytes())
	coders.Put(c)
	return out
}

func inflate(p []byte) ([]byte, error) {
	return io.ReadAll(flate.NewReader(bytes.NewReader(p)))
}

// unplanes reads words stored as byte planes (encode): every word's lowest byte, then every word's
// second byte, and so on. XORed float bits of a body barely moving differ in the low mantissa bytes
// only, so the high planes are runs of zeros that compress to almost nothing.
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
	c := &Recorder{Budget: r.Budget, KeyEvery: r.KeyEvery, bytes: r.bytes, dropped: r.dropped, thinned: r.thinned}
	for _, g := range r.groups {
		ng := *g
		ng.disp = slices.Clone(g.disp)
		ng.hash = slices.Clone(g.hash)
		ng.exact = slices.Clone(g.exact)
		c.groups = append(c.groups, &ng)
	}
	c.last = slices.Clone(r.last)
	c.lastQ = slices.Clone(r.lastQ)
	c.prevQ = slices.Clone(r.prevQ)
	return c
}
