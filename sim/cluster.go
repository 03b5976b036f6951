package sim

import (
	"fmt"
	"math"
)

// ClusterDef groups dynamic bodies into a shape-matching cluster (seed 003; Müller, Heidelberger,
// Teschner and Gross 2005, "Meshless deformations based on shape matching"). The bodies' positions and
// orientations when the cluster is added are its rest shape. Under the shapematch solver every step
// finds the rotation that best maps the rest shape onto where the members are now and pulls each member
// towards its place in the rotated rest shape, so the group moves like one soft body: a cluster of small
// boxes wobbles like jelly and recovers its shape. Under the other solvers a cluster is inert.
type ClusterDef struct {
	Bodies []Handle // the members: at least 2 distinct dynamic bodies
	// Stiffness is the paper's alpha, in [0, 1]: each member is pulled towards its goal position g by
	// the velocity change alpha (g - x) / dt, a spring of angular frequency sqrt(alpha) / dt. 0 leaves
	// the members free; 1 is as stiff as the step allows (rigid-like, and it rings).
	Stiffness float32
	// Damping, in [0, 1], is the share of each member's velocity relative to the cluster's rigid motion
	// (its mean velocity and spin) removed per step; 0 lets a deformed cluster ring for ever.
	Damping float32
	// Linear, the paper's beta in [0, 1], blends the best linear fit (stretch and shear, volume kept)
	// into the goal: 0 matches the rigid rest shape only; more lets the cluster deform further.
	Linear float32
}

// cluster is a ClusterDef as the world keeps it. Its members are members[first:first+count]. It is
// plain data, so a State stores it as it is.
type cluster struct {
	first, count               int32
	stiffness, damping, linear float32
	rot                        Quat // the last fit's rotation of the rest shape, the next fit's start
}

// clusterMember is one member of a cluster and its rest pose.
type clusterMember struct {
	body    Handle
	rest    Vec3 // rest position of the centre of mass
	restRot Quat // rest orientation
}

// AddCluster adds a shape-matching cluster whose rest shape is its members' current poses and returns
// its index. It is refused, with the world unchanged, for fewer than 2 members, a stale, repeated or
// non-dynamic member, or a stiffness, damping or linear share outside [0, 1].
func (w *World) AddCluster(d ClusterDef) (int, error) {
	if len(d.Bodies) < 2 {
		return 0, fmt.Errorf("cluster: %d member(s); a cluster needs at least 2 bodies", len(d.Bodies))
	}
	for _, f := range []struct {
		name string
		v    float32
	}{{"stiffness", d.Stiffness}, {"damping", d.Damping}, {"linear", d.Linear}} {
		if !(f.v >= 0 && f.v <= 1) { // also refuses NaN
			return 0, fmt.Errorf("cluster: %s must be in [0, 1], got %v", f.name, f.v)
		}
	}
	w.beforeEdit()
	b := &w.Bodies
	seen := make(map[Handle]bool, len(d.Bodies))
	for k, h := range d.Bodies {
		i, ok := w.dense(h)
		switch {
		case !ok:
			return 0, fmt.Errorf("cluster: member %d: %w", k, ErrStale)
		case seen[h]:
			return 0, fmt.Errorf("cluster: member %d: body %q is listed twice", k, b.Name[i])
		case b.Type[i] != Dynamic:
			return 0, fmt.Errorf("cluster: member %d: body %q is %s; members must be dynamic", k, b.Name[i], b.Type[i])
		}
		seen[h] = true
	}
	c := cluster{first: int32(len(w.members)), count: int32(len(d.Bodies)), stiffness: d.Stiffness,
		damping: d.Damping, linear: d.Linear, rot: Quat{W: 1}}
	for _, h := range d.Bodies {
		i, _ := w.dense(h)
		w.members = append(w.members, clusterMember{body: h, rest: b.Position[i], restRot: b.Rotation[i]})
		w.wakeIndex(i)
	}
	w.clusters = append(w.clusters, c)
	return len(w.clusters) - 1, nil
}

// NumClusters returns the number of shape-matching clusters.
func (w *World) NumClusters() int { return len(w.clusters) }

// Cluster returns cluster i's definition (its live members).
func (w *World) Cluster(i int) ClusterDef {
	c := &w.clusters[i]
	d := ClusterDef{Stiffness: c.stiffness, Damping: c.damping, Linear: c.linear}
	for _, m := range w.members[c.first : c.first+c.count] {
		d.Bodies = append(d.Bodies, m.body)
	}
	return d
}

// ClusterRest returns the rest position of cluster i's member k (the centre of mass of its body when
// the cluster was added).
func (w *World) ClusterRest(i, k int) Vec3 { return w.members[int(w.clusters[i].first)+k].rest }

// SetClusterStiffness changes cluster i's stiffness, damping and linear share (each in [0, 1]),
// keeping its members and rest shape.
func (w *World) SetClusterStiffness(i int, stiffness, damping, linear float32) error {
	if i < 0 || i >= len(w.clusters) {
		return fmt.Errorf("cluster %d: no such cluster (%d)", i, len(w.clusters))
	}
	for _, v := range []float32{stiffness, damping, linear} {
		if !(v >= 0 && v <= 1) {
			return fmt.Errorf("cluster %d: stiffness, damping and linear must be in [0, 1], got %v", i, v)
		}
	}
	c := &w.clusters[i]
	c.stiffness, c.damping, c.linear = stiffness, damping, linear
	for _, m := range w.members[c.first : c.first+c.count] {
		if k, ok := w.dense(m.body); ok {
			w.wakeIndex(k)
		}
	}
	return nil
}

// dropClusterMember removes body h from every cluster; a cluster left with fewer than 2 members goes.
func (w *World) dropClusterMember(h Handle) {
	if len(w.clusters) == 0 {
		return
	}
	members := make([]clusterMember, 0, len(w.members))
	kept := w.clusters[:0]
	for _, c := range w.clusters {
		first := int32(len(members))
		for _, m := range w.members[c.first : c.first+c.count] {
			if m.body != h {
				members = append(members, m)
			}
		}
		if n := int32(len(members)) - first; n >= 2 {
			c.first, c.count = first, n
			kept = append(kept, c)
		} else {
			members = members[:first]
		}
	}
	w.clusters, w.members = kept, members
}

// clusterScratch is one member's working values for a fit, in float64: the fit sums hundreds of small
// products, and the rotation's iteration converges to 1e-12 only in double.
type clusterScratch struct {
	i, k int // dense index, place in the cluster
	m    float64
	p, q [3]float64 // position and rest position relative to their centres of mass
	iw   m3         // world inertia
}

// matchClusters is the shape-matching stage (StageShapeMatch) for one sub-step of length h, which is
// 1/substeps of the step: it pulls every awake cluster's members towards their goals with the
// cluster's stiffness and damping, scaled to the sub-step.
func (w *World) matchClusters(h float32, substeps int) {
	s := float64(substeps)
	for ci := range w.clusters {
		c := &w.clusters[ci]
		// The spring keeps its frequency sqrt(alpha)/dt for any number of sub-steps: alpha/S^2 per
		// sub-step of dt/S; the damping keeps its share per step: 1 - (1-d)^(1/S) per sub-step.
		alpha := float64(c.stiffness) / (s * s)
		damp := 1 - math.Pow(1-float64(c.damping), 1/s)
		if alpha == 0 && damp == 0 {
			continue
		}
		w.matchCluster(c, alpha, damp, float64(h))
	}
}

// matchCluster applies one sub-step's shape matching to cluster c.
func (w *World) matchCluster(c *cluster, alpha, damp, h float64) {
	b := &w.Bodies
	p := &w.pipe
	mem := w.members[c.first : c.first+c.count]
	sc := p.match.cluster[:0]
	var mass float64
	var cm, cm0 [3]float64
	for k := range mem {
		i, ok := w.dense(mem[k].body)
		if !ok || b.Type[i] != Dynamic || b.Asleep[i] || b.InvMass[i] == 0 {
			continue
		}
		m := float64(b.Mass[i])
		if m <= 0 {
			m = 1 / float64(b.InvMass[i])
		}
		e := clusterScratch{i: i, k: k, m: m, iw: worldInertiaD(b, i)}
		for a := range 3 {
			e.p[a] = float64(b.Position[i][a])
			e.q[a] = float64(mem[k].rest[a])
			cm[a] += m * e.p[a]
			cm0[a] += m * e.q[a]
		}
		mass += m
		sc = append(sc, e)
	}
	p.match.cluster = sc
	if len(sc) < 2 || mass == 0 {
		return
	}
	for a := range 3 {
		cm[a] /= mass
		cm0[a] /= mass
	}
	var apq, aqq m3
	var vc [3]float64
	var lin, ang [3]float64 // the cluster's momentum and angular momentum about cm
	for k := range sc {
		e := &sc[k]
		for a := range 3 {
			e.p[a] -= cm[a]
			e.q[a] -= cm0[a]
		}
		for r := range 3 {
			for col := range 3 {
				apq[r][col] += e.m * e.p[r] * e.q[col]
				aqq[r][col] += e.m * e.q[r] * e.q[col]
			}
		}
		v := d3(b.Velocity[e.i])
		for a := range 3 {
			lin[a] += e.m * v[a]
		}
		ang = add3(ang, add3(scale3(cross3(e.p, v), e.m), e.iw.mul(d3(b.AngularVelocity[e.i]))))
	}
	vc = scale3(lin, 1/mass)
	ic := clusterInertia(sc)
	icInv, ok := ic.inverse()
	var wc [3]float64
	if ok {
		wc = icInv.mul(ang)
	}
	// R: the rotation part of Apq (polar decomposition), by iterating from last step's rotation.
	rq := extractRotation(&apq, c.rot)
	c.rot = Quat{W: float32(rq[3]), V: Vec3{float32(rq[0]), float32(rq[1]), float32(rq[2])}}
	R := quatToM3(rq)
	G := R
	if c.linear > 0 {
		// The best linear map A = Apq Aqq^-1, with its volume kept (det A = 1), blended with R.
		if inv, ok := aqq.inverse(); ok {
			A := apq.mulM(&inv)
			if det := A.det(); det > 1e-9 {
				A = A.scale(1 / math.Cbrt(det))
				beta := float64(c.linear)
				G = A.scale(beta).addM(R.scale(1 - beta))
			}
		}
	}
	var dL [3]float64
	for k := range sc {
		e := &sc[k]
		i := e.i
		v := d3(b.Velocity[i])
		om := d3(b.AngularVelocity[i])
		v0, om0 := v, om
		if damp > 0 {
			// Remove a share of the velocity relative to the cluster's rigid motion (a deformation's
			// velocity); the rigid motion itself, and so the momentum, is untouched.
			rig := add3(vc, cross3(wc, e.p))
			v = sub3(v, scale3(sub3(v, rig), damp))
			om = sub3(om, scale3(sub3(om, wc), damp))
		}
		if alpha > 0 {
			g := G.mul(e.q) // the goal, relative to cm
			v = add3(v, scale3(sub3(g, e.p), alpha/h))
			// The member's orientation is pulled the same way towards R times its rest orientation.
			goal := qmul(rq, quatD(mem[e.k].restRot))
			err := rotationVector(qmul(goal, qconj(quatD(b.Rotation[i]))))
			om = add3(om, scale3(err, alpha/h))
		}
		dv, dom := sub3(v, v0), sub3(om, om0)
		dL = add3(dL, add3(scale3(cross3(e.p, dv), e.m), e.iw.mul(dom)))
		b.Velocity[i] = f3(v)
		b.AngularVelocity[i] = f3(om)
	}
	// The orientation pull turns members, which changes the angular momentum; take the change back
	// out as a rigid spin of the whole cluster, so that matching is an internal force: it conserves
	// momentum and angular momentum (the position pull alone does: its goals share the members'
	// centre of mass, and R makes Apq R^T symmetric, so its torques cancel).
	if ok && (dL[0] != 0 || dL[1] != 0 || dL[2] != 0) {
		dw := scale3(icInv.mul(dL), -1)
		for k := range sc {
			e := &sc[k]
			b.Velocity[e.i] = f3(add3(d3(b.Velocity[e.i]), cross3(dw, e.p)))
			b.AngularVelocity[e.i] = f3(add3(d3(b.AngularVelocity[e.i]), dw))
		}
	}
}

// clusterInertia is the cluster's inertia about its centre of mass: the members' masses at their
// offsets plus their own world inertias.
func clusterInertia(sc []clusterScratch) m3 {
	var ic m3
	for k := range sc {
		e := &sc[k]
		pp := dot3(e.p, e.p)
		for r := range 3 {
			for col := range 3 {
				d := 0.0
				if r == col {
					d = pp
				}
				ic[r][col] += e.m * (d - e.p[r]*e.p[col])
			}
		}
		ic = ic.addM(e.iw)
	}
	return ic
}

// worldInertiaD returns body i's world inertia R diag(I) R^T (I the local principal inertia, the
// inverse of InvInertiaLocal), in float64.
func worldInertiaD(b *Bodies, i int) m3 {
	r := quatToM3(quatD(b.Rotation[i]))
	inv := b.InvInertiaLocal[i]
	var I [3]float64
	for a := range 3 {
		if inv[a] > 0 {
			I[a] = 1 / float64(inv[a])
		}
	}
	var out m3
	for row := range 3 {
		for col := range 3 {
			out[row][col] = r[row][0]*I[0]*r[col][0] + r[row][1]*I[1]*r[col][1] + r[row][2]*I[2]*r[col][2]
		}
	}
	return out
}

// extractRotation returns the rotation R that maximises trace(R^T A), i.e. the rotation part of A's
// polar decomposition, starting from q. Each iteration turns R about the axis that brings R's columns
// towards A's (the torque of springs between them, sum of r_k x a_k) by that torque over the springs'
// stiffness (|sum r_k . a_k|), which converges to the maximum from any start and stays a rotation when
// A is degenerate (a flat or straight cluster) or inverted (Müller et al. 2016 use the same idea).
func extractRotation(a *m3, start Quat) [4]float64 {
	q := quatD(start)
	for range 30 {
		r := quatToM3(q)
		var num [3]float64
		den := 0.0
		for k := range 3 {
			rc := [3]float64{r[0][k], r[1][k], r[2][k]}
			ac := [3]float64{a[0][k], a[1][k], a[2][k]}
			num = add3(num, cross3(rc, ac))
			den += dot3(rc, ac)
		}
		om := scale3(num, 1/(math.Abs(den)+1e-12))
		ang := math.Sqrt(dot3(om, om))
		if ang < 1e-12 {
			break
		}
		s := math.Sin(ang/2) / ang
		q = qnorm(qmul([4]float64{om[0] * s, om[1] * s, om[2] * s, math.Cos(ang / 2)}, q))
	}
	return q
}

// m3 is a row-major 3x3 matrix in float64.
type m3 [3][3]float64

func (a m3) mul(x [3]float64) [3]float64 {
	return [3]float64{dot3(a[0], x), dot3(a[1], x), dot3(a[2], x)}
}

func (a m3) mulM(b *m3) m3 {
	var c m3
	for r := range 3 {
		for col := range 3 {
			c[r][col] = a[r][0]*b[0][col] + a[r][1]*b[1][col] + a[r][2]*b[2][col]
		}
	}
	return c
}

func (a m3) scale(s float64) m3 {
	for r := range 3 {
		a[r] = scale3(a[r], s)
	}
	return a
}

func (a m3) addM(b m3) m3 {
	for r := range 3 {
		a[r] = add3(a[r], b[r])
	}
	return a
}

func (a m3) det() float64 { return dot3(a[0], cross3(a[1], a[2])) }

// inverse returns a^-1, and false when a is (nearly) singular.
func (a m3) inverse() (m3, bool) {
	c0, c1, c2 := cross3(a[1], a[2]), cross3(a[2], a[0]), cross3(a[0], a[1])
	det := dot3(a[0], c0)
	scale := dot3(a[0], a[0]) + dot3(a[1], a[1]) + dot3(a[2], a[2])
	if !(math.Abs(det) > 1e-12*scale*math.Sqrt(scale)) {
		return m3{}, false
	}
	// The inverse's columns are the cofactor rows: inv = [c0 c1 c2] / det.
	var inv m3
	for r := range 3 {
		inv[r] = [3]float64{c0[r] / det, c1[r] / det, c2[r] / det}
	}
	return inv, true
}

// Quaternions in float64 as [x, y, z, w].

func quatD(q Quat) [4]float64 {
	return [4]float64{float64(q.V[0]), float64(q.V[1]), float64(q.V[2]), float64(q.W)}
}

func qmul(a, b [4]float64) [4]float64 {
	return [4]float64{
		a[3]*b[0] + a[0]*b[3] + a[1]*b[2] - a[2]*b[1],
		a[3]*b[1] - a[0]*b[2] + a[1]*b[3] + a[2]*b[0],
		a[3]*b[2] + a[0]*b[1] - a[1]*b[0] + a[2]*b[3],
		a[3]*b[3] - a[0]*b[0] - a[1]*b[1] - a[2]*b[2],
	}
}

func qconj(q [4]float64) [4]float64 { return [4]float64{-q[0], -q[1], -q[2], q[3]} }

func qnorm(q [4]float64) [4]float64 {
	l := math.Sqrt(q[0]*q[0] + q[1]*q[1] + q[2]*q[2] + q[3]*q[3])
	return [4]float64{q[0] / l, q[1] / l, q[2] / l, q[3] / l}
}

// rotationVector returns the axis times angle of rotation q, the shorter way round.
func rotationVector(q [4]float64) [3]float64 {
	if q[3] < 0 {
		q = [4]float64{-q[0], -q[1], -q[2], -q[3]}
	}
	v := [3]float64{q[0], q[1], q[2]}
	s := math.Sqrt(dot3(v, v))
	if s < 1e-12 {
		return scale3(v, 2)
	}
	return scale3(v, 2*math.Atan2(s, q[3])/s)
}

func quatToM3(q [4]float64) m3 {
	x, y, z, w := q[0], q[1], q[2], q[3]
	return m3{
		{1 - 2*(y*y+z*z), 2 * (x*y - z*w), 2 * (x*z + y*w)},
		{2 * (x*y + z*w), 1 - 2*(x*x+z*z), 2 * (y*z - x*w)},
		{2 * (x*z - y*w), 2 * (y*z + x*w), 1 - 2*(x*x+y*y)},
	}
}

func d3(v Vec3) [3]float64 { return [3]float64{float64(v[0]), float64(v[1]), float64(v[2])} }
func f3(v [3]float64) Vec3 { return Vec3{float32(v[0]), float32(v[1]), float32(v[2])} }

func add3(a, b [3]float64) [3]float64 { return [3]float64{a[0] + b[0], a[1] + b[1], a[2] + b[2]} }
func sub3(a, b [3]float64) [3]float64 { return [3]float64{a[0] - b[0], a[1] - b[1], a[2] - b[2]} }
func scale3(a [3]float64, s float64) [3]float64 {
	return [3]float64{a[0] * s, a[1] * s, a[2] * s}
}
func dot3(a, b [3]float64) float64 { return a[0]*b[0] + a[1]*b[1] + a[2]*b[2] }
func cross3(a, b [3]float64) [3]float64 {
	return [3]float64{a[1]*b[2] - a[2]*b[1], a[2]*b[0] - a[0]*b[2], a[0]*b[1] - a[1]*b[0]}
}

// matchStage is the ShapeMatch stage's.
type matchStage struct {
	cluster []clusterScratch // the cluster being matched (cluster.go)
}
