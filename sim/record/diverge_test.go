package record_test

import (
	"testing"

	"tumble/sim"
	"tumble/sim/record"
)

// A recording re-simulated as it was drifts nowhere; re-simulated under another solver (PGS's stack
// under Jacobi, whose mass-split passes converge more slowly: the stack sags further), its bits
// differ from the first step on, and its positions leave the recording's: the first mark is the
// first step past the tolerance, each further mark the first past ten times the one before, and
// with a zero tolerance the mark is the first step whose bits differ.
func TestDriftMarksWhereAReSimulationLeavesTheRecording(t *testing.T) {
	w := preset(t, "stack", 1)
	r := record.New(0, 0)
	recordRun(t, w, r, 120)
	same, err := r.Drift(record.DriftOptions{Workers: 1, Tolerance: 1e-4})
	if err != nil {
		t.Fatal(err)
	}
	if same.BitsFrom != -1 || len(same.Marks) != 0 || len(same.Err) != 120 {
		t.Fatalf("the run as recorded: bits differ from %d, marks %v, %d steps compared", same.BitsFrom, same.Marks, len(same.Err))
	}
	for k, e := range same.Err {
		if e != 0 {
			t.Fatalf("the run as recorded: step %d off by %g m", same.From+1+k, e)
		}
	}
	const tol = 1e-4
	jacobi := func(s *sim.Settings) { s.Solver = sim.Jacobi }
	d, err := r.Drift(record.DriftOptions{Workers: 1, Tolerance: tol, Settings: jacobi})
	if err != nil {
		t.Fatal(err)
	}
	t.Logf("under jacobi: bits differ from step %d; marks %v; the last step off by %.3g m", d.BitsFrom, d.Marks, d.Err[len(d.Err)-1])
	if d.BitsFrom != d.From+1 {
		t.Errorf("under jacobi the bits differ from step %d, want the first, %d", d.BitsFrom, d.From+1)
	}
	if len(d.Marks) < 2 {
		t.Fatalf("under jacobi: marks %v; want the first past %g m and a later one past ten times it", d.Marks, tol)
	}
	limit, prev := float32(tol), d.From
	off := func(step int) float32 { return d.Err[step-d.From-1] }
	for _, m := range d.Marks {
		for s := prev + 1; s < m; s++ {
			if off(s) > limit {
				t.Fatalf("step %d is off by %g m, past %g, before the mark at %d", s, off(s), limit, m)
			}
		}
		if off(m) <= limit {
			t.Fatalf("mark at step %d: off by %g m, not past %g", m, off(m), limit)
		}
		for off(m) > limit {
			limit *= 10
		}
		prev = m
	}
	zero, err := r.Drift(record.DriftOptions{Workers: 1, Settings: jacobi})
	if err != nil {
		t.Fatal(err)
	}
	if len(zero.Marks) != 1 || zero.Marks[0] != zero.BitsFrom {
		t.Errorf("zero tolerance: marks %v, bits differ from %d", zero.Marks, zero.BitsFrom)
	}
}
