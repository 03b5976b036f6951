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

// regionKey returns manifold k's region and point count as one key, region*5 + 4 - count: its region
// is that of its lower-indexed dynamic body (body i of n is in region i*r/n), so that ground contacts
// go with the bodies they hold; in a colour too small to split (splitColour), region 0.
func (p *pipeline) regionKey(b *Bodies, k, r, n int) int {
	m := &p.narrow.manifolds[k]
	if !p.graph.splitColour[p.graph.manColor[k]] {
		return 4 - int(min(m.count, 4)) // a colour solved on one worker: region 0
	}
	if p.islands.on {
		return int(p.islands.islandRegion(b, m.a, m.b))*5 + 4 - int(min(m.count, 4))
	}
	i := m.a
	if b.InvMass[i] == 0 || (b.InvMass[m.b] != 0 && m.b < i) {
		i = m.b
	}
	return int(i)*r/n*5 + 4 - int(min(m.count, 4))
}

// colourManifolds assigns each manifold the lowest colour that neither of its dynamic bodies has used
// yet (greedy colouring of the constraint graph; static and kinematic bodies are never written by the
// solver, so they do not constrain the colouring). Manifolds of one colour touch disjoint dynamic bodies
// and can be solved in parallel with Gauss-Seidel's sequential semantics. The result is
// p.colorOrder, manifold indices grouped by colour, with p.colorStart[c] the first of colour c; the
// entries from p.colorStart[maxColors] on are the overflow.
func (p *pipeline) colourManifolds(b *Bodies) {
	used := p.graph.bodyColors
	for i := range used {
		used[i] = 0
	}
	var count [maxColors + 1]int32
	p.graph.manColor = resize(p.graph.manColor, len(p.narrow.manifolds))
	for k := range p.narrow.manifolds {
		m := &p.narrow.manifolds[k]
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
		p.graph.manColor[k] = uint8(c)
		count[c]++
	}
	p.graph.colorStart = resize(p.graph.colorStart, maxColors+2)
	start := int32(0)
	colors := 0
	for c := 0; c <= maxColors; c++ {
		p.graph.colorStart[c] = start
		start += count[c]
		if c < maxColors && count[c] > 0 {
			colors++
		}
	}
	p.graph.colorStart[maxColors+1] = start
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
	p.islands.on = p.islands.on && count[maxColors] == 0
	r := p.regions(len(used))
	if p.islands.on {
		r = p.islands.nIslandRegions
	}
	for c := range maxColors {
		p.graph.splitColour[c] = r > 1 && (p.islands.on || int(count[c]) >= 2*p.wideSplitNow()*wideLanes)
	}
	if !slices.Contains(p.graph.splitColour[:], true) {
		r = 1
	}
	p.graph.regionStart = resize(p.graph.regionStart, r*5+1)
	clear(p.graph.regionStart)
	for k := range p.narrow.manifolds {
		p.graph.regionStart[p.regionKey(b, k, r, len(used))+1]++
	}
	for i := 1; i < len(p.graph.regionStart); i++ {
		p.graph.regionStart[i] += p.graph.regionStart[i-1]
	}
	p.graph.byRegion = resize(p.graph.byRegion, len(p.narrow.manifolds))
	p.graph.segStart = resize(p.graph.segStart, maxColors*r+1)
	clear(p.graph.segStart)
	for k := range p.narrow.manifolds {
		key := p.regionKey(b, k, r, len(used))
		p.graph.byRegion[p.graph.regionStart[key]] = int32(k)
		p.graph.regionStart[key]++
		if c := int(p.graph.manColor[k]); c < maxColors {
			p.graph.segStart[c*r+key/5+1]++
		}
	}
	for i := 1; i < len(p.graph.segStart); i++ {
		p.graph.segStart[i] += p.graph.segStart[i-1]
	}
	var next [maxColors + 1]int32
	copy(next[:], p.graph.colorStart)
	p.graph.colorOrder = resize(p.graph.colorOrder, len(p.narrow.manifolds))
	for _, k := range p.graph.byRegion {
		c := p.graph.manColor[k]
		p.graph.colorOrder[next[c]] = k
		next[c]++
	}
	p.graph.nRegions = r
	p.graph.colors = colors
}

// buildAdjacency lists, for every body, the manifolds touching it (compressed rows: the entries of body
// i are adj[adjStart[i]:adjStart[i+1]], each manifold index << 1 | side, side 1 when the body is b), and
// counts the contact points touching each body (the Jacobi solver's mass splitting).
func (p *pipeline) buildAdjacency(n int) {
	p.graph.adjStart = resize(p.graph.adjStart, n+1)
	p.graph.count = resize(p.graph.count, n)
	for i := range p.graph.adjStart {
		p.graph.adjStart[i] = 0
	}
	for i := range p.graph.count {
		p.graph.count[i] = 0
	}
	for k := range p.narrow.manifolds {
		m := &p.narrow.manifolds[k]
		p.graph.adjStart[m.a+1]++
		p.graph.adjStart[m.b+1]++
		p.graph.count[m.a] += m.count
		p.graph.count[m.b] += m.count
	}
	for i := 0; i < n; i++ {
		p.graph.adjStart[i+1] += p.graph.adjStart[i]
	}
	p.graph.adj = resize(p.graph.adj, int(p.graph.adjStart[n]))
	p.graph.fill = resize(p.graph.fill, n)
	copy(p.graph.fill, p.graph.adjStart[:n])
	for k := range p.narrow.manifolds {
		m := &p.narrow.manifolds[k]
		p.graph.adj[p.graph.fill[m.a]] = int32(k) << 1
		p.graph.fill[m.a]++
		p.graph.adj[p.graph.fill[m.b]] = int32(k)<<1 | 1
		p.graph.fill[m.b]++
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
