package gpu

import (
	"math"
	"slices"
	"testing"

	"tumble/sim"
)

// TestEmulatedContactsOfReadsOneBodysPoints: World.ContactsOf on the emulated backend gives, for every
// body, exactly the points the whole read (Contacts) gives for it, in its order, and for a dynamic
// body reads back only its own rows: its list and its manifolds' points (at most 4 x 52 bytes and a
// 4-byte list entry per manifold, and 16 bytes to find the list), not every point. The static ground,
// which has no list, is filtered from the whole read. On the pyramid after 5 steps (Jacobi's passes
// and Gauss-Seidel's), and on the stack asleep after 150 steps with sleeping on (whose points are the
// ones kept when it fell asleep, read back for a sleeping body alone too).
func TestEmulatedContactsOfReadsOneBodysPoints(t *testing.T) {
	for _, c := range []struct {
		name   string
		world  func(testing.TB) *sim.World
		steps  int
		asleep bool
	}{{"pyramid", func(t testing.TB) *sim.World { return newWorld(t, "pyramid") }, 5, false},
		{"pyramid pgs", func(t testing.TB) *sim.World {
			w := newWorld(t, "pyramid")
			s := w.Settings()
			s.Solver = sim.PGS
			w.SetSettings(s)
			return w
		}, 5, false},
		{"stack asleep", preset("stack"), 150, true}} {
		w := c.world(t)
		b := NewEmulated()
		must(t, w.SetBackend(b))
		for range c.steps {
			must(t, w.Step())
		}
		if asleep := w.Stats.Asleep > 0; asleep != c.asleep {
			t.Fatalf("%s: %d bodies asleep", c.name, w.Stats.Asleep)
		}
		read := func(f func()) int64 {
			before := b.DeviceCounts().DownloadBytes
			f()
			return b.DeviceCounts().DownloadBytes - before
		}
		var all []sim.ContactPoint
		whole := read(func() { all = w.Contacts(nil) })
		if len(all) == 0 {
			t.Fatalf("%s: no contacts", c.name)
		}
		most := int64(0)
		for i := range w.Bodies.Len() {
			var want []sim.ContactPoint
			manifolds := map[[2]int]bool{}
			for _, p := range all {
				if p.BodyA == i || p.BodyB == i {
					want = append(want, p)
					manifolds[[2]int{p.BodyA, p.BodyB}] = true
				}
			}
			var got []sim.ContactPoint
			bytes := read(func() { got = w.ContactsOf(w.HandleAt(i), nil) })
			if !slices.Equal(got, want) {
				t.Fatalf("%s: %s: ContactsOf gave %d points, the whole read %d for it:\n%+v\nwant\n%+v", c.name, w.Bodies.Name[i], len(got), len(want), got, want)
			}
			if w.Bodies.Type[i] != sim.Dynamic {
				continue
			}
			// A pair of bodies makes one manifold here (no compounds).
			if bound := int64(16 + len(manifolds)*(4+4*contactOutBytes)); bytes > bound {
				t.Errorf("%s: %s: %d bytes read back for %d points in %d manifolds; want at most %d", c.name, w.Bodies.Name[i], bytes, len(got), len(manifolds), bound)
			}
			most = max(most, bytes)
		}
		t.Logf("%s: the whole read: %d bytes (%d points); one dynamic body's: at most %d bytes", c.name, whole, len(all), most)
		must(t, w.SetBackend(nil))
		w.Close()
	}
}

// TestEmulatedJointStateReadsTheJointsBodies: World.JointState on the emulated backend after steps
// reads the joint's two bodies back alone (BodyState), not the world, and gives what it gives after a
// Sync of every body, bit for bit: on the swinging chain, and on hangingWorld's two boxes asleep on
// their joints (whether a joint sleeps comes from its bodies' read too).
func TestEmulatedJointStateReadsTheJointsBodies(t *testing.T) {
	for _, c := range []struct {
		name   string
		world  func(testing.TB) *sim.World
		steps  int
		asleep bool
	}{{"chain", func(t testing.TB) *sim.World { return newWorld(t, "chain") }, 10, false}, {"hanging", hangingWorld, 45, true}} {
		w := c.world(t)
		b := NewEmulated()
		must(t, w.SetBackend(b))
		if w.NumJoints() < 2 {
			t.Fatalf("%s has %d joints", c.name, w.NumJoints())
		}
		for range c.steps {
			must(t, w.Step())
		}
		var alone []sim.JointState
		for k := range w.NumJoints() {
			pulled := b.Pulled
			alone = append(alone, w.JointState(k))
			want := 2
			if w.Joint(k).BodyB == (sim.Handle{}) {
				want = 1
			}
			if n := b.Pulled - pulled; n != want {
				t.Errorf("%s: joint %d: %d bodies read back; want %d", c.name, k, n, want)
			}
		}
		must(t, w.Sync())
		for k := range w.NumJoints() {
			got, want := alone[k], w.JointState(k)
			same := math.Float32bits(got.Force) == math.Float32bits(want.Force)
			got.Force, want.Force = 0, 0
			if !same || got != want || want.Asleep != c.asleep {
				t.Errorf("%s: joint %d from its two bodies: %+v; after a Sync: %+v (asleep: want %v)", c.name, k, alone[k], w.JointState(k), c.asleep)
			}
		}
		must(t, w.SetBackend(nil))
		w.Close()
	}
}
