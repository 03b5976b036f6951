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
	if p.workers <= 1 {
		return 1
	}
	return max(1, min(p.workers, n/p.regionBodiesNow()))
}

// regionBodies is the fewest bodies a region holds under coarse grains (grains.go).
const regionBodies = 32

// regionKey returns manifold k's region and point count as one key, region*5 + 4 - count: its region
// is that of its lower-indexed dynamic body (body i of n is in region i*r/n), so that ground contacts
// go with the bodies they hold; in a colour too small to split (splitColour), region 0.
func (p *pipeline) regionKey(b *Bodies, k, r, n int) int {
	m := &p.manifolds[k]
	if !p.splitColour[p.manColor[k]] {
		return 4 - int(min(m.count, 4)) // a colour solved on one worker: region 0
	}
	if p.islands {
		return int(p.islandRegion(b, m.a, m.b))*5 + 4 - int(min(m.count, 4))
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
	used := p.bodyColors
	for i := range used {
		used[i] = 0
	}
	var count [maxColors + 1]int32
	p.manColor = resize(p.manColor, len(p.manifolds))
	for k := range p.manifolds {
		m := &p.manifolds[k]
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
		p.manColor[k] = uint8(c)
		count[c]++
	}
	p.colorStart = resize(p.colorStart, maxColors+2)
	start := int32(0)
	colors := 0
	for c := 0; c <= maxColors; c++ {
		p.colorStart[c] = start
		start += count[c]
		if c < maxColors && count[c] > 0 {
			colors++
		}
	}
	p.colorStart[maxColors+1] = start
	// Within a colour the manifolds go by region of bodies (regions), and within a region by point
	// count, most first; the overflow by point count. The regions are the workers' shares of every
	// colour's wide pass (wide.go: a region's batches are solved, refreshed and warm-started by the
	// same worker), so that the bodies' rows and the batches stay in that worker's cache from colour
	// to colour: with each colour split into equal parts of a count-sorted list, the pile's two
	// workers' shares crossed on a third of the bodies they touched, by region on 2% (issue 14). The
	// count order is for the wide pass's batches of eight, which run as many point slots as their
	// largest manifold has: batches of manifolds of one size waste fewer (a ragdoll's one- and
	// two-point capsule contacts no longer ride in batches padded to four). A colour's manifolds share
	// no dynamic body, so their order changes no result.
	// By island (islands.go), every colour is split by region, and a manifold that fits no colour
	// (solved after them all) turns it off.
	p.islands = p.islands && count[maxColors] == 0
	r := p.regions(len(used))
	if p.islands {
		r = p.nIslandRegions
	}
	for c := range maxColors {
		p.splitColour[c] = r > 1 && (p.islands || int(count[c]) >= 2*p.wideSplitNow()*wideLanes)
	}
	if !slices.Contains(p.splitColour[:], true) {
		r = 1
	}
	p.regionStart = resize(p.regionStart, r*5+1)
	clear(p.regionStart)
	for k := range p.manifolds {
		p.regionStart[p.regionKey(b, k, r, len(used))+1]++
	}
	for i := 1; i < len(p.regionStart); i++ {
		p.regionStart[i] += p.regionStart[i-1]
	}
	p.byRegion = resize(p.byRegion, len(p.manifolds))
	p.segStart = resize(p.segStart, maxColors*r+1)
	clear(p.segStart)
	for k := range p.manifolds {
		key := p.regionKey(b, k, r, len(used))
		p.byRegion[p.regionStart[key]] = int32(k)
		p.regionStart[key]++
		if c := int(p.manColor[k]); c < maxColors {
			p.segStart[c*r+key/5+1]++
		}
	}
	for i := 1; i < len(p.segStart); i++ {
		p.segStart[i] += p.segStart[i-1]
	}
	var next [maxColors + 1]int32
	copy(next[:], p.colorStart)
	p.colorOrder = resize(p.colorOrder, len(p.manifolds))
	for _, k := range p.byRegion {
		c := p.manColor[k]
		p.colorOrder[next[c]] = k
		next[c]++
	}
	p.nRegions = r
	p.colors = colors
}

// buildAdjacency lists, for every body, the manifolds touching it (compressed rows: the entries of body
// i are adj[adjStart[i]:adjStart[i+1]], each manifold index << 1 | side, side 1 when the body is b), and
// counts the contact points touching each body (the Jacobi solver's mass splitting).
func (p *pipeline) buildAdjacency(n int) {
	p.adjStart = resize(p.adjStart, n+1)
	p.count = resize(p.count, n)
	for i := range p.adjStart {
		p.adjStart[i] = 0
	}
	for i := range p.count {
		p.count[i] = 0
	}
	for k := range p.manifolds {
		m := &p.manifolds[k]
		p.adjStart[m.a+1]++
		p.adjStart[m.b+1]++
		p.count[m.a] += m.count
		p.count[m.b] += m.count
	}
	for i := 0; i < n; i++ {
		p.adjStart[i+1] += p.adjStart[i]
	}
	p.adj = resize(p.adj, int(p.adjStart[n]))
	p.fill = resize(p.fill, n)
	copy(p.fill, p.adjStart[:n])
	for k := range p.manifolds {
		m := &p.manifolds[k]
		p.adj[p.fill[m.a]] = int32(k) << 1
		p.fill[m.a]++
		p.adj[p.fill[m.b]] = int32(k)<<1 | 1
		p.fill[m.b]++
	}
}

// resize returns s with length n, reusing its storage when it is large enough.
func resize[T any](s []T, n int) []T {
	if cap(s) < n {
		return make([]T, n, n+n/4)
	}
	return s[:n]
}
