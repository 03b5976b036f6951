package sim

import (
	"math/bits"
	"slices"
)

// maxColors is the number of graph colours; manifolds that fit none are solved serially after them.
const maxColors = 64

// regions returns the number of regions of bodies a colour's manifolds are grouped by for a scene of
// n bodies: one per worker, but no fewer than regionBodies bodies in each. A worker that is done with
// its own region takes a late one's whole (workpool.Pool.Run). Four regions a worker, for finer
// stealing, made the pile's contact passes on two workers 10% slower (12.2-12.4 ms/step against
// 10.6-11.1): more batches cut short at a region's end, and more rows shared across regions.
func (p *pipeline) regions(n int) int {
	if p.work.workers <= 1 {
		return 1
	}
	return max(1, min(p.work.workers, n/p.regionBodiesNow()))
}

// regionBodies is the fewest bodies a region holds under coarse grains (grains.go).
const regionBodies = 32

// regionKey returns manifold m's (index k) region and point count as one key, region*5 + 4 - count:
// its region is that of its lower-indexed dynamic body (body i of n is in region i*r/n), so that
// ground contacts go with the bodies they hold, or by island its island's (bodyRegion); in a colour
// too small to split (splitColour), region 0.
func (g *graphStage) regionKey(b *Bodies, m *manifold, k, r, n int, byIsland bool, bodyRegion []int32) int {
	if !g.splitColour[g.manColor[k]] {
		return 4 - int(min(m.count, 4)) // a colour solved on one worker: region 0
	}
	if byIsland {
		return int(islandRegion(bodyRegion, b, m.a, m.b))*5 + 4 - int(min(m.count, 4))
	}
	i := m.a
	if b.InvMass[i] == 0 || (b.InvMass[m.b] != 0 && m.b < i) {
		i = m.b
	}
	return int(i)*r/n*5 + 4 - int(min(m.count, 4))
}

// graphInputs is what colourManifolds reads of the other stages, handed over by prepare.
type graphInputs struct {
	manifolds []manifold
	regions   int // the regions a colour's pass may split into (pipeline.regions)
	wideSplit int // the least batches of a colour, per worker, for its pass to split (pipeline.wideSplitNow)
	// byIsland says the sub-steps run by island (planIslands): the regions are then the islands'
	// (bodyRegion, per body; islandRegions of them).
	byIsland      bool
	islandRegions int
	bodyRegion    []int32
}

// colourManifolds assigns each manifold the lowest colour that neither of its dynamic bodies has used
// yet (greedy colouring of the constraint graph; static and kinematic bodies are never written by the
// solver, so they do not constrain the colouring). Manifolds of one colour touch disjoint dynamic bodies
// and can be solved in parallel with Gauss-Seidel's sequential semantics. The result is
// g.colorOrder, manifold indices grouped by colour, with g.colorStart[c] the first of colour c; the
// entries from g.colorStart[maxColors] on are the overflow. It reports whether every manifold fits a
// colour (an overflow turns the sub-steps by island off).
func (g *graphStage) colourManifolds(b *Bodies, in graphInputs) (fits bool) {
	used := g.bodyColors
	for i := range used {
		used[i] = 0
	}
	var count [maxColors + 1]int32
	g.manColor = resize(g.manColor, len(in.manifolds))
	for k := range in.manifolds {
		m := &in.manifolds[k]
		var busy uint64
		dynA, dynB := b.InvMass[m.a] != 0, b.InvMass[m.b] != 0
		if dynA {
			busy |= used[m.a]
		}
		if dynB {
			busy |= used[m.b]
		}
		c := bits.TrailingZeros64(^busy) // maxColors when all are busy
		if c < maxColors {
			bit := uint64(1) << c
			if dynA {
				used[m.a] |= bit
			}
			if dynB {
				used[m.b] |= bit
			}
		}
		g.manColor[k] = uint8(c)
		count[c]++
	}
	g.colorStart = resize(g.colorStart, maxColors+2)
	start := int32(0)
	colors := 0
	for c := 0; c <= maxColors; c++ {
		g.colorStart[c] = start
		start += count[c]
		if c < maxColors && count[c] > 0 {
			colors++
		}
	}
	g.colorStart[maxColors+1] = start
	// Within a colour the manifolds go by region of bodies (regions), and within a region by point
	// count, most first; the overflow by point count. The regions are the workers' shares of every
	// colour's wide pass (wide.go: a region's batches are solved, refreshed and warm-started by the
	// same worker), so that the bodies' rows and the batches stay in that worker's cache from colour
	// to colour: with each colour split into equal parts of a count-sorted list, the pile's two
	// workers' shares crossed on a third of the bodies they touched, by region on 2%. The
	// count order is for the wide pass's batches of eight, which run as many point slots as their
	// largest manifold has: batches of manifolds of one size waste fewer (a ragdoll's one- and
	// two-point capsule contacts no longer ride in batches padded to four). A colour's manifolds share
	// no dynamic body, so their order changes no result.
	// By island (islands.go), every colour is split by region, and a manifold that fits no colour
	// (solved after them all) turns it off.
	fits = count[maxColors] == 0
	byIsland := in.byIsland && fits
	r := in.regions
	if byIsland {
		r = in.islandRegions
	}
	for c := range maxColors {
		g.splitColour[c] = r > 1 && (byIsland || int(count[c]) >= 2*in.wideSplit*wideLanes)
	}
	if !slices.Contains(g.splitColour[:], true) {
		r = 1
	}
	g.regionStart = resize(g.regionStart, r*5+1)
	clear(g.regionStart)
	for k := range in.manifolds {
		g.regionStart[g.regionKey(b, &in.manifolds[k], k, r, len(used), byIsland, in.bodyRegion)+1]++
	}
	for i := 1; i < len(g.regionStart); i++ {
		g.regionStart[i] += g.regionStart[i-1]
	}
	g.byRegion = resize(g.byRegion, len(in.manifolds))
	g.segStart = resize(g.segStart, maxColors*r+1)
	clear(g.segStart)
	for k := range in.manifolds {
		key := g.regionKey(b, &in.manifolds[k], k, r, len(used), byIsland, in.bodyRegion)
		g.byRegion[g.regionStart[key]] = int32(k)
		g.regionStart[key]++
		if c := int(g.manColor[k]); c < maxColors {
			g.segStart[c*r+key/5+1]++
		}
	}
	for i := 1; i < len(g.segStart); i++ {
		g.segStart[i] += g.segStart[i-1]
	}
	var next [maxColors + 1]int32
	copy(next[:], g.colorStart)
	g.colorOrder = resize(g.colorOrder, len(in.manifolds))
	for _, k := range g.byRegion {
		c := g.manColor[k]
		g.colorOrder[next[c]] = k
		next[c]++
	}
	g.nRegions = r
	g.colors = colors
	return fits
}

// buildAdjacency lists, for every body, the manifolds touching it (compressed rows: the entries of body
// i are adj[adjStart[i]:adjStart[i+1]], each manifold index << 1 | side, side 1 when the body is b), and
// counts the contact points touching each body (the Jacobi solver's mass splitting), for n bodies and
// the step's manifolds.
func (g *graphStage) buildAdjacency(n int, manifolds []manifold) {
	g.adjStart = resize(g.adjStart, n+1)
	g.count = resize(g.count, n)
	for i := range g.adjStart {
		g.adjStart[i] = 0
	}
	for i := range g.count {
		g.count[i] = 0
	}
	for k := range manifolds {
		m := &manifolds[k]
		g.adjStart[m.a+1]++
		g.adjStart[m.b+1]++
		g.count[m.a] += m.count
		g.count[m.b] += m.count
	}
	for i := 0; i < n; i++ {
		g.adjStart[i+1] += g.adjStart[i]
	}
	g.adj = resize(g.adj, int(g.adjStart[n]))
	g.fill = resize(g.fill, n)
	copy(g.fill, g.adjStart[:n])
	for k := range manifolds {
		m := &manifolds[k]
		g.adj[g.fill[m.a]] = int32(k) << 1
		g.fill[m.a]++
		g.adj[g.fill[m.b]] = int32(k)<<1 | 1
		g.fill[m.b]++
	}
}

// resize returns s with length n, reusing its storage when it is large enough.
func resize[T any](s []T, n int) []T {
	if cap(s) < n {
		return make([]T, n, n+n/4)
	}
	return s[:n]
}

// graphStage is Prepare's constraint graph: the bodies' constraint lists, and the rows' colours and regions.
type graphStage struct {
	gather          gatherInputs // what gatherImpulses reads beside the constraint lists
	bodyColors      []uint64
	count           []int32 // contact points touching each body
	adjStart        []int32
	adj             []int32
	fill            []int32
	manColor        []uint8
	colorOrder      []int32
	byRegion        []int32             // manifold indices by region of bodies, then by point count, most first
	regionStart     []int32             // colourManifolds' counting sort's buckets
	nRegions        int                 // regions of bodies (regions)
	splitColour     [maxColors + 1]bool // the colour's wide pass is split between the workers by region
	segStart        []int32             // colour c's manifolds of region g start at colorOrder[segStart[c*nRegions+g]]
	colorStart      []int32
	colors          int
	jointColorStart []int32
	jointColorOrder []int32
	jointAdjStart   []int32
	jointAdj        []int32
}

// gatherInputs is what gatherImpulses reads beside the graph's constraint lists, handed by the
// executor: the impulses the manifolds' rows and the joints recorded in a pass (the narrow and joint
// stages' sums, set by prepare) and whether this gather takes the joints' (set by the op's executor).
type gatherInputs struct {
	sums, jsums []impulseSum
	joints      bool
}
