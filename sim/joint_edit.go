package sim

import "fmt"

// Joint returns joint i's definition as it was added (anchor and axis in world coordinates at
// creation). It panics if i is out of range, like a slice index.
func (w *World) Joint(i int) JointDef { return w.joints[i] }

// RemoveJoint removes joint i; the joints after it move down one index.
func (w *World) RemoveJoint(i int) error {
	if i < 0 || i >= len(w.joints) {
		return fmt.Errorf("joint %d: no such joint (%d joints)", i, len(w.joints))
	}
	w.joints = append(w.joints[:i], w.joints[i+1:]...)
	return nil
}
