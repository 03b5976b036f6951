package urdf

import (
	"tumble/assets/robots"
	"tumble/scenes"
)

// The robots written for Tumble (assets/robots) are presets: the window's scene list and `sandbox
// -scene arm` build them from the embedded files, so they load from any working folder.
func init() {
	for _, p := range []struct {
		info scenes.Info
		file string
		data []byte
	}{
		{scenes.Info{Name: "arm", Group: "joints", Bodies: 6, Joints: 5,
			Description: "A URDF arm bolted down, held out level by 4 servos: turret, shoulder, elbow and wrist"}, "assets/robots/arm.urdf", robots.Arm},
		{scenes.Info{Name: "walker", Group: "joints", Bodies: 10, Joints: 8,
			Description: "A URDF four-legged walker standing on 8 servos: a 3 m/s sideways push rolls it over"}, "assets/robots/walker.urdf", robots.Walker},
	} {
		scenes.Register(p.info, func() *scenes.Scene {
			s, err := robotPreset(p.file, p.data)
			if err != nil {
				panic("urdf: the embedded " + p.file + ": " + err.Error()) // the files are tested: TestRobotPresets
			}
			s.Name = p.info.Name
			return s
		})
	}
}

// robotPreset maps an embedded robot to its scene.
func robotPreset(file string, data []byte) (*scenes.Scene, error) {
	r, err := Parse(file, data)
	if err != nil {
		return nil, err
	}
	s, _, err := r.Scene()
	return s, err
}
