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
	// limits, motor and servo are the fields' labels, with their units (within labelWidth): the
	// servo's are its target, its largest speed and its force. friction is the joint friction's: a
	// torque, or a piston's force.
	limits, motor, servo, friction string
	// targetMax bounds a servo's target as shown: a hinge's angle is within +-180 degrees.
	targetMax float32
}

func unitOf(t sim.JointType) jointUnit {
	if t == sim.Piston {
		return jointUnit{scale: 1, limits: "lo, hi, m", motor: "speed m/s, max N", servo: "to m, m/s, N",
			friction: "friction, N", targetMax: 100}
	}
	return jointUnit{scale: 180 / math.Pi, limits: "lo, hi, deg", motor: "speed deg/s, max N m",
		servo: "to deg, deg/s, N m", friction: "friction, N m", targetMax: 180}
}

// servoOf returns the servo the shown values v (target, largest speed, force, in u's units) set, and
// whether they make one: a force >= 0 and a target within targetMax.
func (u jointUnit) servoOf(v [3]float32) (sim.Motor, bool) {
	m := sim.Motor{Mode: sim.MotorPosition, Target: v[0] / u.scale, Speed: v[1] / u.scale, MaxForce: v[2]}
	if u.targetMax == 180 { // a hinge: its angle's range in radians, whatever the rounding of deg
		m.Target = min(max(m.Target, -math.Pi), math.Pi)
	}
	return m, v[2] >= 0 && v[0] >= -u.targetMax && v[0] <= u.targetMax
}

// frictionTip is the tooltip of a joint's friction field.
const frictionTip = "the largest torque (a piston: force) with which the joint resists turning or sliding: it holds a load below it; 0: none. A hinge's or piston's motor, when on, takes its place"

// servoTip is the tooltip of a servo's field.
const servoTip = "the target angle or travel, the largest speed (0: none) and the largest torque or force"
