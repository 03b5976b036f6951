package command

import (
	"cmp"
	"slices"
	"strconv"

	"tumble/sim"
	"tumble/sim/geom"
)

// ContactRow is one line of the Inspect panel's contacts table.
type ContactRow struct {
	A, B   string // body names
	IA, IB int    // dense indices
	// ShapeA and ShapeB are the touching shapes of compound bodies (their index in the compound's
	// shapes), -1 for a body of one shape.
	ShapeA, ShapeB int
	Point          sim.Vec3
	Normal         sim.Vec3
	Depth          float32 // penetration, m (minus the separation: > 0 when overlapping)
	NormalImp      float32 // normal impulse, N s
	Friction       float32 // friction impulse magnitude, N s
	FricVec        sim.Vec3
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
	// Names are unique: a filter names one body or none, and that body's contacts are asked for alone.
	var points []sim.ContactPoint
	if filter == "" {
		points = w.Contacts(nil)
	} else if h, ok := w.Find(filter); ok {
		points = w.ContactsOf(h, nil)
	}
	for _, c := range points {
		a, bb := b.Name[c.BodyA], b.Name[c.BodyB]
		rows = append(rows, ContactRow{A: a, B: bb, IA: c.BodyA, IB: c.BodyB,
			ShapeA: shapeIndex(b, c.BodyA, c.ChildA), ShapeB: shapeIndex(b, c.BodyB, c.ChildB), Point: c.Position,
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

// shapeIndex is child of body i as ContactRow names it: the child's index for a compound, -1 else.
func shapeIndex(b *sim.Bodies, i, child int) int {
	if b.Shape[i].Kind == geom.Compound {
		return child
	}
	return -1
}

// Pair is the row's pair as the table shows it: the bodies' names, each followed by the compound
// shape that touches ("table0.shapes[2]-ground").
func (r *ContactRow) Pair() string {
	name := func(n string, k int) string {
		if k < 0 {
			return n
		}
		return n + ".shapes[" + strconv.Itoa(k) + "]"
	}
	return name(r.A, r.ShapeA) + "-" + name(r.B, r.ShapeB)
}
