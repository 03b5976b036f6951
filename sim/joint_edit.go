package sim

import "fmt"

// RemoveJoint removes joint i between steps; the joints after it move down one index.
func (w *World) RemoveJoint(i int) error {
	if i < 0 || i >= len(w.joints) {
		return fmt.Errorf("joint %d: no such joint (%d joints)", i, len(w.joints))
	}
	w.Wake(w.joints[i].def.BodyA)
	w.Wake(w.joints[i].def.BodyB)
	w.edits.Joints = true
	w.joints = append(w.joints[:i], w.joints[i+1:]...)
	clear(w.joints[len(w.joints):cap(w.joints)][:1])
	return nil
}
