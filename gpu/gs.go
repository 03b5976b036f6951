package gpu

import "fmt"

// Gauss-Seidel on the device: sim's PGS solver, the CPU's default. Its passes solve the joints, then
// the manifolds, colour by colour: the rows of one colour share no dynamic body, so a launch solves
// them all at once and each row still sees every row of the colours before it, as on the CPU.
//
// The colours are the CPU's (sim's colourManifolds and colourJoints: greedy, in index order), computed
// on the device each step by tb_gs_colour, so the emulated step equals the CPU's PGS step bit for bit.
// The host launches one kernel per colour and does not know this step's colours when it records the
// step: each graph launches its colouring's budget of colours (last steps' need), and the step's one
// read-back brings the colours it needed. A step that needed more runs again with a larger budget, as a
// step whose contact list overflowed does (Backend.Step).

// gsColours is TB_GS_COLOURS (sim's maxColors): rows that fit none are the overflow, which one thread
// solves in order after all colours.
const gsColours = 64

// gsThreads is TB_GS_THREADS, tb_gs_colour's block.
const gsThreads = 256

// gsBudget is a colouring's budget before its first step: more colours than a stack, a pile on a
// ground or a chain of joints needs, so that the first step seldom runs twice; that step's need is the
// budget after it.
const gsBudget = 8

// gsShrinkSteps is how many steps in a row a budget must exceed the colours needed before it shrinks to
// them: each rise past the budget costs a re-run of the step.
const gsShrinkSteps = 60

// colouring is one constraint graph's colours on the device (the manifolds' or the joints').
type colouring struct {
	colour buffer // int32 per edge: its colour (gsColours: the overflow)
	order  buffer // int32 per edge: the edges by colour
	start  buffer // int32 x gsColours+2: where each colour's edges start in order
	// budget is the colours each pass launches, 0 to budget-1, and the overflow after them where it
	// exceeds gsColours.
	budget int
	sized  bool // budget was fitted to a step's need (fit)
	slack  int  // steps in a row that needed fewer colours than budget
}

// reserve makes room for the given number of edges.
func (g *colouring) reserve(d device, edges int) error {
	if !g.sized {
		g.budget = max(g.budget, gsBudget)
	}
	for _, x := range []struct {
		b     *buffer
		bytes int
	}{{&g.colour, 4 * max(edges, 1)}, {&g.order, 4 * max(edges, 1)}, {&g.start, 4 * (gsColours + 2)}} {
		if err := grow(d, x.b, x.bytes); err != nil {
			return fmt.Errorf("gauss-seidel: %w", err)
		}
	}
	return nil
}

// edges says where a colouring's edges are: each one's two body indices at int32 offA and offA+1 of a
// record of stride int32s from ends (an index < 0 is the static world), and, for countAt >= 0, its
// point count at int32 countAt, which orders the overflow (sim's by point count, most first). There are
// min(*count, capacity) edges, or capacity where count is 0. start and adj list each body's edges
// (k << 1 | side, by index).
type edges struct {
	ends                  ptr
	stride, offA, countAt int
	count                 ptr
	capacity              int
	start, adj            ptr
}

// run launches tb_gs_colour: the edges' colours, their order by colour and the colours they needed
// (into the int32 at needed).
func (g *colouring) run(d device, b *bodyBuffers, e edges, needed ptr) error {
	return kernelSet{d}.gsColour(1, gsThreads, gsColourArgs{Ends: e.ends, Stride: int32(e.stride),
		OffA: int32(e.offA), CountAt: int32(e.countAt), Count: e.count, Cap: int32(e.capacity), Pos: b.pos.p,
		Start: e.start, Adj: e.adj, Colour: g.colour.p, Order: g.order.p, ColourStart: g.start.p, Needed: needed})
}

// each calls f for the colours a pass launches, in order, with the grid of each: grid blocks for a
// colour (a thread per edge), one for the overflow.
func (g *colouring) each(grid int, f func(c int32, grid int) error) error {
	for c := range min(g.budget, gsColours) {
		if err := f(int32(c), grid); err != nil {
			return err
		}
	}
	if g.budget > gsColours {
		return f(gsColours, 1)
	}
	return nil
}

// fit takes the colours a step needed and reports whether its passes missed some (the step must run
// again, with the larger budget fit sets: the need and a quarter more, at least one). The first step's
// need sets the budget; after that, a budget larger than the need for gsShrinkSteps steps in a row
// shrinks to it.
func (g *colouring) fit(needed int) (short bool) {
	switch {
	case needed > g.budget:
		// A landing pile's colours grow step after step: headroom spares the re-runs of the next few.
		g.budget, g.slack, g.sized = needed+max(1, needed/4), 0, true
		if needed <= gsColours {
			g.budget = min(g.budget, gsColours)
		} else {
			g.budget = gsColours + 1
		}
		return true
	case !g.sized:
		g.budget, g.slack, g.sized = needed, 0, true
	case needed == g.budget:
		g.slack = 0
	default:
		if g.slack++; g.slack >= gsShrinkSteps {
			g.budget, g.slack = needed, 0
		}
	}
	return false
}

// release frees the colouring's buffers.
func (g *colouring) release(d device) {
	release(d, &g.colour)
	release(d, &g.order)
	release(d, &g.start)
	*g = colouring{}
}

// gsPass launches one Gauss-Seidel pass over the manifolds, colour by colour (sim's eachContactColour).
func (s *solverStage) gsPass(r *solverRun, useBias bool) error {
	ks, b, c := r.k, r.b, r.c
	g := &s.colours
	return g.each(r.mg, func(col int32, grid int) error {
		return ks.solverGs(grid, solverManifoldThreads, solverGsArgs{Man: r.man, Order: g.order.p,
			ColourStart: g.start.p, C: col, Pos: b.pos.p, Vel: b.vel.p, Omega: b.omega.p, InvH: c.invH,
			MaxPush: c.s.MaxPushOut, UseBias: flag(useBias), NoFriction: flag(c.s.NoFriction)})
	})
}

// gsRestitute launches the Gauss-Seidel restitution pass over the manifolds, colour by colour (sim's
// restitutionColours).
func (s *solverStage) gsRestitute(r *solverRun) error {
	ks, b := r.k, r.b
	g := &s.colours
	return g.each(r.mg, func(col int32, grid int) error {
		return ks.solverGsRestitute(grid, solverManifoldThreads, solverGsRestituteArgs{Man: r.man,
			Order: g.order.p, ColourStart: g.start.p, C: col, Pos: b.pos.p, Vel: b.vel.p, Omega: b.omega.p,
			Threshold: r.c.s.RestitutionThreshold})
	})
}

// colourManifolds colours this step's manifolds (their dynamic bodies' lists are made), the colours
// they needed into the first int32 of needed.
func (s *solverStage) colourManifolds(r *solverRun) error {
	if err := s.colours.reserve(r.d, r.capacity); err != nil {
		return err
	}
	return s.colours.run(r.d, r.b, edges{ends: r.man, stride: solverManifoldBytes / 4, offA: 0, countAt: 2,
		count: r.contactCount, capacity: r.capacity, start: s.start.p, adj: s.adj.p}, s.needed.p)
}

// fitColours takes the colours the step's manifolds and joints needed (the read-back's) and reports
// whether its passes launched too few (the step must run again).
func (s *solverStage) fitColours(manifolds, joints uint32, hasJoints bool) bool {
	short := s.colours.fit(int(manifolds))
	if hasJoints && s.jointColours.fit(int(joints)) {
		short = true
	}
	return short
}
