package ui

import (
	"encoding/json"
	"errors"
	"fmt"
	"io/fs"
	"os"
	"path/filepath"
	"slices"

	"tumble/render/instance"
)

// Prefs are what the window remembers between runs: the panel's width and sections, the view's
// switches, and the Spawn and Shoot forms. Simulation settings belong to scenes (save one to keep
// them) and are not kept here.
type Prefs struct {
	Version     int             `json:"version"`
	PanelWidth  float32         `json:"panel_width,omitempty"`
	PanelHidden bool            `json:"panel_hidden,omitempty"`
	Open        map[string]bool `json:"open,omitempty"`
	Debug       []string        `json:"debug"`
	Color       string          `json:"color,omitempty"`
	Wireframe   bool            `json:"wireframe,omitempty"`
	NoShadows   bool            `json:"no_shadows,omitempty"`
	NoHover     bool            `json:"no_hover,omitempty"`
	Spawn       *spawnForm      `json:"spawn,omitempty"`
	Shot        *shotForm       `json:"shot,omitempty"`
}

const prefsVersion = 1

// PrefsPath is where the sandbox keeps its preferences: tumble/prefs.json in the user's config
// directory ($XDG_CONFIG_HOME or ~/.config on Linux), never the working directory; "" if there is none.
func PrefsPath() string {
	dir, err := os.UserConfigDir()
	if err != nil {
		return ""
	}
	return filepath.Join(dir, "tumble", "prefs.json")
}

// prefs are the app's current preferences.
func (a *App) prefs() Prefs {
	p := &a.panel
	pr := Prefs{Version: prefsVersion, PanelWidth: a.panelW, PanelHidden: a.PanelHidden, Open: map[string]bool{},
		Color: instance.ColorNames[a.ColorMode], Wireframe: a.Wireframe, NoShadows: a.NoShadows, NoHover: !a.HoverHighlight,
		Spawn: &p.spawn, Shot: &p.shot, Debug: []string{}}
	for k, v := range p.openNow {
		pr.Open[k] = v
	}
	d := &a.Debug
	for i, on := range []bool{d.Contacts, d.Normals, d.Friction, d.Joints, d.AABBs, d.COM, d.Velocities, d.BVH, d.Labels} {
		if on {
			pr.Debug = append(pr.Debug, DebugNames[i])
		}
	}
	return pr
}

// loadPrefs applies the preferences file, if there is one; a damaged file is reported in one line and
// otherwise ignored (the defaults apply, and the end of the run writes a good one).
func (a *App) loadPrefs() {
	if a.opt.Prefs == "" {
		return
	}
	data, err := os.ReadFile(a.opt.Prefs)
	if errors.Is(err, fs.ErrNotExist) {
		return
	}
	var pr Prefs
	if err == nil {
		err = json.Unmarshal(data, &pr)
	}
	if err == nil && pr.Version != prefsVersion {
		err = fmt.Errorf("version %d, want %d", pr.Version, prefsVersion)
	}
	if err != nil {
		a.notef("preferences %s not used: %v", a.opt.Prefs, err)
		return
	}
	a.panel.init()
	p := &a.panel
	if pr.PanelWidth >= minPanelWidth {
		a.panelW = pr.PanelWidth
	}
	a.PanelHidden, a.Wireframe, a.NoShadows, a.HoverHighlight = pr.PanelHidden, pr.Wireframe, pr.NoShadows, !pr.NoHover
	for k, v := range pr.Open {
		if slices.Contains(SectionNames, k) {
			p.open[k] = v
		}
	}
	if k := slices.Index(instance.ColorNames, pr.Color); k >= 0 {
		a.ColorMode = instance.ColorBy(k)
	}
	d := &a.Debug
	for i, f := range []*bool{&d.Contacts, &d.Normals, &d.Friction, &d.Joints, &d.AABBs, &d.COM, &d.Velocities, &d.BVH, &d.Labels} {
		*f = slices.Contains(pr.Debug, DebugNames[i])
	}
	if s := pr.Spawn; s != nil && s.Kind >= 0 && int(s.Kind) < len(spawnKinds) && s.Pattern >= 0 && s.Count > 0 {
		p.spawn = *s
	}
	if s := pr.Shot; s != nil && s.Kind >= 0 && int(s.Kind) < len(shapeKinds) && s.Speed > 0 {
		p.shot = *s
	}
}

// savePrefs writes the preferences file (creating its directory); a failure is one line.
func (a *App) savePrefs() {
	if a.opt.Prefs == "" {
		return
	}
	data, err := json.MarshalIndent(a.prefs(), "", "  ")
	if err == nil {
		err = os.MkdirAll(filepath.Dir(a.opt.Prefs), 0o755)
	}
	if err == nil {
		tmp := a.opt.Prefs + ".tmp"
		if err = os.WriteFile(tmp, append(data, '\n'), 0o644); err == nil {
			err = os.Rename(tmp, a.opt.Prefs)
		}
	}
	if err != nil {
		a.notef("preferences not saved: %v", err)
	}
}
