package scenes

import (
	"bytes"
	"os"
	"path/filepath"
	"testing"
)

// box3dPeerScenes is where the Box3D peer keeps the scene files its gen_scenes.py writes from Box3D's
// benchmark code; the presets must export to exactly those bytes.
const box3dPeerScenes = "../../shared/tools/peers/box3d/scenes"

// The Box3D presets export byte for byte as the peer's files, which gen_scenes.py wrote by repeating
// Box3D's float32 arithmetic: so every position, size, density and joint anchor is Box3D's, and
// Tumble's bench and Box3D's runner time the same bodies.
func TestBox3DPresetsExportAsThePeerFiles(t *testing.T) {
	if _, err := os.Stat(box3dPeerScenes); err != nil {
		t.Skipf("no peer scenes at %s: %v", box3dPeerScenes, err)
	}
	for _, name := range []string{"large_pyramid", "many_pyramids", "joint_grid"} {
		want, err := os.ReadFile(filepath.Join(box3dPeerScenes, name+".json"))
		if err != nil {
			t.Fatal(err)
		}
		s, ok := Preset(name)
		if !ok {
			t.Fatalf("no preset %s", name)
		}
		var got bytes.Buffer
		if err := s.Save(&got); err != nil {
			t.Fatal(err)
		}
		if !bytes.Equal(got.Bytes(), want) {
			g, w := bytes.Split(got.Bytes(), []byte("\n")), bytes.Split(want, []byte("\n"))
			for i := 0; i < len(g) && i < len(w); i++ {
				if !bytes.Equal(g[i], w[i]) {
					t.Errorf("%s: line %d differs:\n got  %s\n want %s", name, i+1, g[i], w[i])
					break
				}
			}
			t.Errorf("%s: export is %d bytes in %d lines, the peer's file %d in %d", name, got.Len(), len(g), len(want), len(w))
		}
	}
}
