package ui

import (
	"errors"
	"fmt"
	"os"
	"unsafe"

	"github.com/go-gl/gl/v4.6-core/gl"
	"github.com/go-gl/mathgl/mgl32"

	"tumble/gpu"
	"tumble/render"
	"tumble/sim"
)

// notef prints one line to the app's log (Options.Log, else standard error).
func (a *App) notef(format string, args ...any) {
	w := a.opt.Log
	if w == nil {
		w = os.Stderr
	}
	fmt.Fprintf(w, "sandbox: "+format+"\n", args...)
}

// updateInterop decides, whenever the world's backend changes (at the start and after a switch in the
// panel), where the frame's instances come from: with the CUDA backend on a GPU that drives this GL
// context, straight from the device through interop; otherwise from a host copy of the bodies (the
// CPU fill after World.Sync). A refusal is one line in the log and in the panel. Called on the GL
// thread under the session's lock.
func (a *App) updateInterop(w *sim.World) {
	b := w.Backend()
	if a.interopDecided && b == a.interopFor {
		return
	}
	a.interopDecided, a.interopFor = true, b
	if a.interop != nil {
		a.interop.Close()
		a.interop = nil
	}
	gb, ok := b.(*gpu.Backend)
	if !ok {
		a.interopNote = "" // the CPU backend: the bodies are on the host already
		return
	}
	x, err := gb.NewInterop(a.glVendor, a.glRenderer)
	if err != nil {
		a.interopNote = err.Error()
	} else {
		a.interop = x
		a.interopNote = "interop on: CUDA writes the instances into the GL buffer"
	}
	a.notef("%s", a.interopNote)
}

// needsHostCopy says whether this frame reads body state on the host anyway (debug layers, following
// the selection, the contacts table's hover, the stats' energies are not on the device path yet), so
// the CPU-copy path draws it.
func (a *App) needsHostCopy() bool {
	d := a.Debug
	return a.Follow || a.hoverRow >= 0 || d.Contacts || d.Normals || d.Friction || d.Joints || d.AABBs ||
		d.COM || d.Velocities || d.BVH
}

// fillDevice has the backend write the frame's instances into the renderer's device buffer through
// interop. On an error interop is dropped for good, with one line, and the frame falls back to the
// CPU-copy path.
func (a *App) fillDevice(w *sim.World) {
	gb := w.Backend().(*gpu.Backend)
	counts := gpu.CountKinds(w)
	buf, capacity := a.rend.DeviceBuffer(counts[0] + counts[1] + counts[2])
	st := gpu.InstanceStyle{Mode: int(a.ColorMode), Static: render.ColorStatic, Dynamic: render.ColorDynamic,
		Kinematic: render.ColorKinematic, Awake: render.ColorAwake, Asleep: render.ColorAsleep,
		Sleeping: w.Bodies.Asleep, Highlight: a.highlights(w)}
	if a.ColorMode == render.ColorByContact {
		st.Contacts = make([]int32, w.Bodies.Len())
		for _, c := range w.Contacts(nil) { // read back from the backend, on request
			st.Contacts[c.BodyA]++
			st.Contacts[c.BodyB]++
		}
	}
	in, err := a.interop.WriteInstances(gb, w, buf, capacity, &st)
	if errors.Is(err, gpu.ErrNotOnDevice) {
		return // the device catches up at the next step; this frame comes from the host copy
	}
	if err != nil {
		a.interop.Close()
		a.interop = nil
		a.interopNote = fmt.Sprintf("interop off after an error: %v; drawing from a host copy of the bodies", err)
		a.notef("%s", a.interopNote)
		return
	}
	f := &a.frame
	f.Device, f.Counts = true, [render.NumKinds]int(in.Counts)
	render.FillPlanes(f, w)
	f.Lo, f.Hi = mgl32.Vec3{-5, 0, -5}, mgl32.Vec3{5, 2, 5}
	if in.Any {
		f.Lo, f.Hi = in.Lo, in.Hi
	}
	f.Lines = f.Lines[:0]
}

// copyToDevice puts the CPU fill's instances into the renderer's device buffer, grouped as the
// transforms kernel writes them, and draws the frame from there (Options.deviceCopy, for tests).
func (a *App) copyToDevice() {
	f := &a.frame
	var all []render.Instance
	for k := range f.Shapes {
		f.Counts[k] = len(f.Shapes[k])
		all = append(all, f.Shapes[k]...)
	}
	buf, _ := a.rend.DeviceBuffer(len(all))
	if len(all) > 0 {
		gl.BindBuffer(gl.ARRAY_BUFFER, buf)
		gl.BufferSubData(gl.ARRAY_BUFFER, 0, len(all)*int(unsafe.Sizeof(render.Instance{})), gl.Ptr(all))
	}
	f.Device = true
}
