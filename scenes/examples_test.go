package scenes

import (
	"path/filepath"
	"testing"
)

// TestEveryExampleFileValidates loads each file in examples/, builds its world and round-trips it.
func TestEveryExampleFileValidates(t *testing.T) {
	files, err := filepath.Glob("../examples/*.json")
	if err != nil || len(files) == 0 {
		t.Fatalf("no example files: %v", err)
	}
	for _, f := range files {
		s, err := Load(f)
		if err != nil {
			t.Errorf("%v", err)
			continue
		}
		if _, err := s.World(Options{}); err != nil {
			t.Errorf("%s: %v", f, err)
		}
		roundTrip(t, s)
	}
}
