package ui

import (
	"math"

	"tumble/sim"
)

// jointUnit is how the panel shows and takes a joint's coordinate, in the creation form and in the
// inspector alike: a hinge's in degrees (its limits in deg, its motor's speed in deg/s, the motor's
// cap a torque in N m), a piston's in metres (m, m/s, a force in N). scale turns the simulation's
// unit (radians, metres) into the one shown.
type jointUnit struct {
	scale float32
	// limits and motor are the fields' labels, with their units.
	limits, motor string
}

func unitOf(t sim.JointType) jointUnit {
	if t == sim.Piston {
		return jointUnit{scale: 1, limits: "lo, hi, m", motor: "speed m/s, max N"}
	}
	return jointUnit{scale: 180 / math.Pi, limits: "lo, hi, deg", motor: "speed deg/s, max N m"}
}
