package sim

import (
	"errors"
	"math"
	"math/rand/v2"
	"strings"
	"testing"

	"github.com/go-gl/mathgl/mgl32"
)

// lattice adds an n x n x n lattice of small cubes (half size 0.1 m, 1 kg) spaced gap apart with its
// lowest layer's centres at height y0, and returns their handles.
func lattice(t *testing.T, w *World, n int, gap, y0 float32) []Handle {
	t.Helper()
	var hs []Handle
	for x := range n {
		for y := range n {
			for z := range n {
				hs = append(hs, mustAdd(t, w, BodyDef{Shape: boxShape(0.1, 0.1, 0.1), Mass: 1,
					Position: Vec3{float32(x) * gap, y0 + float32(y)*gap, float32(z) * gap}}))
			}
		}
	}
	return hs
}

// shapeError is the largest difference between a distance between two members now and at rest.
func shapeError(w *World, c int) float64 {
	d := w.Cluster(c)
	worst := 0.0
	for a := range d.Bodies {
		for b := a + 1; b < len(d.Bodies); b++ {
			ia, _ := w.Index(d.Bodies[a])
			ib, _ := w.Index(d.Bodies[b])
			now := w.Bodies.Position[ia].Sub(w.Bodies.Position[ib]).Len()
			rest := w.ClusterRest(c, a).Sub(w.ClusterRest(c, b)).Len()
			worst = max(worst, math.Abs(float64(now-rest)))
		}
	}
	return worst
}

// clusterMomenta returns the bodies' total momentum and angular momentum about the origin, in float64.
func clusterMomenta(w *World) (lin, ang [3]float64) {
	b := &w.Bodies
	for i := range b.Len() {
		if b.Type[i] != Dynamic {
			continue
		}
		m := float64(b.Mass[i])
		v := d3(b.Velocity[i])
		lin = add3(lin, scale3(v, m))
		ang = add3(ang, add3(scale3(cross3(d3(b.Position[i]), v), m), worldInertiaD(b, i).mul(d3(b.AngularVelocity[i]))))
	}
	return lin, ang
}

// A 3x3x3 cluster of cubes (0.5 m apart, so they never touch) is squashed to 60% of its height,
// sheared, turned and its members' orientations scrambled; in weightlessness the shape-match stage
// (stiffness 0.5, damping 0.3: a spring at sqrt(0.5) 60 = 42 rad/s, its deformation's velocity cut by
// 30% a step) brings every distance between members back to its rest length within 0.5 mm in 2 s, and
// every member back to the cluster's rotation within 0.01 rad. Without the stage (stiffness 0 and no
// damping) the deformation stays as it was.
func TestShapeMatchClusterRecoversItsRestShape(t *testing.T) {
	for _, stiffness := range []float32{0.5, 0} {
		w := NewWorld(Settings{Solver: ShapeMatch})
		hs := lattice(t, w, 3, 0.5, 0)
		damping := float32(0.3)
		if stiffness == 0 {
			damping = 0
		}
		c, err := w.AddCluster(ClusterDef{Bodies: hs, Stiffness: stiffness, Damping: damping})
		if err != nil {
			t.Fatal(err)
		}
		rng := rand.New(rand.NewPCG(1, 2))
		turn := mgl32.QuatRotate(0.7, mgl32.Vec3{1, 2, 3}.Normalize())
		for _, h := range hs {
			i, _ := w.Index(h)
			p := w.Bodies.Position[i]
			p = Vec3{p[0] + 0.3*p[1], 0.6 * p[1], p[2]} // squash and shear
			q := mgl32.QuatRotate(rng.Float32()*2, mgl32.Vec3{rng.Float32() - 0.5, rng.Float32() - 0.5, 1}.Normalize())
			if err := w.SetPose(h, turn.Rotate(p), q); err != nil {
				t.Fatal(err)
			}
		}
		before := shapeError(w, c)
		run(t, w, 120)
		after := shapeError(w, c)
		if stiffness == 0 {
			if math.Abs(after-before) > 1e-6 {
				t.Errorf("stiffness 0: the deformation changed from %.6f m to %.6f m; a free cluster must not be pulled", before, after)
			}
			continue
		}
		if before < 0.2 || after > 5e-4 {
			t.Errorf("deformed by %.4f m, after 2 s %.6f m; want < 0.5 mm", before, after)
		}
		// Each member's orientation is the cluster's rotation times its rest orientation (identity).
		rot := w.clusters[c].rot
		for _, h := range hs {
			i, _ := w.Index(h)
			rel := rotationVector(qmul(qconj(quatD(rot)), quatD(w.Bodies.Rotation[i])))
			if a := math.Sqrt(dot3(rel, rel)); a > 0.01 {
				t.Errorf("member %s is %.4f rad off the cluster's rotation", w.Bodies.Name[i], a)
			}
		}
		t.Logf("stiffness %.1f: shape error %.4f m -> %.2e m", stiffness, before, after)
	}
}

// With stiffness 0 a member of a cluster moves exactly as a free body: in weightlessness it keeps its
// velocity, and after 1 s is where x0 + v0 t puts it, to float32 rounding: 480 sub-steps each round
// a position near 0.5 m by up to half an ulp (3e-8 m), 1.4e-5 m in all.
func TestShapeMatchStiffnessZeroLeavesTheMembersFree(t *testing.T) {
	w := NewWorld(Settings{Solver: ShapeMatch})
	hs := lattice(t, w, 2, 0.5, 0)
	if _, err := w.AddCluster(ClusterDef{Bodies: hs}); err != nil {
		t.Fatal(err)
	}
	v0 := make([]Vec3, len(hs))
	x0 := make([]Vec3, len(hs))
	for k, h := range hs {
		i, _ := w.Index(h)
		v0[k] = Vec3{float32(k%3) * 0.1, -float32(k%2) * 0.2, 0.05}
		x0[k] = w.Bodies.Position[i]
		if err := w.SetVelocity(h, v0[k], Vec3{}); err != nil {
			t.Fatal(err)
		}
	}
	if !w.Plan().Uses(StageShapeMatch) {
		t.Fatal("the shapematch solver's plan has no shape-match stage")
	}
	run(t, w, 60)
	for k, h := range hs {
		i, _ := w.Index(h)
		want := x0[k].Add(v0[k].Mul(1))
		if d := w.Bodies.Position[i].Sub(want).Len(); d > 3e-5 {
			t.Errorf("member %d at %v, want %v (free flight)", k, w.Bodies.Position[i], want)
		}
	}
}

// The shape-match stage is an internal force: over one stage of a deformed, moving, spinning cluster
// (rigid and with the linear fit) the total momentum and angular momentum do not change, to float32
// rounding of the stored velocities, while the velocities themselves change by metres per second.
func TestShapeMatchStageConservesMomentum(t *testing.T) {
	for _, linear := range []float32{0, 0.5} {
		w := NewWorld(Settings{Solver: ShapeMatch, Gravity: Vec3{}})
		hs := lattice(t, w, 3, 0.5, 0)
		c, err := w.AddCluster(ClusterDef{Bodies: hs, Stiffness: 0.8, Damping: 0.4, Linear: linear})
		if err != nil {
			t.Fatal(err)
		}
		rng := rand.New(rand.NewPCG(3, 4))
		r := func() float32 { return 2*rng.Float32() - 1 }
		for _, h := range hs {
			i, _ := w.Index(h)
			p := w.Bodies.Position[i].Add(Vec3{0.2 * r(), 0.2 * r(), 0.2 * r()})
			q := mgl32.QuatRotate(r(), mgl32.Vec3{r(), r(), 1}.Normalize())
			w.Bodies.Mass[i] = 1 + rng.Float32()
			w.Bodies.InvMass[i] = 1 / w.Bodies.Mass[i]
			if err := w.SetPose(h, p, q); err != nil {
				t.Fatal(err)
			}
			if err := w.SetVelocity(h, Vec3{r(), r(), r()}, Vec3{3 * r(), 3 * r(), 3 * r()}); err != nil {
				t.Fatal(err)
			}
		}
		lin0, ang0 := clusterMomenta(w)
		v0 := w.Bodies.Velocity[0]
		w.matchCluster(&w.clusters[c], 0.8, 0.4, 1.0/60)
		lin1, ang1 := clusterMomenta(w)
		if moved := w.Bodies.Velocity[0].Sub(v0).Len(); moved < 0.5 {
			t.Fatalf("linear %.1f: the stage changed member 0's velocity by only %.3f m/s", linear, moved)
		}
		dl, da := sub3(lin1, lin0), sub3(ang1, ang0)
		if n := math.Sqrt(dot3(dl, dl)); n > 1e-4 {
			t.Errorf("linear %.1f: momentum changed by %.2e kg m/s (from %v)", linear, n, lin0)
		}
		if n := math.Sqrt(dot3(da, da)); n > 1e-4 {
			t.Errorf("linear %.1f: angular momentum changed by %.2e kg m^2/s (from %v)", linear, n, ang0)
		}
	}
}

// AddCluster refuses a cluster it cannot match, naming what is wrong, and leaves the world unchanged.
func TestAddClusterRefusesBadClusters(t *testing.T) {
	w := NewWorld(Settings{Solver: ShapeMatch})
	hs := lattice(t, w, 2, 0.5, 0)
	ground := mustAdd(t, w, BodyDef{Name: "floor", Type: Static, Shape: boxShape(5, 0.1, 5), Position: Vec3{0, -1, 0}})
	gone := mustAdd(t, w, BodyDef{Shape: boxShape(0.1, 0.1, 0.1), Position: Vec3{5, 5, 5}})
	if err := w.RemoveBody(gone); err != nil {
		t.Fatal(err)
	}
	for _, c := range []struct {
		def  ClusterDef
		want string
	}{
		{ClusterDef{Bodies: hs[:1], Stiffness: 0.5}, "at least 2 bodies"},
		{ClusterDef{Bodies: []Handle{hs[0], gone}, Stiffness: 0.5}, "stale"},
		{ClusterDef{Bodies: []Handle{hs[0], hs[0]}, Stiffness: 0.5}, "listed twice"},
		{ClusterDef{Bodies: []Handle{hs[0], ground}, Stiffness: 0.5}, "must be dynamic"},
		{ClusterDef{Bodies: hs, Stiffness: 1.5}, "stiffness must be in [0, 1], got 1.5"},
		{ClusterDef{Bodies: hs, Stiffness: float32(math.NaN())}, "stiffness must be in [0, 1]"},
		{ClusterDef{Bodies: hs, Stiffness: 0.5, Damping: -0.1}, "damping must be in [0, 1]"},
		{ClusterDef{Bodies: hs, Stiffness: 0.5, Linear: 2}, "linear must be in [0, 1]"},
	} {
		_, err := w.AddCluster(c.def)
		if err == nil || !strings.Contains(err.Error(), c.want) {
			t.Errorf("%+v: error %v, want one saying %q", c.def, err, c.want)
		}
		if c.want == "stale" && !errors.Is(err, ErrStale) {
			t.Errorf("a removed member's error %v does not wrap ErrStale", err)
		}
	}
	if w.NumClusters() != 0 {
		t.Errorf("%d clusters after only refusals", w.NumClusters())
	}
}

// Removing a member drops it from its cluster; a cluster left with one member goes; a saved state
// keeps the clusters, and restoring it brings them back.
func TestClusterMembersGoWithTheirBodies(t *testing.T) {
	w := NewWorld(Settings{Solver: ShapeMatch})
	hs := lattice(t, w, 2, 0.5, 0)
	if _, err := w.AddCluster(ClusterDef{Bodies: hs[:3], Stiffness: 0.5}); err != nil {
		t.Fatal(err)
	}
	if _, err := w.AddCluster(ClusterDef{Bodies: hs[3:5], Stiffness: 0.2}); err != nil {
		t.Fatal(err)
	}
	var s State
	if err := w.SaveState(&s); err != nil {
		t.Fatal(err)
	}
	if err := w.RemoveBody(hs[1]); err != nil {
		t.Fatal(err)
	}
	if err := w.RemoveBody(hs[4]); err != nil {
		t.Fatal(err)
	}
	if w.NumClusters() != 1 || len(w.Cluster(0).Bodies) != 2 || w.Cluster(0).Bodies[1] != hs[2] {
		t.Fatalf("after removals: %d clusters, first %+v", w.NumClusters(), w.Cluster(0))
	}
	data, err := s.MarshalBinary()
	if err != nil {
		t.Fatal(err)
	}
	var s2 State
	if err := s2.UnmarshalBinary(data); err != nil {
		t.Fatal(err)
	}
	if err := w.RestoreState(&s2); err != nil {
		t.Fatal(err)
	}
	if w.NumClusters() != 2 || len(w.Cluster(0).Bodies) != 3 || w.Cluster(1).Stiffness != 0.2 {
		t.Fatalf("restored: %d clusters, %+v, %+v", w.NumClusters(), w.Cluster(0), w.Cluster(1))
	}
}

// The pull is a spring of angular frequency sqrt(alpha)/dt, so stiffness is relative to the step: a
// two-layer cluster of cubes (0.5 m apart) resting on the ground, stiffness 1, hangs its upper layer
// g dt^2 / alpha below its goal, and since the goals ride on the centre of mass (halfway between the
// layers) the layers end 2 g dt^2 / alpha closer than at rest: 5.4 mm at 1/60 s, 16 times that (8.7 cm)
// at 1/15 s. Within 5%, after 3 s with damping 0.5.
func TestShapeMatchSagIsGDtSquaredOverStiffness(t *testing.T) {
	for _, dt := range []float32{1.0 / 60, 1.0 / 15} {
		w := gravityWorld(Settings{Solver: ShapeMatch, Dt: dt})
		groundPlane(t, w, 0.6, 0)
		hs := lattice(t, w, 2, 0.5, 0.1)
		if _, err := w.AddCluster(ClusterDef{Bodies: hs, Stiffness: 1, Damping: 0.5}); err != nil {
			t.Fatal(err)
		}
		run(t, w, int(3/dt))
		var lo, hi float64
		for k, h := range hs {
			i, _ := w.Index(h)
			y := float64(w.Bodies.Position[i][1])
			if k%4 < 2 { // lattice order x, y, z: y is the middle index
				lo += y / 4
			} else {
				hi += y / 4
			}
		}
		want := 2 * 9.81 * float64(dt) * float64(dt)
		if got := 0.5 - (hi - lo); math.Abs(got-want) > 0.05*want {
			t.Errorf("dt %.4f: the layers are %.5f m closer than at rest, want 2 g dt^2 = %.5f m", dt, got, want)
		} else {
			t.Logf("dt %.4f: sag %.5f m (2 g dt^2 / alpha = %.5f m)", dt, got, want)
		}
	}
}

// With sleeping on, a cluster resting on the ground falls asleep as one island (its members touch
// nothing but the ground, so only the cluster ties them), and waking one member wakes them all.
func TestShapeMatchClusterSleepsAndWakesAsOne(t *testing.T) {
	w := gravityWorld(Settings{Solver: ShapeMatch, Sleep: true})
	groundPlane(t, w, 0.6, 0)
	hs := lattice(t, w, 2, 0.5, 0.1)
	if _, err := w.AddCluster(ClusterDef{Bodies: hs, Stiffness: 0.5, Damping: 0.5}); err != nil {
		t.Fatal(err)
	}
	run(t, w, 180)
	label := uint32(0)
	for _, h := range hs {
		i, _ := w.Index(h)
		if !w.Bodies.Asleep[i] {
			t.Fatalf("%s awake after 3 s at rest (speed %.4f)", w.Bodies.Name[i], w.Bodies.Velocity[i].Len())
		}
		if label == 0 {
			label = w.Bodies.island[i]
		} else if w.Bodies.island[i] != label {
			t.Errorf("%s in island %d, the cluster's first member in %d", w.Bodies.Name[i], w.Bodies.island[i], label)
		}
	}
	w.Wake(hs[7])
	for _, h := range hs {
		if i, _ := w.Index(h); w.Bodies.Asleep[i] {
			t.Errorf("%s still asleep after its cluster-mate was woken", w.Bodies.Name[i])
		}
	}
}
