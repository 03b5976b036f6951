package sim

import "math/bits"

// maxColors is the number of graph colours; manifolds that fit none are solved serially after them.
const maxColors = 64

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
	// Within a colour the manifolds go by point count, most first, so that the wide pass's batches of
	// eight (wide.go), which run as many point slots as their largest manifold has, mostly hold
	// manifolds of one size: a ragdoll's one- and two-point capsule contacts no longer ride in batches
	// padded to four. A colour's manifolds share no dynamic body, so their order changes no result.
	var byCount [maxColors + 1][5]int32
	for k := range p.manifolds {
		byCount[p.manColor[k]][min(p.manifolds[k].count, 4)]++
	}
	var next [maxColors + 1][5]int32
	for c := 0; c <= maxColors; c++ {
		at := p.colorStart[c]
		for n := 4; n >= 0; n-- {
			next[c][n] = at
			at += byCount[c][n]
		}
	}
	p.colorOrder = resize(p.colorOrder, len(p.manifolds))
	for k := range p.manifolds {
		c, n := p.manColor[k], min(p.manifolds[k].count, 4)
		p.colorOrder[next[c][n]] = int32(k)
		next[c][n]++
	}
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
