package scenes

import (
	"strings"
	"testing"
)

// Every preset is in the catalog once, in a group, with a one-line description under 100 characters,
// and the catalog's counts are the preset scene's.
func TestCatalogMatchesThePresets(t *testing.T) {
	cat := Catalog()
	if len(cat) != len(Names()) {
		t.Fatalf("catalog has %d presets, Names() %d", len(cat), len(Names()))
	}
	seen := map[string]bool{}
	groupDone := map[string]bool{}
	for i, in := range cat {
		if seen[in.Name] {
			t.Errorf("%s listed twice", in.Name)
		}
		seen[in.Name] = true
		if in.Group == "" {
			t.Errorf("%s: no group", in.Name)
		}
		// Grouped: once a group ends, it does not come back.
		if i > 0 && cat[i-1].Group != in.Group {
			groupDone[cat[i-1].Group] = true
			if groupDone[in.Group] {
				t.Errorf("%s: group %q is split", in.Name, in.Group)
			}
		}
		if d := in.Description; d == "" || len(d) >= 100 || strings.ContainsAny(d, "\n\r") {
			t.Errorf("%s: description must be one line under 100 characters, got %d: %q", in.Name, len(d), d)
		}
		if in.Heavy != (in.Bodies >= HeavyBodies) {
			t.Errorf("%s: heavy %v with %d bodies", in.Name, in.Heavy, in.Bodies)
		}
		if got, ok := PresetInfo(in.Name); !ok || got != in {
			t.Errorf("PresetInfo(%q) = %+v, %v; Catalog has %+v", in.Name, got, ok, in)
		}
		if testing.Short() && in.Bodies > 20000 {
			continue // building pile100k and pile1m takes seconds
		}
		s, ok := Preset(in.Name)
		if !ok {
			t.Errorf("%s: no such preset", in.Name)
			continue
		}
		if len(s.Bodies) != in.Bodies || len(s.Joints) != in.Joints {
			t.Errorf("%s: catalog says %d bodies, %d joints; the scene has %d, %d",
				in.Name, in.Bodies, in.Joints, len(s.Bodies), len(s.Joints))
		}
	}
	if _, ok := PresetInfo("nope"); ok {
		t.Error("PresetInfo(nope) found")
	}
}

// The heavy presets are the 10,000-box piles and up, and Box3D's benchmark scenes (5,000 bodies and up).
func TestCatalogMarksTheBigPilesHeavy(t *testing.T) {
	var heavy []string
	for _, in := range Catalog() {
		if in.Heavy {
			heavy = append(heavy, in.Name)
		}
	}
	if got := strings.Join(heavy, " "); got != "rain pile pile100k pile1m large_pyramid many_pyramids joint_grid" {
		t.Errorf("heavy presets: %s", got)
	}
}
