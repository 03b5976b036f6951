package command

import (
	"cmp"
	"slices"

	"tumble/sim"
)

// ContactRow is one line of the Inspect panel's contacts table.
type ContactRow struct {
	A, B      string // body names
	IA, IB    int    // dense indices
	Point     sim.Vec3
	Normal    sim.Vec3
	Depth     float32 // penetration, m (minus the separation: > 0 when overlapping)
	NormalImp float32 // normal impulse, N s
	Friction  float32 // friction impulse magnitude, N s
	FricVec   sim.Vec3
}

// SortKey is a contacts table column to sort by.
type SortKey int

// The sortable columns.
const (
	ByPair SortKey = iota
	ByDepth
	ByNormalImpulse
	ByFrictionImpulse
)

// ContactTable returns the last step's contacts as table rows, keeping only those that touch the body
// named filter (all when filter is empty), sorted by key (descending for the numeric columns).
func ContactTable(w *sim.World, filter string, key SortKey) []ContactRow {
	b := &w.Bodies
	var rows []ContactRow
	for _, c := range w.Contacts(nil) {
		a, bb := b.Name[c.BodyA], b.Name[c.BodyB]
		if filter != "" && a != filter && bb != filter {
			continue
		}
		rows = append(rows, ContactRow{A: a, B: bb, IA: c.BodyA, IB: c.BodyB, Point: c.Position,
			Normal: c.Normal, Depth: -c.Separation, NormalImp: c.NormalImpulse,
			Friction: c.FrictionImpulse.Len(), FricVec: c.FrictionImpulse})
	}
	slices.SortStableFunc(rows, func(x, y ContactRow) int {
		switch key {
		case ByDepth:
			return cmp.Compare(y.Depth, x.Depth)
		case ByNormalImpulse:
			return cmp.Compare(y.NormalImp, x.NormalImp)
		case ByFrictionImpulse:
			return cmp.Compare(y.Friction, x.Friction)
		}
		return cmp.Or(cmp.Compare(x.A, y.A), cmp.Compare(x.B, y.B))
	})
	return rows
}
