package ui

import (
	"errors"
	"fmt"
	"os"
	"unsafe"

	"github.com/go-gl/gl/v4.6-core/gl"
	"github.com/go-gl/mathgl/mgl32"

	"tumble/render"
	"tumble/render/instance"
	"tumble/sim"
	"tumble/sim/geom"
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
	a.closeInterop()
	gb, ok := b.(glWriterBackend)
	if a.opt.glWriters != nil {
		gb, ok = a.opt.glWriters, true
	}
	if !ok {
		a.interopNote = "" // the CPU backend: the bodies are on the host already
		return
	}
	x, err := gb.NewGLWriter(a.glVendor, a.glRenderer)
	if err != nil {
		a.interopNote = err.Error()
	} else {
		a.interop = x
		a.interopNote = "interop on: CUDA writes the instances into the GL buffer"
		// The same decision for the line buffer; if it fails anyway, the debug layers take the
		// host copy, and the note says so.
		if lx, err := gb.NewGLWriter(a.glVendor, a.glRenderer); err == nil {
			a.lineInterop = lx
			a.interopNote = "interop on: CUDA writes the instances and the debug lines into the GL buffers"
		}
	}
	a.notef("%s", a.interopNote)
}

// glWriterBackend is a backend that can write the frame's instances and debug lines straight into the
// renderer's GL buffers (the CUDA backend, through CUDA-GL interop).
type glWriterBackend interface {
	// NewGLWriter returns a writer for one GL buffer, or the one line saying why it cannot.
	NewGLWriter(glVendor, glRenderer string) (instance.GLWriter, error)
}

// closeInterop drops both interop shims.
func (a *App) closeInterop() {
	for _, x := range []*instance.GLWriter{&a.interop, &a.lineInterop} {
		if *x != nil {
			(*x).Close()
			*x = nil
		}
	}
}

// deviceLayers says whether a debug layer that the device writes (GLWriter.WriteDebugLines) is on.
func (a *App) deviceLayers() bool {
	d := a.Debug
	return d.Contacts || d.Normals || d.AABBs || d.BVH
}

// needsHostCopy says whether this frame reads body state on the host anyway (the debug layers the
// kernels do not draw: friction, centres of mass, velocities, and joints that join many bodies), so
// the CPU-copy path draws it. Contacts, normals, AABBs and the BVH come from the device when the line
// buffer is shared too; the joints of a few bodies from those bodies read alone; the contacts table's
// hovered point from its row; the camera following the selection from the selected body's read.
func (a *App) needsHostCopy(w *sim.World) bool {
	d := a.Debug
	// The joints layer is on by default: it costs the host copy only where its joints join more
	// bodies than the interop path reads back one by one.
	joints := a.drawsJoints(w) && !fewJointBodies(w)
	return a.spawnMark != nil || d.Friction || joints || d.COM || d.Velocities ||
		(a.deviceLayers() && a.lineInterop == nil)
}

// drawsJoints says whether the frame draws the joints: the joints layer is on, or the Joints
// section's form has its body A picked (the joints are shown while one is made), and there are some.
func (a *App) drawsJoints(w *sim.World) bool {
	return (a.Debug.Joints || a.panel.joint.a != (sim.Handle{})) && w.NumJoints() > 0
}

// maxJointReads is the most bodies the interop path reads back one by one, each once a frame, to
// draw the joints. Each is a copy the host waits for; past this many one read of every body (the
// host-copy path) costs less.
const maxJointReads = 64

// fewJointBodies reports whether w's joints join at most maxJointReads bodies.
func fewJointBodies(w *sim.World) bool {
	seen := map[sim.Handle]bool{}
	for k := range w.NumJoints() {
		d := w.Joint(k)
		for _, h := range [2]sim.Handle{d.BodyA, d.BodyB} {
			if h != (sim.Handle{}) {
				seen[h] = true
			}
		}
		if len(seen) > maxJointReads {
			return false
		}
	}
	return true
}

// devicePoses gives the joints layer on the interop path the poses of the bodies it draws, each read
// back alone (World.BodyState: one body across the bus) once a frame, the selected body's as the
// Inspect section read it. A failed read gives the host copy's pose.
func (a *App) devicePoses(w *sim.World) poses {
	type pose struct {
		x sim.Vec3
		q sim.Quat
	}
	read := map[int]pose{}
	return func(i int) (sim.Vec3, sim.Quat) {
		if p, ok := read[i]; ok {
			return p.x, p.q
		}
		h := w.HandleAt(i)
		p := pose{w.Bodies.Position[i], w.Bodies.Rotation[i]}
		if r := a.selRead; r.ok && r.h == h {
			p = pose{r.st.Position, r.st.Rotation}
		} else if s, err := w.BodyState(h); err == nil {
			p = pose{s.Position, s.Rotation}
		}
		read[i] = p
		return p.x, p.q
	}
}

// fillDevice has the backend write the frame's instances into the renderer's device buffer through
// interop. On an error interop is dropped for good, with one line, and the frame falls back to the
// CPU-copy path.
func (a *App) fillDevice(w *sim.World) {
	counts := instance.CountKinds(w)
	buf, capacity := a.rend.DeviceBuffer(counts[0] + counts[1] + counts[2])
	st := instance.DefaultStyle(a.ColorMode)
	st.Sleeping, st.Highlight = w.Bodies.Asleep, a.highlights(w)
	if a.ColorMode == instance.ColorByContact {
		st.Contacts = make([]int32, w.Bodies.Len())
		for _, c := range w.Contacts(nil) { // read back from the backend, on request
			st.Contacts[c.BodyA]++
			st.Contacts[c.BodyB]++
		}
	}
	in, err := a.interop.WriteInstances(w, buf, capacity, &st)
	if errors.Is(err, instance.ErrNotOnDevice) {
		return // the device catches up at the next step; this frame comes from the host copy
	}
	if err != nil {
		a.interopFailed(err)
		return
	}
	f := &a.frame
	f.DeviceLines = 0
	if a.deviceLayers() {
		if f.DeviceLines, err = a.deviceLines(w); err != nil {
			a.interopFailed(err)
			return
		}
	}
	f.Device, f.Counts = true, [instance.NumKinds]int(in.Counts)
	render.FillPlanes(f, w)
	f.Lo, f.Hi = mgl32.Vec3{-5, 0, -5}, mgl32.Vec3{5, 2, 5}
	if in.Any {
		f.Lo, f.Hi = in.Lo, in.Hi
	}
	// The panel's own lines go after the device's lines, over the bodies, as the host path draws them:
	// the joints (their few bodies read from the device), the selection's outline (its one body) and
	// the probe's query, hits and normals (which read nothing the device holds); the lines from the
	// joints' bodies' centres to their anchors go among the bodies.
	f.Lines, f.Overlay = f.Lines[:0], f.Overlay[:0]
	joints := a.drawsJoints(w)
	var pose poses
	if joints {
		pose = a.devicePoses(w)
		for k := range w.NumJoints() {
			jointLines(f, w, pose, k, a.showsLimits(w, k))
		}
	}
	if i, ok := w.Index(a.Selected); ok {
		st, read := a.selRead.st, a.selRead.ok && a.selRead.h == a.Selected
		if !read {
			var err error
			st, err = w.BodyState(a.Selected)
			read = err == nil
		}
		if read && a.Follow {
			a.Cam.Target = st.Position // the camera follows the selection, as on the host path
		}
		if read && w.Bodies.Shape[i].Kind != geom.Plane {
			selectionOutline(f, w.Bodies.Shape[i], st.Position, st.Rotation)
		}
	}
	a.probeLines(f)
	f.Overlay, f.Lines = append(f.Overlay, f.Lines...), f.Lines[:0]
	a.hoverMark(f) // among the bodies, as on the host path
	if joints {
		for k := range w.NumJoints() {
			jointLinks(f, w, pose, k)
		}
	}
}

// selectedRead is the selected body's state as the Inspect section read it back this frame, which
// the interop path's outline takes rather than reading the body a second time.
type selectedRead struct {
	h  sim.Handle
	st sim.BodyState
	ok bool
}

// interopFailed drops interop for good after an error, with one line; the frame falls back to the
// CPU-copy path.
func (a *App) interopFailed(err error) {
	a.closeInterop()
	a.frame.DeviceLines = 0
	a.interopNote = fmt.Sprintf("interop off after an error: %v; drawing from a host copy of the bodies", err)
	a.notef("%s", a.interopNote)
}

// deviceLines has the backend's kernels write the enabled debug layers (contacts and normals, AABBs,
// the BVH level) into the renderer's device line buffer through interop, growing it once when it is
// too small, and returns the number of vertices.
func (a *App) deviceLines(w *sim.World) (int, error) {
	d := a.Debug
	st := instance.DebugStyle{Contacts: d.Contacts, Normals: d.Normals, AABBs: d.AABBs, BVH: d.BVH, BVHDepth: d.BVHDepth,
		Contact: colContact, Normal: colNormal, AABB: colAABB, BVHColor: colBVH}
	buf, capacity := a.rend.DeviceLineBuffer(0)
	lines, err := a.lineInterop.WriteDebugLines(w, buf, capacity, &st)
	if errors.Is(err, instance.ErrLineCapacity) {
		buf, capacity = a.rend.DeviceLineBuffer(lines.Total()) // reallocated: registered again
		lines, err = a.lineInterop.WriteDebugLines(w, buf, capacity, &st)
	}
	return lines.Total(), err
}

// copyToDevice puts the CPU fill's instances into the renderer's device buffer, grouped as the
// transforms kernel writes them, and its debug lines into the device line buffer, as the debug kernels
// write them, and draws the frame from there (Options.deviceCopy, for tests).
func (a *App) copyToDevice() {
	f := &a.frame
	var all []instance.Instance
	for k := range f.Shapes {
		f.Counts[k] = len(f.Shapes[k])
		all = append(all, f.Shapes[k]...)
	}
	buf, _ := a.rend.DeviceBuffer(len(all))
	if len(all) > 0 {
		gl.BindBuffer(gl.ARRAY_BUFFER, buf)
		gl.BufferSubData(gl.ARRAY_BUFFER, 0, len(all)*int(unsafe.Sizeof(instance.Instance{})), gl.Ptr(all))
	}
	if n := len(f.Lines); n > 0 {
		lb, _ := a.rend.DeviceLineBuffer(n)
		gl.BindBuffer(gl.ARRAY_BUFFER, lb)
		gl.BufferSubData(gl.ARRAY_BUFFER, 0, n*int(unsafe.Sizeof(instance.LineVertex{})), gl.Ptr(f.Lines))
		f.DeviceLines, f.Lines = n, f.Lines[:0]
	}
	f.Device = true
}
