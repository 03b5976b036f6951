package sim

import "fmt"

// JointType names a joint kind.
type JointType uint8

// The joint types.
const (
	Ball   JointType = iota // 3 translation rows: a shared point
	Hinge                   // ball + 2 rotation rows: rotation about one axis
	Piston                  // 2 translation + 3 rotation rows: slides along one axis
	Fixed                   // 6 rows: welded
)

var jointTypeNames = [...]string{"ball", "hinge", "piston", "fixed"}

// String returns the type's name as used in scene files.
func (t JointType) String() string {
	if int(t) < len(jointTypeNames) {
		return jointTypeNames[t]
	}
	return "unknown"
}

// Motor drives a joint's free coordinate towards a target speed with a bounded force.
type Motor struct {
	Speed    float32 // rad/s (hinge) or m/s (piston)
	MaxForce float32 // N m or N
}

// JointDef describes a joint between two bodies, or between a body and the static world.
type JointDef struct {
	Type      JointType
	BodyA     Handle
	BodyB     Handle // the zero Handle means the static world
	Anchor    Vec3   // world point at creation where the bodies are joined
	Axis      Vec3   // world direction at creation: hinge axis, piston slide axis
	HasLimits bool
	Limits    [2]float32 // [lo, hi] relative to the creation pose: radians (hinge) or metres (piston)
	HasMotor  bool
	Motor     Motor
}

// AddJoint records a joint and returns its index. Joints are stored and kept with the scene, but the
// solver does not enforce them yet: that is the joints issue's work. NumJoints lets front ends say so.
func (w *World) AddJoint(d JointDef) (int, error) {
	if _, ok := w.dense(d.BodyA); !ok {
		return 0, fmt.Errorf("joint %d: bodyA: no such body", len(w.joints))
	}
	if d.BodyB != (Handle{}) {
		if _, ok := w.dense(d.BodyB); !ok {
			return 0, fmt.Errorf("joint %d: bodyB: no such body", len(w.joints))
		}
	}
	w.joints = append(w.joints, d)
	return len(w.joints) - 1, nil
}

// NumJoints returns the number of joints recorded.
func (w *World) NumJoints() int { return len(w.joints) }
