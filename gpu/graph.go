package gpu

import (
	"slices"
	"unsafe"
)

// A step's launches as one graph. A steady step asks the device for the same sequence of launches,
// clears and device copies every time (the same kernels, grids and arguments, buffers included), and
// on a GPU each launch costs a few microseconds of fixed overhead: pyramid20's 287 launches were most
// of its 1.86 ms per step on an H100. graphing records a step's device work instead of launching it,
// and at the step's first host interaction (the read-back of the counters) hands the whole sequence to
// the device as one graph (CUDA: stream capture, cuGraphInstantiate, then cuGraphLaunch), kept and
// launched again while the sequence stays the same. A device that cannot make a graph, or a capture
// that fails, falls back to plain launches of the same sequence.

// graphOp is one recorded operation: a launch (kernel set), a clear (bytes at dst) or a copy (src set).
type graphOp struct {
	kernel      string
	grid, block int
	slots       []uint64  // the launch's arguments, packed (packArgs)
	sizes       []uintptr // their sizes
	dst, src    ptr
	bytes       int
}

func (a *graphOp) equal(b *graphOp) bool {
	return a.kernel == b.kernel && a.grid == b.grid && a.block == b.block && a.dst == b.dst && a.src == b.src &&
		a.bytes == b.bytes && slices.Equal(a.slots, b.slots) && slices.Equal(a.sizes, b.sizes)
}

// graph is a device's made graph (an executable CUDA graph, or the emulator's list).
type graph any

// grapher is a device that can make a graph of a sequence of operations and launch it as one.
type grapher interface {
	makeGraph(ops []graphOp) (graph, error)
	runGraph(g graph) error
	freeGraph(g graph)
}

// graphCacheSize is how many sequences graphing keeps graphs of: a steady step, a re-run, a step
// after an edit, the timed step's stages.
const graphCacheSize = 16

// graphMinOps: shorter sequences are launched as they are, a graph would not save a launch.
const graphMinOps = 3

type cachedGraph struct {
	ops []graphOp
	g   graph
}

// graphing is a device that, while recording (Backend.Step), keeps launches, clears and device
// copies until the next upload, download, wait or allocation, then runs them as one graph.
type graphing struct {
	device
	recording bool
	off       bool // no graphs: the device has none, or a capture failed
	pending   []graphOp
	cache     []cachedGraph // most recently used first
	// Made counts the graphs made, Reused the launches of a kept one.
	Made, Reused int
}

func newGraphing(d device) *graphing {
	_, ok := base(d).(grapher)
	return &graphing{device: d, off: !ok}
}

// record turns recording on or off; off flushes what was recorded.
func (g *graphing) record(on bool) error {
	err := g.flush()
	g.recording = on && !g.off
	return err
}

func (g *graphing) launch(kernel string, grid, block int, args ...any) error {
	if !g.recording {
		return g.device.launch(kernel, grid, block, args...)
	}
	if grid <= 0 {
		return nil
	}
	slots, sizes, err := packArgs(kernel, args)
	if err != nil {
		return err
	}
	g.pending = append(g.pending, graphOp{kernel: kernel, grid: grid, block: block, slots: slots, sizes: sizes})
	return nil
}

func (g *graphing) zero(dst ptr, bytes int) error {
	if !g.recording {
		return g.device.zero(dst, bytes)
	}
	g.pending = append(g.pending, graphOp{dst: dst, bytes: bytes})
	return nil
}

func (g *graphing) copy(dst, src ptr, bytes int) error {
	if !g.recording {
		return g.device.copy(dst, src, bytes)
	}
	g.pending = append(g.pending, graphOp{dst: dst, src: src, bytes: bytes})
	return nil
}

func (g *graphing) alloc(bytes int) (ptr, error) {
	if err := g.flush(); err != nil {
		return 0, err
	}
	return g.device.alloc(bytes)
}

func (g *graphing) free(p ptr) {
	// A recorded operation may use p: it runs first (an error shows at the next flush's caller, as
	// a launch's does on a GPU).
	if err := g.flush(); err != nil {
		g.pending = g.pending[:0]
	}
	g.device.free(p)
}

func (g *graphing) upload(dst ptr, src unsafe.Pointer, bytes int) error {
	if err := g.flush(); err != nil {
		return err
	}
	return g.device.upload(dst, src, bytes)
}

func (g *graphing) download(dst unsafe.Pointer, src ptr, bytes int) error {
	if err := g.flush(); err != nil {
		return err
	}
	return g.device.download(dst, src, bytes)
}

func (g *graphing) sync() error {
	if err := g.flush(); err != nil {
		return err
	}
	return g.device.sync()
}

func (g *graphing) close() {
	g.pending = g.pending[:0]
	if gr, ok := g.device.(grapher); ok {
		for _, c := range g.cache {
			gr.freeGraph(c.g)
		}
	}
	g.cache = nil
	g.device.close()
}

// flush runs the recorded operations: as a kept graph of the same sequence, a new graph, or (no
// graphs, a failed capture, a short sequence) one by one.
func (g *graphing) flush() error {
	ops := g.pending
	g.pending = nil
	if len(ops) == 0 {
		return nil
	}
	gr, ok := g.device.(grapher)
	if g.off || !ok || len(ops) < graphMinOps {
		return g.play(ops)
	}
	for i := range g.cache {
		if c := g.cache[i]; slices.EqualFunc(c.ops, ops, func(a, b graphOp) bool { return a.equal(&b) }) {
			copy(g.cache[1:i+1], g.cache[:i])
			g.cache[0] = c
			g.Reused++
			return gr.runGraph(c.g)
		}
	}
	made, err := gr.makeGraph(ops)
	if err != nil {
		// The device cannot capture (an old driver, a mode it refuses): plain launches from now on.
		g.off, g.recording = true, false
		return g.play(ops)
	}
	g.Made++
	if len(g.cache) == graphCacheSize {
		gr.freeGraph(g.cache[len(g.cache)-1].g)
		g.cache = g.cache[:len(g.cache)-1]
	}
	g.cache = slices.Insert(g.cache, 0, cachedGraph{ops: ops, g: made})
	return gr.runGraph(made)
}

// play runs ops one by one on the device below.
func (g *graphing) play(ops []graphOp) error {
	for i := range ops {
		if err := playOp(g.device, &ops[i]); err != nil {
			return err
		}
	}
	return nil
}

// playOp runs one recorded operation on d.
func playOp(d device, o *graphOp) error {
	switch {
	case o.kernel != "":
		args := make([]any, len(o.slots))
		for i, s := range o.slots {
			if o.sizes[i] == 4 {
				args[i] = uint32(s)
			} else {
				args[i] = s
			}
		}
		return d.launch(o.kernel, o.grid, o.block, args...)
	case o.src != 0:
		return d.copy(o.dst, o.src, o.bytes)
	default:
		return d.zero(o.dst, o.bytes)
	}
}

// The emulator's graph is the list itself, run in order: one launch in the counts, the same kernels.

func (emulated) makeGraph(ops []graphOp) (graph, error) { return slices.Clone(ops), nil }

func (e emulated) runGraph(g graph) error {
	ops := g.([]graphOp)
	for i := range ops {
		if err := playOp(e, &ops[i]); err != nil {
			return err
		}
	}
	return nil
}

func (emulated) freeGraph(graph) {}

// The counting device counts a graph launch as one launch (and one graph), its operations not again,
// and the threads of its launches.

// countedGraph is a graph of the device below the counting one, with the threads its launches start.
type countedGraph struct {
	g       graph
	threads int64
}

func (d *counting) makeGraph(ops []graphOp) (graph, error) {
	gr, ok := d.device.(grapher)
	if !ok {
		return nil, errNoGraphs
	}
	g, err := gr.makeGraph(ops)
	if err != nil {
		return nil, err
	}
	c := &countedGraph{g: g}
	for i := range ops {
		c.threads += int64(ops[i].grid) * int64(ops[i].block)
	}
	return c, nil
}

func (d *counting) runGraph(g graph) error {
	c := g.(*countedGraph)
	d.c.Launches++
	d.c.Graphs++
	d.c.Threads += c.threads
	return d.device.(grapher).runGraph(c.g)
}

func (d *counting) freeGraph(g graph) {
	if gr, ok := d.device.(grapher); ok {
		gr.freeGraph(g.(*countedGraph).g)
	}
}
