package ui

import (
	"bytes"
	"fmt"
	"os"
	"path/filepath"
	"strings"

	"github.com/go-gl/glfw/v3.3/glfw"

	"tumble/scenes"
	"tumble/sim"
	"tumble/ui/command"
)

// Opening scene files from outside the panel: a file dropped on the window opens (a scene, or a replay
// by its magic or its .replay name), and Shift + R reads the scene's file again from disk, so a change
// made to it in an editor shows at once. A file the loader refuses leaves the world as it was, with the
// loader's error (file, JSON path, value) in the status line.

// replayMagic opens every replay file (docs/REPLAY.md).
var replayMagic = []byte("TREPLAY\n")

// isReplay says whether the file is a replay rather than a scene: its first bytes, or, for a file
// that cannot be read, its name (the replay opener then says why).
func isReplay(path string) bool {
	if strings.EqualFold(filepath.Ext(path), ".replay") {
		return true
	}
	f, err := os.Open(path)
	if err != nil {
		return false
	}
	defer f.Close()
	head := make([]byte, len(replayMagic))
	n, _ := f.Read(head)
	return bytes.Equal(head[:n], replayMagic)
}

// openDropped opens a file dropped on the window: a replay in the Time section, anything else as a
// scene file.
func (a *App) openDropped(path string) {
	if isReplay(path) {
		a.openReplay(path)
		return
	}
	a.do("open dropped file", command.LoadFile(path)) // the loader's error names it
	if a.panel.isErr {
		return
	}
	a.panel.message = "opened " + path
	a.showNotes("opened " + path)
	a.Selected, a.panel.joint.selected = sim.Handle{}, -1
	a.resetView()
	a.applySceneView()
}

// reloadScene reads the scene's file again (Shift + R), keeping the camera and, by name, the selected
// body. A preset has no file: the status line says so.
func (a *App) reloadScene() {
	name := a.S.Name()
	p := &a.panel
	if _, preset := scenes.PresetInfo(name); preset {
		p.message, p.isErr = fmt.Sprintf("reload: %s is a preset, not a file (R resets it)", name), true
		return
	}
	selected := ""
	a.S.View(func(w *sim.World) {
		if i, ok := w.Index(a.Selected); ok {
			selected = w.Bodies.Name[i]
		}
	})
	a.do("reload", command.LoadFile(name)) // the loader's error names the file
	if p.isErr {
		return
	}
	a.Selected, p.joint.selected = sim.Handle{}, -1
	var bodies, joints int
	a.S.View(func(w *sim.World) {
		bodies, joints = w.Bodies.Len(), w.NumJoints()
		if h, ok := w.Find(selected); ok && selected != "" {
			a.Selected = h
		}
	})
	p.message = fmt.Sprintf("reloaded %s from disk: %d bodies, %d joints", name, bodies, joints)
	a.applySceneView()
}

// keyWithMods runs the bindings that take a modifier (Shift + R), and the plain keys' otherwise.
func (a *App) keyWithMods(k glfw.Key, mods glfw.ModifierKey) {
	if k == glfw.KeyR && mods&glfw.ModShift != 0 {
		a.reloadScene()
		return
	}
	a.Key(k)
}
