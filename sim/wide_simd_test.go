//go:build goexperiment.simd && amd64

package sim

import (
	"simd/archsimd"
	"testing"
)

// gatherState puts row idx[l]'s six velocity components in lane l (an empty lane's zeros), and
// scatterState writes exactly the rows of the lanes in its mask back, whole.
func TestStateRowsRoundTrip(t *testing.T) {
	const rows = 20
	st := make([]stateRow, rows+1) // and the zero row
	for i := range rows {
		for c := range 6 {
			st[i][c] = float32(i*10 + c + 1)
		}
	}
	idx := [wideLanes]int32{3, 7, 1, 12, 19, 0, 5, 9}
	for _, n := range []int{wideLanes, 5} {
		v, w := gatherState(st, &idx, n)
		var got [6]lanes
		for c, x := range []f8{v.x, v.y, v.z, w.x, w.y, w.z} {
			x.Store(&got[c])
		}
		checkGathered(t, idx[:], n, func(c, l int) float32 { return got[c][l] })
		out := make([]stateRow, rows+1)
		const mask = 0b10110101
		scatterState(out, &idx, mask, v, w)
		checkScattered(t, st, out, idx[:], n, mask)
	}
}

// gatherState16 and scatterState16 do the same over sixteen lanes (where the CPU has AVX-512).
func TestStateRowsRoundTrip16(t *testing.T) {
	if !archsimd.X86.AVX512() {
		t.Skip("no AVX-512 on this CPU")
	}
	const rows = 40
	st := make([]stateRow, rows+1)
	for i := range rows {
		for c := range 6 {
			st[i][c] = float32(i*10 + c + 1)
		}
	}
	idx := [batchLanes]int32{3, 7, 1, 12, 19, 0, 5, 9, 33, 21, 14, 38, 2, 27, 30, 16}
	for _, n := range []int{batchLanes, 11} {
		v, w := gatherState16(st, &idx, n)
		var got [6]blanes
		for c, x := range []f16{v.x, v.y, v.z, w.x, w.y, w.z} {
			x.Store(&got[c])
		}
		checkGathered(t, idx[:], n, func(c, l int) float32 { return got[c][l] })
		out := make([]stateRow, rows+1)
		const mask = 0b1101001110110101
		scatterState16(out, &idx, mask, v, w)
		checkScattered(t, st, out, idx[:], n, mask)
	}
}

// checkGathered checks that lane l's component c of a gather of the rows idx is row idx[l]'s (row i
// holds i*10 + c + 1), and 0 in the lanes at or past n.
func checkGathered(t *testing.T, idx []int32, n int, got func(c, l int) float32) {
	t.Helper()
	for l, i := range idx {
		for c := range 6 {
			want := float32(int(i)*10 + c + 1)
			if l >= n {
				want = 0
			}
			if g := got(c, l); g != want {
				t.Fatalf("%d lanes: lane %d component %d: %v, want %v", n, l, c, g, want)
			}
		}
	}
}

// checkScattered checks that a scatter of the lanes gathered from st wrote back the rows of the lanes
// below n whose mask bit is set, and left the others zero.
func checkScattered(t *testing.T, st, out []stateRow, idx []int32, n int, mask uint) {
	t.Helper()
	for l, i := range idx {
		want := stateRow{}
		if mask&(1<<l) != 0 && l < n {
			want = st[i]
		}
		if out[i] != want {
			t.Fatalf("%d lanes: row %d (lane %d): %v, want %v", n, i, l, out[i], want)
		}
	}
}
