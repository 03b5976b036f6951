package sim

import (
	"math"
	"slices"
	"tumble/sim/internal/vecmath"
)

// The direct joint solve (seed 004: joints as Lagrange multipliers solved directly). With
// Settings.DirectJoints the velocity solvers (PGS, Jacobi) solve the equality rows of every joint (a
// ball's point, a hinge's point and two rotation rows, a piston's two lateral and three rotation rows,
// a fixed joint's six) together, exactly, once per pass: the impulses dl of
//
//	A dl = -(J v + bias),  A = J M^-1 J^T,
//
// where J stacks the rows of all joints and M is the bodies' masses. A is sparse: the block of joints
// j and k is non-zero only when they share a dynamic body. It is factored as L D L^T in 6x6 blocks (one
// block per joint, a joint's unused rows padded with an identity), eliminating the joints in
// leaf-to-root order of the body tree (Baraff 1996, "Linear-time dynamics using Lagrange
// multipliers"): a joint whose child body's subtree is already eliminated only touches the joints at
// its parent body, which share that body and so are already coupled to each other, so elimination adds
// no block that was not there (no fill-in), and a chain or a ragdoll factors in time linear in its
// joints. A loop (a joint closing a cycle of bodies) is ordered last; its elimination does fill in
// blocks, which the symbolic pass finds, so loops are solved exactly too, at more cost.
//
// The biased pass asks for the whole position error back in one sub-step (bias = C/h: the rows are
// rigid, not the soft springs of the iterative joints), the relax pass for J v = 0, so the position
// correction's velocity does not stay in the bodies; between them the projection stage
// (StageProject, projectJointsDirect) moves the bodies so the rows hold at the position level.
// Limits and motors, which are inequalities or bounded, stay iterative (solveJointParts), and so do
// the contacts; the direct solve runs after them in each pass, so every pass ends with the joints
// holding exactly. A is factored at the step's first pass and at each projection (the poses after
// integrating positions), and that factor serves the relax passes and the next sub-step's solve:
// their poses differ from it by the projection's millimetres, and the projection itself works from
// each sub-step's fresh factor, so that lag leaves no error in the poses.

// mat6 is a 6x6 block of A (row-major).
type mat6 [6][6]float64

// vec6 is one joint's 6 rows of a vector (impulses, right-hand sides).
type vec6 [6]float64

// directJoint is one joint in the direct system: its rows' Jacobian on each dynamic body (linear and
// angular parts; a side that is the world, static or kinematic has none) and their position errors.
type directJoint struct {
	joint  int32 // index in w.joints
	a, b   int32 // dynamic bodies of the joint's sides, or -1
	n      int   // rows
	la, wa [6]vec
	lb, wb [6]vec
	iwa    [6]vec // I_a^-1 wa, I_b^-1 wb
	iwb    [6]vec
	c      [6]float32
}

// directUpdate is one step of the block elimination: when joint k is eliminated, the block between
// its later neighbours i <= j loses B_ki^T D_k^-1 B_kj (to a diagonal block when i == j).
type directUpdate struct {
	ki, kj int32 // blocks B_ki, B_kj
	li, lj int32 // i and j's places in later (later[2 li] is i)
	target int32 // off-diagonal block (i, j), or the diagonal of i when diag
	diag   bool
}

// directCouple is one body shared by joints k1 < k2 (in elimination order): it adds
// J_k1,c M_c^-1 J_k2,c^T to their block.
type directCouple struct {
	blk      int32
	k1, k2   int32
	bA1, bA2 bool // the body is side a of k1, of k2
	body     int32
}

// directSystem is the factored system of the direct joint solve, kept across steps. Its structure
// (the elimination order, which blocks exist, the elimination's updates) is rebuilt only when the
// joints or which bodies are dynamic change.
type directSystem struct {
	sig    []int64 // the joints' bodies the structure was built for
	tmp    []int64
	joints []directJoint
	diag   []mat6  // A_kk, then D_k
	dinv   []mat6  // D_k^-1
	off    []mat6  // B_ij = A_ij for i < j in elimination order, then the factor's
	later  []int32 // CSR over k: (later neighbour, block) pairs
	lstart []int32
	upd    []directUpdate
	ustart []int32 // CSR over k into upd
	couple []directCouple
	r, z   []vec6
	x      []vec6
	stale  bool // the rows changed since the last factorisation
	fills  int  // blocks the elimination added (0 for trees)
}

// DirectStats describes the direct joint solve's system: joints, off-diagonal blocks, and how many of
// those the elimination added (0 for chains and trees).
type DirectStats struct {
	Joints, Blocks, Fill int
}

// DirectJointStats returns the structure of the last step's direct joint solve (zeros when it is off).
func (w *World) DirectJointStats() DirectStats {
	d := &w.pipe.joints.direct
	return DirectStats{Joints: len(d.joints), Blocks: len(d.off), Fill: d.fills}
}

// directSignature describes the joints' dynamic bodies: the structure depends on nothing else.
func (w *World) directSignature(sig []int64) []int64 {
	sig = sig[:0]
	for k := range w.joints {
		a, b := w.directSides(&w.joints[k])
		sig = append(sig, int64(a)<<32|int64(uint32(b)), int64(w.joints[k].def.Type))
	}
	return sig
}

// directSides returns the joint's dynamic bodies (-1 for a side that is not dynamic).
func (w *World) directSides(j *joint) (int32, int32) {
	a, b := int32(-1), int32(-1)
	if w.Bodies.InvMass[j.a] != 0 {
		a = j.a
	}
	if j.b >= 0 && w.Bodies.InvMass[j.b] != 0 {
		b = j.b
	}
	return a, b
}

// prepareDirect builds the system's structure if the joints changed and marks it for factoring.
func (w *World) prepareDirect() {
	d := &w.pipe.joints.direct
	d.stale = true
	d.tmp = w.directSignature(d.tmp)
	if d.sig != nil && slices.Equal(d.tmp, d.sig) {
		return
	}
	d.sig = append(d.sig[:0], d.tmp...)
	w.buildDirect()
}

// buildDirect orders the joints leaf to root and finds the blocks and elimination updates.
func (w *World) buildDirect() {
	d := &w.pipe.joints.direct
	n := w.Bodies.Len()
	// The body graph: dynamic bodies, joints as edges.
	type edge struct{ joint, other int32 }
	adj := make([][]edge, n)
	var worldJoints []int32
	for k := range w.joints {
		a, b := w.directSides(&w.joints[k])
		switch {
		case a >= 0 && b >= 0:
			adj[a] = append(adj[a], edge{int32(k), b})
			adj[b] = append(adj[b], edge{int32(k), a})
		case a >= 0 || b >= 0:
			worldJoints = append(worldJoints, int32(k))
		}
	}
	// Depth-first from each unvisited body: a tree joint is keyed by its child's discovery time;
	// eliminating in decreasing key puts every joint after those below it. Joints to the world are
	// eliminated first (their neighbours, the joints at their one body, are already coupled) and
	// loop-closing joints last.
	disc := make([]int32, n)
	for i := range disc {
		disc[i] = -1
	}
	seen := make([]bool, len(w.joints))
	var tree, loops []int32
	var stack []int32
	t := int32(0)
	for root := range n {
		if disc[root] >= 0 || len(adj[root]) == 0 {
			continue
		}
		disc[root] = t
		t++
		stack = append(stack[:0], int32(root))
		for len(stack) > 0 {
			u := stack[len(stack)-1]
			stack = stack[:len(stack)-1]
			for _, e := range adj[u] {
				if seen[e.joint] {
					continue
				}
				seen[e.joint] = true
				if disc[e.other] >= 0 {
					loops = append(loops, e.joint)
					continue
				}
				disc[e.other] = t
				t++
				tree = append(tree, e.joint)
				stack = append(stack, e.other)
			}
		}
	}
	child := func(k int32) int32 {
		a, b := w.directSides(&w.joints[k])
		return max(disc[a], disc[b])
	}
	slices.SortFunc(tree, func(x, y int32) int { return int(child(y) - child(x)) })
	order := append(append(worldJoints, tree...), loops...)

	d.joints = d.joints[:0]
	for _, k := range order {
		a, b := w.directSides(&w.joints[k])
		d.joints = append(d.joints, directJoint{joint: k, a: a, b: b})
	}
	m := len(d.joints)
	// The joints at each body, by elimination index.
	at := make([][]int32, n)
	for k := range d.joints {
		if a := d.joints[k].a; a >= 0 {
			at[a] = append(at[a], int32(k))
		}
		if b := d.joints[k].b; b >= 0 {
			at[b] = append(at[b], int32(k))
		}
	}
	nb := make([]map[int32]bool, m)
	for k := range nb {
		nb[k] = map[int32]bool{}
	}
	for _, js := range at {
		for x := range js {
			for y := x + 1; y < len(js); y++ {
				nb[js[x]][js[y]], nb[js[y]][js[x]] = true, true
			}
		}
	}
	// Symbolic elimination: a joint's later neighbours become coupled to each other.
	blk := map[uint64]int32{}
	block := func(i, j int32) int32 {
		key := uint64(i)<<32 | uint64(j)
		if b, ok := blk[key]; ok {
			return b
		}
		b := int32(len(blk))
		blk[key] = b
		return b
	}
	for _, js := range at { // the blocks A has before elimination
		for x := range js {
			for y := x + 1; y < len(js); y++ {
				if js[x] != js[y] {
					block(min(js[x], js[y]), max(js[x], js[y]))
				}
			}
		}
	}
	original := len(blk)
	d.later, d.lstart = d.later[:0], append(d.lstart[:0], 0)
	d.upd, d.ustart = d.upd[:0], append(d.ustart[:0], 0)
	for k := int32(0); k < int32(m); k++ {
		var later []int32
		for i := range nb[k] {
			if i > k {
				later = append(later, i)
			}
		}
		slices.Sort(later)
		base := int32(len(d.later)) / 2
		for _, i := range later {
			d.later = append(d.later, i, block(k, i))
		}
		for x, i := range later {
			for y, j := range later[x:] {
				u := directUpdate{ki: block(k, i), kj: block(k, j), li: base + int32(x), lj: base + int32(x+y), diag: i == j}
				if i == j {
					u.target = i
				} else {
					u.target = block(i, j)
					nb[i][j], nb[j][i] = true, true
				}
				d.upd = append(d.upd, u)
			}
		}
		d.lstart = append(d.lstart, int32(len(d.later)))
		d.ustart = append(d.ustart, int32(len(d.upd)))
	}
	d.fills = len(blk) - original
	d.couple = d.couple[:0]
	for body, js := range at {
		for x := range js {
			for y := x + 1; y < len(js); y++ {
				k1, k2 := min(js[x], js[y]), max(js[x], js[y])
				if k1 == k2 {
					continue
				}
				d.couple = append(d.couple, directCouple{blk: blk[uint64(k1)<<32|uint64(k2)], k1: k1, k2: k2,
					bA1: d.joints[k1].a == int32(body), bA2: d.joints[k2].a == int32(body), body: int32(body)})
			}
		}
	}
	d.diag = resize(d.diag, m)
	d.dinv = resize(d.dinv, m)
	d.off = resize(d.off, len(blk))
	d.r, d.z, d.x = resize(d.r, m), resize(d.z, m), resize(d.x, m)
}

// loadDirectRows copies the joints' equality rows (set by refreshJoint) into the system.
func (w *World) loadDirectRows() {
	b := &w.Bodies
	d := &w.pipe.joints.direct
	for k := range d.joints {
		dj := &d.joints[k]
		j := &w.joints[dj.joint]
		dj.n = 0
		row := func(lin, ra, rb vec, c float32) {
			r := dj.n
			dj.la[r], dj.wa[r], dj.lb[r], dj.wb[r], dj.c[r] = lin.Scale(-1), ra.Scale(-1), lin, rb, c
			dj.n++
		}
		point := func(p *pointPart) {
			for i, e := range [3]vec{{X: 1, Y: 0, Z: 0}, {X: 0, Y: 1, Z: 0}, {X: 0, Y: 0, Z: 1}} {
				row(e, p.rA.Cross(e), p.rB.Cross(e), [3]float32{p.c.X, p.c.Y, p.c.Z}[i])
			}
		}
		rotation := func(r *rotationPart) {
			for i, e := range [3]vec{{X: 1, Y: 0, Z: 0}, {X: 0, Y: 1, Z: 0}, {X: 0, Y: 0, Z: 1}} {
				row(vec{}, e, e, [3]float32{r.c.X, r.c.Y, r.c.Z}[i])
			}
		}
		switch j.def.Type {
		case Ball:
			point(&j.point)
		case Hinge:
			point(&j.point)
			row(vec{}, j.hinge.u1, j.hinge.u1, j.hinge.c[0])
			row(vec{}, j.hinge.u2, j.hinge.u2, j.hinge.c[1])
		case Piston:
			for i := range j.perp {
				row(j.perp[i].d, j.perp[i].ra, j.perp[i].rb, j.perp[i].c)
			}
			rotation(&j.rot)
		case Fixed:
			point(&j.point)
			rotation(&j.rot)
		}
		for r := range dj.n {
			if dj.a >= 0 {
				dj.iwa[r] = mulMat(&b.InvInertiaWorld[dj.a], dj.wa[r])
			}
			if dj.b >= 0 {
				dj.iwb[r] = mulMat(&b.InvInertiaWorld[dj.b], dj.wb[r])
			}
		}
	}
}

// loadDirectErrors copies the joints' position errors (set by refreshJoint) into the system, whose
// Jacobian may be from the last factorisation.
func (w *World) loadDirectErrors() {
	d := &w.pipe.joints.direct
	for k := range d.joints {
		dj := &d.joints[k]
		j := &w.joints[dj.joint]
		c := &dj.c
		switch j.def.Type {
		case Ball:
			c[0], c[1], c[2] = j.point.c.X, j.point.c.Y, j.point.c.Z
		case Hinge:
			c[0], c[1], c[2] = j.point.c.X, j.point.c.Y, j.point.c.Z
			c[3], c[4] = j.hinge.c[0], j.hinge.c[1]
		case Piston:
			c[0], c[1] = j.perp[0].c, j.perp[1].c
			c[2], c[3], c[4] = j.rot.c.X, j.rot.c.Y, j.rot.c.Z
		case Fixed:
			c[0], c[1], c[2] = j.point.c.X, j.point.c.Y, j.point.c.Z
			c[3], c[4], c[5] = j.rot.c.X, j.rot.c.Y, j.rot.c.Z
		}
	}
}

// factorDirect assembles A = J M^-1 J^T in blocks at the bodies' current poses and factors it as
// L D L^T. Each block is n_i x n_j for joints of n_i and n_j rows; the loops run over those sizes.
func (w *World) factorDirect() {
	b := &w.Bodies
	d := &w.pipe.joints.direct
	w.loadDirectRows()
	for k := range d.joints {
		dj := &d.joints[k]
		A := &d.diag[k]
		for r := range dj.n {
			for s := 0; s <= r; s++ {
				var v float32
				if dj.a >= 0 {
					v += b.InvMass[dj.a]*dj.la[r].Dot(dj.la[s]) + dj.wa[r].Dot(dj.iwa[s])
				}
				if dj.b >= 0 {
					v += b.InvMass[dj.b]*dj.lb[r].Dot(dj.lb[s]) + dj.wb[r].Dot(dj.iwb[s])
				}
				A[r][s], A[s][r] = float64(v), float64(v)
			}
		}
	}
	for i := range d.off {
		d.off[i] = mat6{}
	}
	for _, c := range d.couple {
		j1, j2 := &d.joints[c.k1], &d.joints[c.k2]
		l1, w1 := &j1.lb, &j1.wb
		if c.bA1 {
			l1, w1 = &j1.la, &j1.wa
		}
		l2, iw2 := &j2.lb, &j2.iwb
		if c.bA2 {
			l2, iw2 = &j2.la, &j2.iwa
		}
		m := b.InvMass[c.body]
		B := &d.off[c.blk]
		for r := range j1.n {
			for s := range j2.n {
				B[r][s] += float64(m*l1[r].Dot(l2[s]) + w1[r].Dot(iw2[s]))
			}
		}
	}
	for k := range d.joints {
		nk := d.joints[k].n
		invertSPD(&d.diag[k], &d.dinv[k], nk)
		for _, u := range d.upd[d.ustart[k]:d.ustart[k+1]] {
			ni, nj := d.joints[d.later[2*u.li]].n, d.joints[d.later[2*u.lj]].n
			// target -= B_ki^T D_k^-1 B_kj
			var mb mat6
			m, bj, bi := &d.dinv[k], &d.off[u.kj], &d.off[u.ki]
			for r := range nk {
				for s := range nj {
					var v float64
					for q := range nk {
						v += m[r][q] * bj[q][s]
					}
					mb[r][s] = v
				}
			}
			var dst *mat6
			if u.diag {
				dst = &d.diag[u.target]
			} else {
				dst = &d.off[u.target]
			}
			for r := range ni {
				for s := range nj {
					var v float64
					for q := range nk {
						v += bi[q][r] * mb[q][s]
					}
					dst[r][s] -= v
				}
			}
		}
	}
	d.stale = false
}

// invertSPD sets inv to the inverse of the leading n x n part of a symmetric positive semi-definite
// block, by Cholesky factorisation. A row whose pivot vanishes (a redundant row: e.g. a joint whose
// bodies other joints already fix that way) is dropped: its impulse is 0.
func invertSPD(a, inv *mat6, n int) {
	var l mat6
	var keep [6]bool
	scale := 0.0
	for i := range n {
		scale = max(scale, a[i][i])
	}
	for i := range n {
		for j := 0; j <= i; j++ {
			v := a[i][j]
			for q := range j {
				v -= l[i][q] * l[j][q]
			}
			if i == j {
				if v > 1e-12*scale {
					l[i][i] = math.Sqrt(v)
					keep[i] = true
				}
			} else if keep[j] {
				l[i][j] = v / l[j][j]
			}
		}
	}
	// inv = L^-T L^-1, column by column.
	*inv = mat6{}
	for c := range n {
		var y vec6
		for i := range n {
			if !keep[i] {
				continue
			}
			v := 0.0
			if i == c {
				v = 1
			}
			for q := range i {
				v -= l[i][q] * y[q]
			}
			y[i] = v / l[i][i]
		}
		for i := n - 1; i >= 0; i-- {
			if !keep[i] {
				continue
			}
			v := y[i]
			for q := i + 1; q < n; q++ {
				v -= l[q][i] * inv[q][c]
			}
			inv[i][c] = v / l[i][i]
		}
	}
}

// solveJointsDirect solves every joint's equality rows together, exactly (with the position bias
// C/h in the biased pass), and applies the impulses.
func (w *World) solveJointsDirect(useBias bool) {
	d := &w.pipe.joints.direct
	if len(d.joints) == 0 {
		return
	}
	if d.stale {
		w.factorDirect()
	} else {
		w.refreshRows()
		w.loadDirectErrors()
	}
	b := &w.Bodies
	invH := w.pipe.plan.ctx.invH
	for k := range d.joints {
		dj := &d.joints[k]
		var va, wa, vb, wb vec
		if dj.a >= 0 {
			va, wa = ldv(&b.Velocity[dj.a]), ldv(&b.AngularVelocity[dj.a])
		}
		if dj.b >= 0 {
			vb, wb = ldv(&b.Velocity[dj.b]), ldv(&b.AngularVelocity[dj.b])
		}
		r := &d.r[k]
		*r = vec6{}
		for i := range dj.n {
			v := dj.la[i].Dot(va) + dj.wa[i].Dot(wa) + dj.lb[i].Dot(vb) + dj.wb[i].Dot(wb)
			if useBias {
				v += dj.c[i] * invH
			}
			r[i] = -float64(v)
		}
	}
	d.solve()
	for k := range d.joints {
		w.applyDirect(&d.joints[k], &d.x[k])
	}
}

// Projection: the velocity solve makes the rows' rates right, but the bodies then turn through a
// finite angle in the sub-step, so an anchor swinging at angular speed omega about a point r away
// leaves its partner by about (omega h)^2 r / 2 (4 mm at the tip of a whipping 100-link chain at 480
// Hz). The projection removes it (Cline and Pai 2003, post-stabilisation): with A factored at the new
// poses it solves A x = -C and moves the bodies by M^-1 J^T x, which changes no velocity; Newton
// iterations, as C is not linear in the poses, until every row's error is under projectTolerance.
const (
	projectIterations = 3
	projectTolerance  = 1e-5 // m (and rad): a few float32 roundings at 20 m from the origin
)

// projectJointsDirect is the StageProject stage.
func (w *World) projectJointsDirect() {
	p := &w.pipe
	d := &p.joints.direct
	if !p.joints.useDirect || len(d.joints) == 0 {
		return
	}
	b := &w.Bodies
	d.stale = true
	for range projectIterations {
		w.refreshRows()
		if d.stale {
			w.factorDirect()
		} else {
			w.loadDirectErrors()
		}
		worst := float32(0)
		for k := range d.joints {
			dj := &d.joints[k]
			r := &d.r[k]
			*r = vec6{}
			for i := range dj.n {
				worst = max(worst, vecmath.Abs(dj.c[i]))
				r[i] = -float64(dj.c[i])
			}
		}
		if worst < projectTolerance {
			return
		}
		d.solve()
		for k := range d.joints {
			dj := &d.joints[k]
			var lA, aA, lB, aB vec
			for r := range dj.n {
				l := float32(d.x[k][r])
				lA, aA = lA.Add(dj.la[r].Scale(l)), aA.Add(dj.iwa[r].Scale(l))
				lB, aB = lB.Add(dj.lb[r].Scale(l)), aB.Add(dj.iwb[r].Scale(l))
			}
			if dj.a >= 0 {
				w.displace(dj.a, lA.Scale(b.InvMass[dj.a]), aA)
			}
			if dj.b >= 0 {
				w.displace(dj.b, lB.Scale(b.InvMass[dj.b]), aB)
			}
		}
		w.markPosesMoved()
	}
	w.refreshRows()
}

// displace moves body i by dx and turns it by the small rotation vector th.
func (w *World) displace(i int32, dx, th vec) {
	b := &w.Bodies
	stv(&b.Position[i], ldv(&b.Position[i]).Add(dx))
	q := b.Rotation[i]
	t := th.Vec3()
	q.W -= 0.5 * dot(t, q.V)
	q.V = q.V.Add(t.Mul(0.5 * b.Rotation[i].W).Add(cross(t, b.Rotation[i].V).Mul(0.5)))
	q = q.Normalize()
	b.Rotation[i] = q
	b.rot[i] = quatMat3(q)
}

// solve solves A x = r with the factor (r is overwritten).
func (d *directSystem) solve() {
	// Forward: L y = r, z = D^-1 y.
	for k := range d.joints {
		nk := d.joints[k].n
		z := mulVec6(&d.dinv[k], &d.r[k], nk)
		d.z[k] = z
		for q := d.lstart[k]; q < d.lstart[k+1]; q += 2 {
			i, B := d.later[q], &d.off[d.later[q+1]]
			ri := &d.r[i]
			for s := range d.joints[i].n {
				var v float64
				for t := range nk {
					v += B[t][s] * z[t]
				}
				ri[s] -= v
			}
		}
	}
	// Back: L^T x = z.
	for k := len(d.joints) - 1; k >= 0; k-- {
		nk := d.joints[k].n
		var s vec6
		for q := d.lstart[k]; q < d.lstart[k+1]; q += 2 {
			i, B := d.later[q], &d.off[d.later[q+1]]
			for r := range nk {
				for t := range d.joints[i].n {
					s[r] += B[r][t] * d.x[i][t]
				}
			}
		}
		c := mulVec6(&d.dinv[k], &s, nk)
		for r := range 6 {
			d.x[k][r] = d.z[k][r] - c[r]
		}
	}
}

func mulVec6(m *mat6, v *vec6, n int) vec6 {
	var o vec6
	for r := range n {
		for s := range n {
			o[r] += m[r][s] * v[s]
		}
	}
	return o
}

// applyDirect adds a joint's impulses to its parts' accumulated impulses (warm starting, break
// forces) and to its bodies' velocities.
func (w *World) applyDirect(dj *directJoint, x *vec6) {
	b := &w.Bodies
	var lA, aA, lB, aB vec
	for r := range dj.n {
		l := float32(x[r])
		lA, aA = lA.Add(dj.la[r].Scale(l)), aA.Add(dj.iwa[r].Scale(l))
		lB, aB = lB.Add(dj.lb[r].Scale(l)), aB.Add(dj.iwb[r].Scale(l))
	}
	if dj.a >= 0 {
		stv(&b.Velocity[dj.a], ldv(&b.Velocity[dj.a]).Add(lA.Scale(b.InvMass[dj.a])))
		stv(&b.AngularVelocity[dj.a], ldv(&b.AngularVelocity[dj.a]).Add(aA))
	}
	if dj.b >= 0 {
		stv(&b.Velocity[dj.b], ldv(&b.Velocity[dj.b]).Add(lB.Scale(b.InvMass[dj.b])))
		stv(&b.AngularVelocity[dj.b], ldv(&b.AngularVelocity[dj.b]).Add(aB))
	}
	j := &w.joints[dj.joint]
	f := func(r int) float32 { return float32(x[r]) }
	point := func(p *pointPart, o int) { p.impulse = p.impulse.Add(vec{X: f(o), Y: f(o + 1), Z: f(o + 2)}) }
	rot := func(p *rotationPart, o int) { p.impulse = p.impulse.Add(vec{X: f(o), Y: f(o + 1), Z: f(o + 2)}) }
	switch j.def.Type {
	case Ball:
		point(&j.point, 0)
	case Hinge:
		point(&j.point, 0)
		j.hinge.impulse[0] += f(3)
		j.hinge.impulse[1] += f(4)
	case Piston:
		j.perp[0].impulse += f(0)
		j.perp[1].impulse += f(1)
		rot(&j.rot, 2)
	case Fixed:
		point(&j.point, 0)
		rot(&j.rot, 3)
	}
}
