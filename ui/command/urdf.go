package command

import (
	"path/filepath"
	"strings"

	"tumble/scenes"
	"tumble/scenes/urdf"
)

// ReadSceneFile reads a scene file, or a URDF robot (a .urdf file) mapped to a scene by scenes/urdf
// with what the mapping leaves out: notes, one "FILE:LINE: element: why" line each (none for a scene
// file).
func ReadSceneFile(path string) (*scenes.Scene, []string, error) {
	if !strings.EqualFold(filepath.Ext(path), ".urdf") {
		sc, err := scenes.Load(path)
		return sc, nil, err
	}
	r, err := urdf.Load(path)
	if err != nil {
		return nil, nil, err
	}
	return r.Scene()
}

// Notes are what the scene file last loaded left out (ReadSceneFile's notes), nil for a scene file
// or preset.
func (s *Session) Notes() []string {
	s.mu.Lock()
	defer s.mu.Unlock()
	return s.notes
}
