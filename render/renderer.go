// Package render is Tumble's OpenGL 4.5 core renderer. Each frame it draws every shape kind (box,
// sphere, capsule) with one instanced call from an instance buffer filled from the world's state
// slices (Fill), the plane bodies as a gridded ground, a directional light with a shadow map, and
// debug lines. It reads the world and never changes it. All calls must come from the goroutine that
// owns the GL context, locked to its OS thread.
package render

import (
	"tumble/sim/geom"

	"image"
	"unsafe"

	"github.com/go-gl/gl/v4.6-core/gl"
	"github.com/go-gl/mathgl/mgl32"

	"tumble/render/instance"
)

// Options are the per-frame drawing switches.
type Options struct {
	Wireframe bool // shapes as wireframes
	NoShadows bool
}

// Sky is the background colour.
var Sky = [3]float32{0.62, 0.72, 0.82}

// LightDir points towards the directional light.
var LightDir = mgl32.Vec3{-0.55, 0.75, 0.35}.Normalize()

const shadowSize = 1024

// Renderer holds the GL objects. Make it with New after the context is current.
type Renderer struct {
	hulls     map[*geom.Hull]*gpuHull // each distinct hull's mesh, made when first drawn
	hullFrame uint64                  // frames drawn, for freeing hulls no longer drawn
	fields    fieldBuffers            // the height fields' chunk levels in GL

	mesh, shadow, ground, line uint32
	uMesh, uShadow, uGround    map[string]int32
	uLine                      map[string]int32

	vao      [instance.NumKinds]uint32
	vbo, ebo [instance.NumKinds]uint32
	inst     [instance.NumKinds]uint32
	count    [instance.NumKinds]int32

	groundVAO, groundVBO uint32
	lineVAO, lineVBO     uint32

	shadowFBO, shadowTex uint32

	// The device buffer: every kind's instances in one buffer, grouped, written by CUDA through interop;
	// drawn through its own vertex arrays with a base instance per kind.
	devBuf uint32
	devCap int // records
	devVAO [instance.NumKinds]uint32
	// The device line buffer: debug line vertices written by CUDA through interop (a buffer of its own:
	// the host lines' buffer is reallocated every frame, which would drop a CUDA registration).
	devLineVAO, devLineBuf uint32
	devLineCap             int // vertices
}

// New compiles the shaders and builds the meshes and buffers.
func New() (*Renderer, error) {
	r := &Renderer{}
	var err error
	if r.mesh, err = Program("mesh.vert", "mesh.frag"); err != nil {
		return nil, err
	}
	if r.shadow, err = Program("shadow.vert", "shadow.frag"); err != nil {
		return nil, err
	}
	if r.ground, err = Program("ground.vert", "ground.frag"); err != nil {
		return nil, err
	}
	if r.line, err = Program("line.vert", "line.geom", "line.frag"); err != nil {
		return nil, err
	}
	r.uMesh = uniforms(r.mesh, "uViewProj", "uLightViewProj", "uLightDir", "uEye", "uShadow", "uWire", "uDepthOnly")
	r.uShadow = uniforms(r.shadow, "uLightViewProj")
	r.uGround = uniforms(r.ground, "uViewProj", "uLightViewProj", "uNormal", "uLightDir", "uEye", "uSky", "uShadow", "uFog")
	r.uLine = uniforms(r.line, "uViewProj", "uViewport", "uHalfWidth", "uAlpha")

	meshes := [instance.NumKinds]mesh{boxMesh(), sphereMesh(24, 16, false), sphereMesh(24, 16, true), cylinderMesh(32)}
	for k, m := range meshes {
		gl.GenVertexArrays(1, &r.vao[k])
		gl.BindVertexArray(r.vao[k])
		gl.GenBuffers(1, &r.vbo[k])
		gl.BindBuffer(gl.ARRAY_BUFFER, r.vbo[k])
		gl.BufferData(gl.ARRAY_BUFFER, len(m.verts)*int(unsafe.Sizeof(vertex{})), gl.Ptr(m.verts), gl.STATIC_DRAW)
		stride := int32(unsafe.Sizeof(vertex{}))
		attrib(0, 3, stride, 0, 0)
		attrib(1, 3, stride, 12, 0)
		attrib(2, 1, stride, 24, 0)
		gl.GenBuffers(1, &r.ebo[k])
		gl.BindBuffer(gl.ELEMENT_ARRAY_BUFFER, r.ebo[k])
		gl.BufferData(gl.ELEMENT_ARRAY_BUFFER, len(m.index)*4, gl.Ptr(m.index), gl.STATIC_DRAW)
		r.count[k] = int32(len(m.index))
		gl.GenBuffers(1, &r.inst[k])
		gl.BindBuffer(gl.ARRAY_BUFFER, r.inst[k])
		instanceAttribs()
	}

	gl.GenBuffers(1, &r.devBuf)
	r.allocDevice(1024)
	for k := range instance.NumKinds {
		gl.GenVertexArrays(1, &r.devVAO[k])
		gl.BindVertexArray(r.devVAO[k])
		gl.BindBuffer(gl.ARRAY_BUFFER, r.vbo[k])
		stride := int32(unsafe.Sizeof(vertex{}))
		attrib(0, 3, stride, 0, 0)
		attrib(1, 3, stride, 12, 0)
		attrib(2, 1, stride, 24, 0)
		gl.BindBuffer(gl.ELEMENT_ARRAY_BUFFER, r.ebo[k])
		gl.BindBuffer(gl.ARRAY_BUFFER, r.devBuf)
		instanceAttribs()
	}

	gl.GenVertexArrays(1, &r.groundVAO)
	gl.BindVertexArray(r.groundVAO)
	gl.GenBuffers(1, &r.groundVBO)
	gl.BindBuffer(gl.ARRAY_BUFFER, r.groundVBO)
	gl.BufferData(gl.ARRAY_BUFFER, 4*3*4, nil, gl.DYNAMIC_DRAW)
	attrib(0, 3, 12, 0, 0)

	gl.GenVertexArrays(1, &r.lineVAO)
	gl.BindVertexArray(r.lineVAO)
	gl.GenBuffers(1, &r.lineVBO)
	gl.BindBuffer(gl.ARRAY_BUFFER, r.lineVBO)
	ls := int32(unsafe.Sizeof(instance.LineVertex{}))
	attrib(0, 3, ls, 0, 0)
	attrib(1, 4, ls, 12, 0)
	gl.GenVertexArrays(1, &r.devLineVAO)
	gl.BindVertexArray(r.devLineVAO)
	gl.GenBuffers(1, &r.devLineBuf)
	r.allocDeviceLines(1024)
	attrib(0, 3, ls, 0, 0)
	attrib(1, 4, ls, 12, 0)
	gl.BindVertexArray(0)

	gl.GenTextures(1, &r.shadowTex)
	gl.BindTexture(gl.TEXTURE_2D, r.shadowTex)
	gl.TexImage2D(gl.TEXTURE_2D, 0, gl.DEPTH_COMPONENT32F, shadowSize, shadowSize, 0, gl.DEPTH_COMPONENT, gl.FLOAT, nil)
	gl.TexParameteri(gl.TEXTURE_2D, gl.TEXTURE_MIN_FILTER, gl.LINEAR)
	gl.TexParameteri(gl.TEXTURE_2D, gl.TEXTURE_MAG_FILTER, gl.LINEAR)
	gl.TexParameteri(gl.TEXTURE_2D, gl.TEXTURE_WRAP_S, gl.CLAMP_TO_EDGE)
	gl.TexParameteri(gl.TEXTURE_2D, gl.TEXTURE_WRAP_T, gl.CLAMP_TO_EDGE)
	gl.TexParameteri(gl.TEXTURE_2D, gl.TEXTURE_COMPARE_MODE, gl.COMPARE_REF_TO_TEXTURE)
	gl.TexParameteri(gl.TEXTURE_2D, gl.TEXTURE_COMPARE_FUNC, gl.LEQUAL)
	gl.GenFramebuffers(1, &r.shadowFBO)
	gl.BindFramebuffer(gl.FRAMEBUFFER, r.shadowFBO)
	gl.FramebufferTexture2D(gl.FRAMEBUFFER, gl.DEPTH_ATTACHMENT, gl.TEXTURE_2D, r.shadowTex, 0)
	gl.DrawBuffer(gl.NONE)
	gl.ReadBuffer(gl.NONE)
	gl.BindFramebuffer(gl.FRAMEBUFFER, 0)
	return r, nil
}

// instanceAttribs points attributes 3..7 at instance.Instance records in the bound array buffer.
func instanceAttribs() {
	is := int32(unsafe.Sizeof(instance.Instance{}))
	attrib(3, 3, is, 0, 1)
	attrib(4, 4, is, 12, 1)
	attrib(5, 3, is, 28, 1)
	attrib(6, 1, is, 40, 1)
	attrib(7, 4, is, 44, 1)
}

// allocDevice (re)allocates the device buffer for n records; its contents are lost.
func (r *Renderer) allocDevice(n int) {
	gl.BindBuffer(gl.ARRAY_BUFFER, r.devBuf)
	gl.BufferData(gl.ARRAY_BUFFER, n*int(unsafe.Sizeof(instance.Instance{})), nil, gl.DYNAMIC_DRAW)
	r.devCap = n
}

// DeviceBuffer returns the GL buffer that a Frame with Device set draws from, grown (with headroom,
// reallocated: contents lost) to hold at least n records, and its capacity in records. An interop
// user registers it with CUDA, and again when the capacity it returns changes.
func (r *Renderer) DeviceBuffer(n int) (buffer uint32, capacity int) {
	if n > r.devCap {
		r.allocDevice(n + n/4)
	}
	return r.devBuf, r.devCap
}

// allocDeviceLines (re)allocates the device line buffer for n vertices; its contents are lost.
func (r *Renderer) allocDeviceLines(n int) {
	gl.BindBuffer(gl.ARRAY_BUFFER, r.devLineBuf)
	gl.BufferData(gl.ARRAY_BUFFER, n*int(unsafe.Sizeof(instance.LineVertex{})), nil, gl.DYNAMIC_DRAW)
	r.devLineCap = n
}

// DeviceLineBuffer returns the GL buffer that a Frame's DeviceLines are drawn from, grown (with
// headroom, reallocated: contents lost) to hold at least n vertices, and its capacity in vertices. An
// interop user registers it with CUDA, and again when the capacity it returns changes.
func (r *Renderer) DeviceLineBuffer(n int) (buffer uint32, capacity int) {
	if n > r.devLineCap {
		r.allocDeviceLines(n + n/4)
	}
	return r.devLineBuf, r.devLineCap
}

func attrib(loc uint32, n, stride int32, off uintptr, divisor uint32) {
	gl.EnableVertexAttribArray(loc)
	gl.VertexAttribPointerWithOffset(loc, n, gl.FLOAT, false, stride, off)
	gl.VertexAttribDivisor(loc, divisor)
}

// lightViewProj is an orthographic view from the light that covers the bodies' bounds.
func lightViewProj(lo, hi mgl32.Vec3) mgl32.Mat4 {
	c := lo.Add(hi).Mul(0.5)
	r := max(hi.Sub(lo).Len()/2, 1) + 1
	eye := c.Add(LightDir.Mul(2 * r))
	up := mgl32.Vec3{0, 1, 0}
	if LightDir[1] > 0.99 {
		up = mgl32.Vec3{0, 0, 1}
	}
	return mgl32.Ortho(-r, r, -r, r, 0.1, 4*r).Mul4(mgl32.LookAtV(eye, c, up))
}

// Draw renders f seen by cam into the bound framebuffer fb (0: the window's), a width x height
// pixel viewport.
func (r *Renderer) Draw(f *Frame, cam *Camera, fb uint32, width, height int, opt Options) {
	r.Upload(f)
	r.DrawUploaded(f, cam, fb, width, height, opt)
}

// Upload copies the frame's host instances (shapes and hulls) into the renderer's GL buffers: the
// part of a frame that moves the bodies to GL when interop does not (a frame from the device buffer
// uploads only its hulls). Draw does it; the app calls it apart to time it.
func (r *Renderer) Upload(f *Frame) {
	for k := range instance.NumKinds {
		gl.BindBuffer(gl.ARRAY_BUFFER, r.inst[k])
		n := len(f.Shapes[k])
		if n > 0 && !f.Device {
			gl.BufferData(gl.ARRAY_BUFFER, n*int(unsafe.Sizeof(instance.Instance{})), gl.Ptr(f.Shapes[k]), gl.STREAM_DRAW)
		}
	}
	r.uploadHulls(f)
	r.uploadFields(f)
}

// DrawUploaded is Draw after Upload: the frame's passes alone.
func (r *Renderer) DrawUploaded(f *Frame, cam *Camera, fb uint32, width, height int, opt Options) {
	lvp := lightViewProj(shadowBox(f.Lo, f.Hi, cam))

	gl.Enable(gl.DEPTH_TEST)
	gl.Disable(gl.CULL_FACE)
	gl.Disable(gl.BLEND)
	gl.Disable(gl.SCISSOR_TEST)
	gl.PolygonMode(gl.FRONT_AND_BACK, gl.FILL)

	// Shadow pass.
	gl.BindFramebuffer(gl.FRAMEBUFFER, r.shadowFBO)
	gl.Viewport(0, 0, shadowSize, shadowSize)
	gl.Clear(gl.DEPTH_BUFFER_BIT)
	if !opt.NoShadows {
		gl.UseProgram(r.shadow)
		gl.UniformMatrix4fv(r.uShadow["uLightViewProj"], 1, false, &lvp[0])
		gl.Enable(gl.POLYGON_OFFSET_FILL)
		gl.PolygonOffset(2, 4)
		r.drawShapes(f)
		r.drawFields(f, true)
		gl.Disable(gl.POLYGON_OFFSET_FILL)
	}

	// Main pass.
	gl.BindFramebuffer(gl.FRAMEBUFFER, fb)
	gl.Viewport(0, 0, int32(width), int32(height))
	gl.ClearColor(Sky[0], Sky[1], Sky[2], 1)
	gl.Clear(gl.COLOR_BUFFER_BIT | gl.DEPTH_BUFFER_BIT)
	vp := cam.Proj(float32(width) / float32(max(height, 1))).Mul4(cam.View())
	eye := cam.Eye()
	gl.ActiveTexture(gl.TEXTURE0)
	gl.BindTexture(gl.TEXTURE_2D, r.shadowTex)

	// Depth pre-pass: a software renderer (llvmpipe) shades every fragment that passes the depth test,
	// and a heap of boxes drawn in any order overdraws many times; with the depth laid down first,
	// each pixel is shaded once. The same program (so the same positions, to the bit) draws it. Height
	// fields are left out: drawn nearest first (drawFields), they overdraw little, and rasterizing
	// the screen-wide terrain twice cost more than the overdraw it saved.
	gl.UseProgram(r.mesh)
	gl.UniformMatrix4fv(r.uMesh["uViewProj"], 1, false, &vp[0])
	gl.Uniform1i(r.uMesh["uDepthOnly"], 1)
	if !opt.Wireframe {
		gl.ColorMask(false, false, false, false)
		r.drawShapes(f)
		gl.ColorMask(true, true, true, true)
	}
	gl.Uniform1i(r.uMesh["uDepthOnly"], 0)

	gl.UseProgram(r.ground)
	u := r.uGround
	gl.UniformMatrix4fv(u["uViewProj"], 1, false, &vp[0])
	gl.UniformMatrix4fv(u["uLightViewProj"], 1, false, &lvp[0])
	gl.Uniform3fv(u["uLightDir"], 1, &LightDir[0])
	gl.Uniform3fv(u["uEye"], 1, &eye[0])
	gl.Uniform3fv(u["uSky"], 1, &Sky[0])
	gl.Uniform1i(u["uShadow"], 0)
	gl.Uniform1f(u["uFog"], max(150, 4*cam.Distance))
	gl.BindVertexArray(r.groundVAO)
	gl.BindBuffer(gl.ARRAY_BUFFER, r.groundVBO)
	for _, p := range f.Planes {
		q := planeQuad(p, eye, max(400, 8*cam.Distance))
		gl.BufferSubData(gl.ARRAY_BUFFER, 0, len(q)*12, gl.Ptr(&q[0][0]))
		gl.Uniform3fv(u["uNormal"], 1, &p.Normal[0])
		gl.DrawArrays(gl.TRIANGLE_FAN, 0, 4)
	}

	gl.UseProgram(r.mesh)
	u = r.uMesh
	gl.UniformMatrix4fv(u["uViewProj"], 1, false, &vp[0])
	gl.UniformMatrix4fv(u["uLightViewProj"], 1, false, &lvp[0])
	gl.Uniform3fv(u["uLightDir"], 1, &LightDir[0])
	gl.Uniform3fv(u["uEye"], 1, &eye[0])
	gl.Uniform1i(u["uShadow"], 0)
	wire := int32(0)
	if opt.Wireframe {
		wire = 1
		gl.PolygonMode(gl.FRONT_AND_BACK, gl.LINE)
	}
	gl.Uniform1i(u["uWire"], wire)
	gl.DepthFunc(gl.LEQUAL)
	r.drawFields(f, false)
	r.drawShapes(f)
	gl.DepthFunc(gl.LESS)
	gl.PolygonMode(gl.FRONT_AND_BACK, gl.FILL)

	gl.UseProgram(r.line)
	gl.UniformMatrix4fv(r.uLine["uViewProj"], 1, false, &vp[0])
	gl.Uniform2f(r.uLine["uViewport"], float32(width), float32(height))
	gl.Uniform1f(r.uLine["uHalfWidth"], LineWidth/2)
	gl.Uniform1f(r.uLine["uAlpha"], 1)
	gl.DepthFunc(gl.LEQUAL)
	r.drawLines(r.lineVAO, f.Lines)
	if n := min(f.DeviceLines, r.devLineCap); n > 0 {
		gl.BindVertexArray(r.devLineVAO)
		gl.DrawArrays(gl.LINES, 0, int32(n))
	}
	if len(f.Overlay) > 0 {
		// On top of the bodies: the parts behind a surface faint, the rest whole. The depth buffer is
		// left as the bodies made it, so neither pass hides the other's lines.
		gl.Enable(gl.BLEND)
		gl.BlendFunc(gl.SRC_ALPHA, gl.ONE_MINUS_SRC_ALPHA)
		gl.DepthMask(false)
		gl.DepthFunc(gl.GREATER)
		gl.Uniform1f(r.uLine["uAlpha"], OverlayHiddenAlpha)
		r.drawLines(r.lineVAO, f.Overlay)
		gl.DepthFunc(gl.LEQUAL)
		gl.Uniform1f(r.uLine["uAlpha"], 1)
		gl.DrawArrays(gl.LINES, 0, int32(len(f.Overlay)))
		gl.DepthMask(true)
		gl.Disable(gl.BLEND)
	}
	gl.DepthFunc(gl.LESS)
	gl.BindVertexArray(0)
}

// LineWidth is the debug lines' width in framebuffer pixels (line.geom draws them as quads).
const LineWidth = 2

// OverlayHiddenAlpha is the opacity of an overlay line's parts behind a surface (Frame.Overlay).
const OverlayHiddenAlpha = 0.4

// drawLines uploads host line vertices into the line buffer and draws them (the program set).
func (r *Renderer) drawLines(vao uint32, lines []instance.LineVertex) {
	if len(lines) == 0 {
		return
	}
	gl.BindVertexArray(vao)
	gl.BindBuffer(gl.ARRAY_BUFFER, r.lineVBO)
	gl.BufferData(gl.ARRAY_BUFFER, len(lines)*int(unsafe.Sizeof(instance.LineVertex{})), gl.Ptr(lines), gl.STREAM_DRAW)
	gl.DrawArrays(gl.LINES, 0, int32(len(lines)))
}

func (r *Renderer) drawShapes(f *Frame) {
	if f.Device {
		base := 0
		for k := range instance.NumKinds {
			n := min(f.Counts[k], r.devCap-base)
			if n > 0 {
				gl.BindVertexArray(r.devVAO[k])
				gl.DrawElementsInstancedBaseInstance(gl.TRIANGLES, r.count[k], gl.UNSIGNED_INT, nil, int32(n), uint32(base))
			}
			base += f.Counts[k]
		}
		return
	}
	for k := range instance.NumKinds {
		if n := len(f.Shapes[k]); n > 0 {
			gl.BindVertexArray(r.vao[k])
			gl.DrawElementsInstanced(gl.TRIANGLES, r.count[k], gl.UNSIGNED_INT, nil, int32(n))
		}
	}
	r.drawHulls(f)
}

// planeQuad is a square of half size s on the plane, centred under the eye.
func planeQuad(p Plane, eye mgl32.Vec3, s float32) [4]mgl32.Vec3 {
	n := p.Normal
	c := eye.Sub(n.Mul(n.Dot(eye) - p.Offset))
	t := mgl32.Vec3{1, 0, 0}
	if n[0] > 0.9 || n[0] < -0.9 {
		t = mgl32.Vec3{0, 0, 1}
	}
	u := n.Cross(t).Normalize()
	v := n.Cross(u)
	return [4]mgl32.Vec3{c.Add(u.Mul(s)).Add(v.Mul(s)), c.Sub(u.Mul(s)).Add(v.Mul(s)),
		c.Sub(u.Mul(s)).Sub(v.Mul(s)), c.Add(u.Mul(s)).Sub(v.Mul(s))}
}

// Target is an off-screen framebuffer (colour and depth) for screenshots.
type Target struct {
	FBO, color, depth uint32
	W, H              int
}

// NewTarget makes a width x height off-screen framebuffer.
func NewTarget(width, height int) *Target {
	t := &Target{W: width, H: height}
	gl.GenFramebuffers(1, &t.FBO)
	gl.BindFramebuffer(gl.FRAMEBUFFER, t.FBO)
	gl.GenRenderbuffers(1, &t.color)
	gl.BindRenderbuffer(gl.RENDERBUFFER, t.color)
	gl.RenderbufferStorage(gl.RENDERBUFFER, gl.RGBA8, int32(width), int32(height))
	gl.FramebufferRenderbuffer(gl.FRAMEBUFFER, gl.COLOR_ATTACHMENT0, gl.RENDERBUFFER, t.color)
	gl.GenRenderbuffers(1, &t.depth)
	gl.BindRenderbuffer(gl.RENDERBUFFER, t.depth)
	gl.RenderbufferStorage(gl.RENDERBUFFER, gl.DEPTH_COMPONENT24, int32(width), int32(height))
	gl.FramebufferRenderbuffer(gl.FRAMEBUFFER, gl.DEPTH_ATTACHMENT, gl.RENDERBUFFER, t.depth)
	gl.BindFramebuffer(gl.FRAMEBUFFER, 0)
	return t
}

// ReadPixels reads the framebuffer fb into an image: rows flipped (GL's origin is bottom left) and
// alpha forced opaque.
func ReadPixels(fb uint32, width, height int) *image.RGBA {
	img := image.NewRGBA(image.Rect(0, 0, width, height))
	gl.BindFramebuffer(gl.READ_FRAMEBUFFER, fb)
	gl.PixelStorei(gl.PACK_ALIGNMENT, 1)
	gl.ReadPixels(0, 0, int32(width), int32(height), gl.RGBA, gl.UNSIGNED_BYTE, gl.Ptr(img.Pix))
	gl.BindFramebuffer(gl.READ_FRAMEBUFFER, 0)
	FlipOpaque(img)
	return img
}

// FlipOpaque turns img upside down in place and sets every alpha to 255.
func FlipOpaque(img *image.RGBA) {
	h, stride := img.Rect.Dy(), img.Stride
	tmp := make([]byte, stride)
	for y := 0; y < h/2; y++ {
		a := img.Pix[y*stride : (y+1)*stride]
		b := img.Pix[(h-1-y)*stride : (h-y)*stride]
		copy(tmp, a)
		copy(a, b)
		copy(b, tmp)
	}
	for i := 3; i < len(img.Pix); i += 4 {
		img.Pix[i] = 255
	}
}
