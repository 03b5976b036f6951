package command

import (
	"math"

	"tumble/sim"
)

// Hit is a ray cast's result (sim.Hit): the body, its dense index, the distance along the (unit) ray,
// the world point and the surface normal there.
type Hit = sim.Hit

// Pick casts a ray from origin along dir against every body's shape and returns the nearest hit.
// Planes are hit too (picking the ground selects it; spawning at the cursor uses its point).
func (s *Session) Pick(origin, dir sim.Vec3) (Hit, bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	s.sync()
	return RayCast(s.world, origin, dir)
}

// RayCast is Pick on a world the caller already holds (under View): the world's scene query, with no
// limit on the distance and every body seen.
func RayCast(w *sim.World, origin, dir sim.Vec3) (Hit, bool) {
	return w.RayCast(origin, dir, float32(math.Inf(1)), sim.QueryFilter{})
}

// PickBody casts a ray from origin along dir against body h alone (sim.World.RayCastBody): with a
// backend it reads that one body back, not every body, and builds no tree, so its cost does not grow
// with the world.
func (s *Session) PickBody(h sim.Handle, origin, dir sim.Vec3) (Hit, bool) {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.world.RayCastBody(h, origin, dir, float32(math.Inf(1)))
}
