package sim

// RestSpeed is the speed, m/s, above which a body counts as moving in a check of rest (Bodies.Motion):
// 1 cm/s, under what the eye notices in a pile a metre or two across.
const RestSpeed = 0.01

// Motion is how far a world is from rest: the dynamic bodies' largest speeds and how many move.
type Motion struct {
	Dynamic int // dynamic bodies
	// Fastest is the dense index of the dynamic body whose centre of mass moves fastest, at Speed
	// (m/s); -1 when no dynamic body moves at all.
	Fastest int
	Speed   float32
	// Spinning is the dense index of the dynamic body that turns fastest, at AngularSpeed (rad/s); -1
	// when none turns.
	Spinning     int
	AngularSpeed float32
	Moving       int // dynamic bodies whose centre moves faster than the threshold
	Awake        int // dynamic bodies not asleep (all of them without Settings.Sleep)
}

// Motion measures the dynamic bodies' motion: the largest linear and angular speeds, the count of
// bodies whose centre of mass moves faster than threshold (m/s) and the count of bodies awake. A
// sleeping body holds still, so it never counts as moving.
func (b *Bodies) Motion(threshold float32) Motion {
	m := Motion{Fastest: -1, Spinning: -1}
	for i := range b.Position {
		if b.Type[i] != Dynamic {
			continue
		}
		m.Dynamic++
		if !b.Asleep[i] {
			m.Awake++
		}
		v, w := b.Velocity[i].Len(), b.AngularVelocity[i].Len()
		if v > m.Speed {
			m.Speed, m.Fastest = v, i
		}
		if w > m.AngularSpeed {
			m.AngularSpeed, m.Spinning = w, i
		}
		if v > threshold {
			m.Moving++
		}
	}
	return m
}
