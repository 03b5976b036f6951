package sim

import "testing"

// warmFollows picks, in PGS's soft step, the ops whose last pass (or packing, for prepare) may record
// the warm start's sums: prepare and every sub-step's last velocity op but the last sub-step's, and
// none where no warm start follows (NoWarmStart) or where an op between may touch the impulses
// (restitution, the direct joints' projection). That the sums so recorded are the warm start's bit
// for bit, TestWidePassMatchesScalar checks (the scalar pass records none).
func TestWarmSumsFollow(t *testing.T) {
	cases := []struct {
		name string
		s    Settings
		want []Stage // the stages of the ops warmFollows picks, in order
	}{
		{"default", Settings{Substeps: 3}, []Stage{StagePrepare, StageRelax, StageRelax}},
		{"no relax", Settings{Substeps: 3, NoRelax: true}, []Stage{StagePrepare, StageSolve, StageSolve}},
		{"no warm start", Settings{Substeps: 3, NoWarmStart: true}, nil},
		{"direct joints", Settings{Substeps: 3, NoRelax: true, DirectJoints: true}, []Stage{StagePrepare}},
		{"one sub-step", Settings{Substeps: 1}, []Stage{StagePrepare}},
	}
	for _, c := range cases {
		c.s.Solver = PGS
		ops := PlanOf(c.s)
		var got []Stage
		for k, op := range ops {
			switch op.Stage {
			case StagePrepare, StageSolve, StageRelax: // the ops that ask (prepare, runSoftStep, islandRegionBlock)
				if warmFollows(ops, k) {
					got = append(got, op.Stage)
				}
			}
		}
		if len(got) != len(c.want) {
			t.Fatalf("%s: picked %v, want %v (plan %v)", c.name, got, c.want, ops)
		}
		for i := range got {
			if got[i] != c.want[i] {
				t.Fatalf("%s: picked %v, want %v (plan %v)", c.name, got, c.want, ops)
			}
		}
	}
}
