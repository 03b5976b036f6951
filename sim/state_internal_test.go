package sim

import "testing"

// TestStateArraysArePlainData: a State stores these types as memory images, which is only complete
// (and safe to read back) while they hold no pointers, slices, strings or maps.
func TestStateArraysArePlainData(t *testing.T) {
	for _, ty := range podTypes {
		if !plainData(ty) {
			t.Errorf("%s holds references: a State's memory image of it would not be its content", ty)
		}
	}
}
