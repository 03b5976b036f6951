package sim

import (
	"slices"
	"testing"
	"tumble/sim/internal/vecmath"
)

// sleepyStack is a column of n unit boxes on the ground, with sleeping on under the given solver.
func sleepyStack(t *testing.T, solver SolverKind, n int) (*World, []Handle) {
	t.Helper()
	w := gravityWorld(Settings{Solver: solver, Sleep: true})
	groundPlane(t, w, 0.6, 0)
	var hs []Handle
	for k := 0; k < n; k++ {
		hs = append(hs, mustAdd(t, w, BodyDef{Shape: boxShape(0.5, 0.5, 0.5), Position: Vec3{0, 0.5 + float32(k), 0}, Friction: 0.6}))
	}
	return w, hs
}

func asleep(w *World, h Handle) bool {
	i, _ := w.Index(h)
	return w.Bodies.Asleep[i]
}

// A stack at rest falls asleep as one island after SleepTime (0.5 s), then costs no contacts at all, and its
// bodies hold still exactly.
func TestRestingStackFallsAsleepAndHolds(t *testing.T) {
	for _, solver := range []SolverKind{PGS, Jacobi, XPBD} {
		w, hs := sleepyStack(t, solver, 5)
		run(t, w, 20) // a third of a second at rest: not yet asleep
		if w.Stats.Asleep != 0 {
			t.Fatalf("%v: %d bodies asleep after 1/3 s", solver, w.Stats.Asleep)
		}
		run(t, w, 100)
		if w.Stats.Asleep != len(hs) {
			t.Fatalf("%v: %d of %d bodies asleep after 2 s", solver, w.Stats.Asleep, len(hs))
		}
		i, _ := w.Index(hs[4])
		top := w.Bodies.Position[i]
		run(t, w, 60)
		if w.Stats.Manifolds != 0 || w.Stats.Pairs != 0 {
			t.Errorf("%v: a sleeping stack made %d pairs and %d manifolds", solver, w.Stats.Pairs, w.Stats.Manifolds)
		}
		if got := w.Bodies.Position[i]; got != top || w.Bodies.Velocity[i] != (Vec3{}) {
			t.Errorf("%v: the sleeping top box moved from %v to %v (v %v)", solver, top, got, w.Bodies.Velocity[i])
		}
		if d := top[1] - 4.5; d < -0.05 || d > 0.01 {
			t.Errorf("%v: top box asleep at y %.3f, want about 4.5", solver, top[1])
		}
	}
}

// A sleeping stack's contacts are still listed by Contacts (the window draws them), as they were when
// it fell asleep: one per corner of each face on face, each holding its share of the weight above it;
// the stack woken, they are the solver's again, and they go with a removed body.
func TestASleepingStacksContactsAreStillListed(t *testing.T) {
	w, hs := sleepyStack(t, PGS, 5)
	run(t, w, 50)
	awake := w.Contacts(nil)
	run(t, w, 70)
	if w.Stats.Asleep != 5 || w.Stats.Manifolds != 0 {
		t.Fatalf("%d asleep, %d manifolds", w.Stats.Asleep, w.Stats.Manifolds)
	}
	slept := w.Contacts(nil)
	if len(slept) != 20 || len(awake) != 20 {
		t.Fatalf("%d contacts asleep, %d awake; want 4 per face on face, 20", len(slept), len(awake))
	}
	// The contacts under a box hold the weight above it, per sub-step: m g h (boxes of 1000 kg).
	mg := 1000 * 9.81 / 60 / float32(w.Resolved().Substeps)
	sum := map[int]float32{}
	for _, c := range slept {
		if c.Normal[1] < 0.99 && c.Normal[1] > -0.99 {
			t.Errorf("contact between %d and %d: normal %v, want vertical", c.BodyA, c.BodyB, c.Normal)
		}
		top := max(c.BodyA, c.BodyB)
		sum[top] += c.NormalImpulse
	}
	for k, h := range hs {
		i, _ := w.Index(h)
		want := float32(len(hs)-k) * mg
		if got := sum[i]; vecmath.Abs(got-want) > 0.05*want {
			t.Errorf("box %d: impulse under it %.1f N s, want %.1f (the weight of %d boxes for a sub-step)", k, got, want, len(hs)-k)
		}
	}
	w.Wake(hs[2])
	if n := len(w.Contacts(nil)); n != 0 {
		t.Errorf("woken, not yet stepped: %d contacts listed (the solver has none yet)", n)
	}
	run(t, w, 1)
	if n := len(w.Contacts(nil)); n != 20 {
		t.Errorf("woken and stepped: %d contacts, want 20", n)
	}
	run(t, w, 120)
	if w.Stats.Asleep != 5 || len(w.Contacts(nil)) != 20 || len(w.pipe.sleep.slept) != 20 {
		t.Fatalf("asleep again: %d asleep, %d contacts, %d kept (the first sleep's must be gone)",
			w.Stats.Asleep, len(w.Contacts(nil)), len(w.pipe.sleep.slept))
	}
	if err := w.RemoveBody(hs[4]); err != nil {
		t.Fatal(err)
	}
	for _, c := range w.Contacts(nil) {
		if c.BodyA >= w.Bodies.Len() || c.BodyB >= w.Bodies.Len() {
			t.Fatalf("a contact with body %d or %d of %d after a removal", c.BodyA, c.BodyB, w.Bodies.Len())
		}
	}
}

// Sleeping is off unless asked for: the same stack stays awake.
func TestNothingSleepsByDefault(t *testing.T) {
	w := gravityWorld(Settings{})
	groundPlane(t, w, 0.6, 0)
	h := mustAdd(t, w, BodyDef{Shape: boxShape(0.5, 0.5, 0.5), Position: Vec3{0, 0.5, 0}})
	run(t, w, 180)
	if w.Stats.Asleep != 0 || asleep(w, h) {
		t.Error("a body fell asleep with sleeping off")
	}
}

// A ball thrown at a sleeping stack wakes the whole stack (one island) in the step it touches, and the
// hit box moves.
func TestBallWakesASleepingStack(t *testing.T) {
	w, hs := sleepyStack(t, PGS, 5)
	run(t, w, 120)
	if w.Stats.Asleep != 5 {
		t.Fatalf("%d asleep", w.Stats.Asleep)
	}
	mustAdd(t, w, BodyDef{Shape: sphereShape(0.3), Position: Vec3{-3, 4.5, 0}, Velocity: Vec3{12, 0, 0}, Mass: 3000})
	i, _ := w.Index(hs[4])
	x0 := w.Bodies.Position[i][0]
	for s := 0; s < 30 && asleep(w, hs[4]); s++ {
		run(t, w, 1)
	}
	for k, h := range hs {
		if asleep(w, h) {
			t.Fatalf("box %d still asleep in the step the ball touched the stack", k)
		}
	}
	run(t, w, 30)
	if asleep(w, hs[4]) || w.Bodies.Position[i][0]-x0 < 0.2 {
		t.Errorf("the hit box: asleep %v, moved %.3f m", asleep(w, hs[4]), w.Bodies.Position[i][0]-x0)
	}
	// The woken boxes had their contacts in the step they woke: nothing sank into the ground.
	j, _ := w.Index(hs[0])
	if y := w.Bodies.Position[j][1]; y < 0.49 {
		t.Errorf("the bottom box sank to y %.4f after the stack woke", y)
	}
}

// Removing the bottom box of a sleeping stack wakes the box on it, and the rest follow: the stack
// falls by a box height.
func TestRemovingTheSupportWakesTheStack(t *testing.T) {
	w, hs := sleepyStack(t, PGS, 4)
	run(t, w, 120)
	if w.Stats.Asleep != 4 {
		t.Fatalf("%d asleep", w.Stats.Asleep)
	}
	if err := w.RemoveBody(hs[0]); err != nil {
		t.Fatal(err)
	}
	for k, h := range hs[1:] {
		if asleep(w, h) {
			t.Fatalf("box %d still asleep after its island's support was removed", k+1)
		}
	}
	run(t, w, 90)
	i, _ := w.Index(hs[3])
	if y := w.Bodies.Position[i][1]; y > 2.6 {
		t.Errorf("top box at y %.3f after its support went: want it down to about 2.5", y)
	}
}

// Editing a sleeping body (SetVelocity) wakes it; a moving kinematic body wakes what it reaches.
func TestEditsAndKinematicBodiesWakeSleepers(t *testing.T) {
	w, hs := sleepyStack(t, PGS, 1)
	pusher := mustAdd(t, w, BodyDef{Type: Kinematic, Shape: boxShape(0.5, 0.5, 0.5), Position: Vec3{-3, 0.5, 0}})
	run(t, w, 120)
	if !asleep(w, hs[0]) {
		t.Fatal("the box did not fall asleep")
	}
	if err := w.SetVelocity(hs[0], Vec3{0, 0, 1}, Vec3{}); err != nil || asleep(w, hs[0]) {
		t.Fatal("SetVelocity left the box asleep")
	}
	run(t, w, 120)
	if !asleep(w, hs[0]) {
		t.Fatal("the box did not fall asleep again")
	}
	i, _ := w.Index(hs[0])
	x0 := w.Bodies.Position[i][0]
	w.SetVelocity(pusher, Vec3{2, 0, 0}, Vec3{}) // reaches the box after about a second
	run(t, w, 120)
	if asleep(w, hs[0]) || w.Bodies.Position[i][0]-x0 < 0.5 {
		t.Errorf("pushed box: asleep %v, moved %.3f m", asleep(w, hs[0]), w.Bodies.Position[i][0]-x0)
	}
}

// A pendulum hanging at rest sleeps, and a joint added to a sleeping body wakes it.
func TestJointedBodiesSleepAndWakeTogether(t *testing.T) {
	w := gravityWorld(Settings{Sleep: true})
	a := mustAdd(t, w, BodyDef{Shape: sphereShape(0.1), Position: Vec3{0, 1, 0}, Mass: 1})
	mustJoint(t, w, JointDef{Type: Ball, BodyA: a, Anchor: Vec3{0, 2, 0}})
	b := mustAdd(t, w, BodyDef{Shape: sphereShape(0.1), Position: Vec3{3, 1, 0}, Mass: 1})
	mustJoint(t, w, JointDef{Type: Ball, BodyA: b, Anchor: Vec3{3, 2, 0}})
	run(t, w, 120)
	if !asleep(w, a) || !asleep(w, b) {
		t.Fatalf("hanging balls asleep: %v %v", asleep(w, a), asleep(w, b))
	}
	mustJoint(t, w, JointDef{Type: Ball, BodyA: a, BodyB: b, Anchor: Vec3{1.5, 1, 0}})
	if asleep(w, a) || asleep(w, b) {
		t.Error("adding a joint left its bodies asleep")
	}
}

// Boxes rained into a bin settle and most of them fall asleep, inside the bin; the result is the same
// on one worker and on three.
func TestRainedBoxesFallAsleepInTheBin(t *testing.T) {
	skipLong(t)
	var runs [2]*World
	for k, workers := range []int{1, 3} {
		w := binWorld(t, Settings{Sleep: true, Workers: workers}, 300, 3, 4)
		defer w.Close()
		run(t, w, 8*60)
		runs[k] = w
	}
	w := runs[0]
	if frac := float64(w.Stats.Asleep) / 300; frac < 0.9 {
		t.Errorf("%d of 300 boxes asleep after 8 s", w.Stats.Asleep)
	}
	b := &w.Bodies
	for i := range b.Position {
		if b.Type[i] == Dynamic && (b.Position[i][1] < 0 || vecmath.Abs(b.Position[i][0]) > 3 || vecmath.Abs(b.Position[i][2]) > 3) {
			t.Errorf("box %d at %v, outside the bin", i, b.Position[i])
		}
	}
	o := &runs[1].Bodies
	for i := range b.Position {
		if b.Position[i] != o.Position[i] || b.Asleep[i] != o.Asleep[i] {
			t.Fatalf("body %d differs between 1 and 3 workers: %v %v vs %v %v", i, b.Position[i], b.Asleep[i], o.Position[i], o.Asleep[i])
		}
	}
}

// Removing a body keeps the contacts of the sleeping islands it did not touch listed, with their bodies
// renamed where the last body moved into the removed one's place. RemoveBody dropped them all, so a
// settled stack's contacts vanished from the view and the inspector when a box elsewhere was deleted.
func TestRemovingABodyElsewhereKeepsASleepingStacksContacts(t *testing.T) {
	w, a := sleepyStack(t, PGS, 5)
	var b []Handle
	for k := 0; k < 3; k++ {
		b = append(b, mustAdd(t, w, BodyDef{Shape: boxShape(0.5, 0.5, 0.5), Position: Vec3{10, 0.5 + float32(k), 0}, Friction: 0.6}))
	}
	run(t, w, 120)
	if w.Stats.Asleep != 8 || len(w.Contacts(nil)) != 32 {
		t.Fatalf("%d asleep, %d contacts; want 8 and 32", w.Stats.Asleep, len(w.Contacts(nil)))
	}
	if err := w.RemoveBody(a[4]); err != nil { // the first stack's top: its stack wakes, the last body moves
		t.Fatal(err)
	}
	in := map[int]bool{}
	for _, h := range b {
		i, _ := w.Index(h)
		in[i] = true
	}
	n := 0
	for _, c := range w.Contacts(nil) {
		if !in[c.BodyA] && !in[c.BodyB] {
			t.Errorf("contact of bodies %d and %d listed: neither is in the sleeping stack", c.BodyA, c.BodyB)
		}
		for _, i := range []int{c.BodyA, c.BodyB} {
			if w.Bodies.InvMass[i] != 0 && !in[i] {
				t.Errorf("contact of bodies %d and %d: %d is not in the sleeping stack", c.BodyA, c.BodyB, i)
			}
		}
		if x := c.Position[0]; x < 9 || x > 11 {
			t.Errorf("contact of bodies %d and %d at x %.2f, not under the sleeping stack at x 10", c.BodyA, c.BodyB, x)
		}
		n++
	}
	if n != 12 {
		t.Errorf("%d contacts listed after the removal; the sleeping stack of 3 has 12", n)
	}
}

// A joint of a sleeping island reports the force it held when the island fell asleep, and says it is
// asleep: a 1000 kg box hanging from a hinge holds m g = 9810 N (within 1%) under every solver that
// sleeps it whose force is the impulse over the sub-step (XPBD estimates it from its multipliers,
// within a few percent), asleep as awake, and reads its live force again once woken.
func TestASleepingJointReportsTheForceItHeld(t *testing.T) {
	for _, solver := range []SolverKind{PGS, Jacobi, Rigid} {
		w := gravityWorld(Settings{Solver: solver, Sleep: true})
		box := mustAdd(t, w, BodyDef{Shape: boxShape(0.5, 0.5, 0.5), Position: Vec3{0, 1, 0}, Mass: 1000})
		mustJoint(t, w, JointDef{Type: Hinge, BodyA: box, Anchor: Vec3{0, 2, 0}, Axis: Vec3{0, 0, 1}})
		mg := 1000 * float32(vecmath.Abs(w.Resolved().Gravity[1]))
		run(t, w, 240)
		if !asleep(w, box) {
			t.Fatalf("%v: the hanging box did not fall asleep", solver)
		}
		st := w.JointState(0)
		if !st.Asleep || vecmath.Abs(st.Force-mg) > 0.01*mg {
			t.Errorf("%v: asleep %v, force %.1f N, want asleep and %.1f N within 1%%", solver, st.Asleep, st.Force, mg)
		}
		if err := w.SetVelocity(box, Vec3{}, Vec3{}); err != nil { // an edit wakes it
			t.Fatal(err)
		}
		run(t, w, 1)
		if st := w.JointState(0); st.Asleep || vecmath.Abs(st.Force-mg) > 0.01*mg {
			t.Errorf("%v: woken: asleep %v, force %.1f N, want awake and %.1f N within 1%%", solver, st.Asleep, st.Force, mg)
		}
		w.Close()
	}
}

// ContactsOf lists, for each body, exactly the points of Contacts it takes part in, in Contacts'
// order, while the stack is awake and once it sleeps (its kept contacts); a gone body has none.
func TestContactsOfIsContactsFilteredByBody(t *testing.T) {
	w, hs := sleepyStack(t, PGS, 5)
	check := func(when string) {
		all := w.Contacts(nil)
		total := 0
		for i := range w.Bodies.Len() {
			var want []ContactPoint
			for _, c := range all {
				if c.BodyA == i || c.BodyB == i {
					want = append(want, c)
				}
			}
			got := w.ContactsOf(w.HandleAt(i), nil)
			if !slices.Equal(got, want) {
				t.Errorf("%s, body %d: ContactsOf %v, Contacts filtered %v", when, i, got, want)
			}
			total += len(got)
		}
		if total != 2*len(all) || len(all) != 20 {
			t.Errorf("%s: %d contacts, each listed for its two bodies %d times in all", when, len(all), total)
		}
	}
	run(t, w, 50)
	check("awake")
	run(t, w, 70)
	if w.Stats.Asleep != 5 {
		t.Fatalf("%d asleep", w.Stats.Asleep)
	}
	check("asleep")
	if err := w.RemoveBody(hs[4]); err != nil {
		t.Fatal(err)
	}
	if got := w.ContactsOf(hs[4], nil); len(got) != 0 {
		t.Errorf("a removed body has %d contacts", len(got))
	}
}

// TestLabelsABackendGaveAreNotGivenAgain: a body holding an island label a backend gave (SetSleep, as
// its Pull does) keeps that label its own after a Sync: an island that falls asleep later on the CPU
// gets another, so waking one does not wake the other.
func TestLabelsABackendGaveAreNotGivenAgain(t *testing.T) {
	w, hs := sleepyStack(t, PGS, 1)
	far := mustAdd(t, w, BodyDef{Shape: boxShape(0.5, 0.5, 0.5), Position: Vec3{10, 0.5, 0}, Friction: 0.6})
	i, _ := w.dense(far)
	w.Bodies.SetSleep(i, 1, 1) // the label the CPU would give first
	w.claimLabels()
	j, _ := w.dense(hs[0])
	for k := 0; k < 120 && !w.Bodies.Asleep[j]; k++ {
		if err := w.Step(); err != nil {
			t.Fatal(err)
		}
	}
	if !w.Bodies.Asleep[j] || w.Bodies.IslandLabel(j) == 1 {
		t.Fatalf("the stack's box: asleep %v, label %d (the far box holds 1)", w.Bodies.Asleep[j], w.Bodies.IslandLabel(j))
	}
	if err := w.SetVelocity(hs[0], Vec3{0, 1, 0}, Vec3{}); err != nil {
		t.Fatal(err)
	}
	if !w.Bodies.Asleep[i] {
		t.Error("waking the stack woke the far box")
	}
}
