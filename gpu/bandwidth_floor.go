package gpu

import (
	"fmt"
	"time"
	"unsafe"
)

// Floor compares one Jacobi iteration's time with its bandwidth floor: the bytes the pass must move
// (read and write, each once) divided by the device's measured copy bandwidth.
type Floor struct {
	Bodies, Manifolds, Points int
	Bytes                     int64         // bytes one pass (tb_solver_jacobi + tb_solver_apply) must move
	CopyGBps                  float64       // measured device-to-device copy bandwidth, GB/s (read + write)
	Pass                      time.Duration // measured time of one pass
	FloorTime                 time.Duration // Bytes at CopyGBps
}

// Ratio is the pass's time over its floor (1: at the floor).
func (f Floor) Ratio() float64 { return float64(f.Pass) / float64(f.FloorTime) }

func (f Floor) String() string {
	return fmt.Sprintf("jacobi pass: %d bodies, %d manifolds, %d points: %.2f MB must move; copy bandwidth %.0f GB/s "+
		"gives a floor of %.4f ms; measured %.4f ms per pass: %.2fx the floor",
		f.Bodies, f.Manifolds, f.Points, float64(f.Bytes)/1e6, f.CopyGBps, ms(f.FloorTime), ms(f.Pass), f.Ratio())
}

func ms(d time.Duration) float64 { return float64(d) / float64(time.Millisecond) }

// Bytes a Jacobi pass must move, counted from the kernels' fields (solver.cu):
//   - per manifold, read once: bodies, count, normal, two tangents, friction, soft coefficients,
//     drift (76 B);
//   - per point: read the six angular Jacobian terms (72 B), the effective masses and leak (20 B),
//     the separation (4 B), the three accumulated impulses and the largest normal impulse (16 B);
//     write the impulses, the largest normal impulse and the sliding flag (20 B);
//   - per body: read velocity and spin once (32 B) and the inverse mass (4 B, of a 16 B float4:
//     counted 16), accumulate into two float4 accumulators (read and write 64 B), and in the apply
//     kernel read the world inverse inertia (48 B) and write velocity, spin and the zeroed
//     accumulators (64 B).
const (
	floorManifoldBytes = 76
	floorPointBytes    = 72 + 20 + 4 + 16 + 20
	floorBodyBytes     = 32 + 16 + 64 + 48 + 64
)

// MeasureFloor times reps Jacobi passes over the last step's manifolds and the device's copy
// bandwidth, for benchmarks. The passes change the velocities and impulses: call it after the steps
// being measured, not between them.
func (b *Backend) MeasureFloor(reps int) (Floor, error) {
	d := b.dev
	contacts, count, capacity := b.narrow.contactList()
	var m uint32
	if err := d.download(unsafe.Pointer(&m), count, 4); err != nil {
		return Floor{}, err
	}
	nm := min(int(m), capacity)
	list := make([]tbContact, nm)
	if err := downloadSlice(d, list, contacts); err != nil {
		return Floor{}, err
	}
	f := Floor{Bodies: b.bodies.n, Manifolds: nm}
	for i := range list {
		f.Points += int(list[i].Count)
	}
	f.Bytes = int64(nm)*floorManifoldBytes + int64(f.Points)*floorPointBytes + int64(f.Bodies)*floorBodyBytes

	// Copy bandwidth: a 256 MiB device-to-device copy moves 512 MiB.
	const copyBytes = 256 << 20
	var src, dst buffer
	defer release(d, &src)
	defer release(d, &dst)
	if err := grow(d, &src, copyBytes); err != nil {
		return f, err
	}
	if err := grow(d, &dst, copyBytes); err != nil {
		return f, err
	}
	best := time.Duration(1 << 62)
	for range 5 {
		if err := d.sync(); err != nil {
			return f, err
		}
		t := time.Now()
		if err := d.copy(dst.p, src.p, copyBytes); err != nil {
			return f, err
		}
		if err := d.sync(); err != nil {
			return f, err
		}
		best = min(best, time.Since(t))
	}
	f.CopyGBps = 2 * copyBytes / best.Seconds() / 1e9

	if err := d.sync(); err != nil {
		return f, err
	}
	t := time.Now()
	for range reps {
		if err := b.solver.pass(d, &b.bodies, count, capacity, &b.consts, true); err != nil {
			return f, err
		}
	}
	if err := d.sync(); err != nil {
		return f, err
	}
	f.Pass = time.Since(t) / time.Duration(reps)
	f.FloorTime = time.Duration(float64(f.Bytes) / (f.CopyGBps * 1e9) * 1e9)
	return f, nil
}
