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
	Bytes                     int64 // bytes one pass (tb_solver_jacobi + tb_solver_apply) must move
	// RecordBytes is what the pass's reads and writes of the manifold records (of Bytes, the manifold
	// and point part: FieldBytes) move in whole 32-byte sectors, from the records' layout
	// (jacobiSectorBytes).
	RecordBytes, FieldBytes int64
	CopyGBps                float64       // measured device-to-device copy bandwidth, GB/s (read + write)
	Pass                    time.Duration // measured time of one pass
	FloorTime               time.Duration // Bytes at CopyGBps
}

// Ratio is the pass's time over its floor (1: at the floor).
func (f Floor) Ratio() float64 { return float64(f.Pass) / float64(f.FloorTime) }

func (f Floor) String() string {
	return fmt.Sprintf("jacobi pass: %d bodies, %d manifolds, %d points: %.2f MB must move; copy bandwidth %.0f GB/s "+
		"gives a floor of %.4f ms; measured %.4f ms per pass: %.2fx the floor; its manifold records' %.2f MB of "+
		"fields move as %.2f MB of 32-byte sectors (%.2fx)",
		f.Bodies, f.Manifolds, f.Points, float64(f.Bytes)/1e6, f.CopyGBps, ms(f.FloorTime), ms(f.Pass), f.Ratio(),
		float64(f.FieldBytes)/1e6, float64(f.RecordBytes)/1e6, float64(f.RecordBytes)/float64(max(f.FieldBytes, 1)))
}

// A field of a record: its offset and size in bytes.
type fieldSpan struct{ off, size uintptr }

// The manifold fields tb_solver_jacobi reads (solver.cu): the header's, and each of its points'. The
// point's written fields are jacobiPointWrites.
var (
	jacobiHeader = []fieldSpan{
		{unsafe.Offsetof(tbSolverManifold{}.A), 4}, {unsafe.Offsetof(tbSolverManifold{}.B), 4},
		{unsafe.Offsetof(tbSolverManifold{}.Count), 4}, {unsafe.Offsetof(tbSolverManifold{}.Normal), 12},
		{unsafe.Offsetof(tbSolverManifold{}.T1), 12}, {unsafe.Offsetof(tbSolverManifold{}.T2), 12},
		{unsafe.Offsetof(tbSolverManifold{}.Friction), 4}, {unsafe.Offsetof(tbSolverManifold{}.BiasRate), 4},
		{unsafe.Offsetof(tbSolverManifold{}.MassScale), 4}, {unsafe.Offsetof(tbSolverManifold{}.Leak), 4},
		{unsafe.Offsetof(tbSolverManifold{}.Drift), 12}, {unsafe.Offsetof(tbSolverManifold{}.Rolling), 4},
		{unsafe.Offsetof(tbSolverManifold{}.Spinning), 4},
	}
	jacobiPointReads = []fieldSpan{
		{unsafe.Offsetof(tbSolverPoint{}.NA), 12}, {unsafe.Offsetof(tbSolverPoint{}.NB), 12},
		{unsafe.Offsetof(tbSolverPoint{}.T1A), 12}, {unsafe.Offsetof(tbSolverPoint{}.T1B), 12},
		{unsafe.Offsetof(tbSolverPoint{}.T2A), 12}, {unsafe.Offsetof(tbSolverPoint{}.T2B), 12},
		{unsafe.Offsetof(tbSolverPoint{}.Sep), 4}, {unsafe.Offsetof(tbSolverPoint{}.NormalMass), 4},
		{unsafe.Offsetof(tbSolverPoint{}.SoftMass), 4}, {unsafe.Offsetof(tbSolverPoint{}.Leak), 4},
		{unsafe.Offsetof(tbSolverPoint{}.TangentMass1), 4}, {unsafe.Offsetof(tbSolverPoint{}.TangentMass2), 4},
		{unsafe.Offsetof(tbSolverPoint{}.NormalImpulse), 4}, {unsafe.Offsetof(tbSolverPoint{}.TangentImpulse1), 4},
		{unsafe.Offsetof(tbSolverPoint{}.TangentImpulse2), 4}, {unsafe.Offsetof(tbSolverPoint{}.MaxNormal), 4},
	}
	jacobiPointWrites = []fieldSpan{
		{unsafe.Offsetof(tbSolverPoint{}.NormalImpulse), 4}, {unsafe.Offsetof(tbSolverPoint{}.TangentImpulse1), 4},
		{unsafe.Offsetof(tbSolverPoint{}.TangentImpulse2), 4}, {unsafe.Offsetof(tbSolverPoint{}.MaxNormal), 4},
		{unsafe.Offsetof(tbSolverPoint{}.Sliding), 4},
	}
)

// sectorSize is the unit a GPU's memory moves: an L2 sector.
const sectorSize = 32

// jacobiSectorBytes returns what one Jacobi pass moves through the manifold records, in whole 32-byte
// sectors, for manifolds with the given point counts stored one after another from a 256-byte aligned
// buffer (as cuMemAlloc aligns): every sector holding a field the pass reads, once, plus every sector
// holding a field it writes, once more (written back). fields is the bytes of those fields, what the
// floor counts for the records.
func jacobiSectorBytes(points []int32) (moved, fields int64) {
	size := unsafe.Sizeof(tbSolverManifold{})
	ptsAt := unsafe.Offsetof(tbSolverManifold{}.Pts)
	ptSize := unsafe.Sizeof(tbSolverPoint{})
	var read, written map[uintptr]bool
	touch := func(set map[uintptr]bool, at uintptr, f fieldSpan) {
		for s := (at + f.off) / sectorSize; s <= (at+f.off+f.size-1)/sectorSize; s++ {
			set[s] = true
		}
	}
	for k, c := range points {
		read, written = map[uintptr]bool{}, map[uintptr]bool{}
		base := uintptr(k) * size
		for _, f := range jacobiHeader {
			touch(read, base, f)
			fields += int64(f.size)
		}
		for i := range min(int(c), 4) {
			at := base + ptsAt + uintptr(i)*ptSize
			for _, f := range jacobiPointReads {
				touch(read, at, f)
				fields += int64(f.size)
			}
			for _, f := range jacobiPointWrites {
				touch(written, at, f)
				fields += int64(f.size)
			}
		}
		// A sector shared with the next manifold is counted by both: at most one per manifold.
		moved += int64(len(read)+len(written)) * sectorSize
	}
	return moved, fields
}

func ms(d time.Duration) float64 { return float64(d) / float64(time.Millisecond) }

// Bytes a Jacobi pass (tb_solver_jacobi, then tb_solver_gather) must move, counted from the kernels'
// fields (solver.cu), each once, so a lower bound:
//   - per manifold: read bodies, count, normal, two tangents, friction, soft coefficients, drift
//     (76 B); write its impulse record, three float4s (48 B); the gather reads at least the linear
//     impulse and one angular one (32 B) through at least one adjacency entry (4 B): a manifold has
//     a dynamic body, a static one has no list;
//   - per point: read the six angular Jacobian terms (72 B), the effective masses and leak (20 B),
//     the separation (4 B), the three accumulated impulses and the largest normal impulse (16 B);
//     write the impulses, the largest normal impulse and the sliding flag (20 B);
//   - per body: read velocity and spin once (32 B) and the inverse mass (4 B, of a 16 B float4:
//     counted 16); the gather reads its list's start (4 B) and the world inverse inertia (48 B) and
//     writes velocity and spin (32 B).
//
// Before the gather (stop 20), impulses were summed per body with float atomics into two float4
// accumulators, which the floor counted instead (224 B per body, 76 per manifold).
const (
	floorManifoldBytes = 76 + 48 + 32 + 4
	floorPointBytes    = 72 + 20 + 4 + 16 + 20
	floorBodyBytes     = 32 + 16 + 4 + 48 + 32
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
	counts := make([]int32, nm)
	for i := range list {
		counts[i] = list[i].Count
	}
	f.RecordBytes, f.FieldBytes = jacobiSectorBytes(counts)

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
