package ui

import (
	"github.com/go-gl/gl/v4.6-core/gl"
	"github.com/inkyblackness/imgui-go/v4"

	"tumble/render"
)

// imguiGL draws Dear ImGui's draw lists with OpenGL 4.5 core: one texture (the font atlas), one
// program, vertex and index buffers refilled per draw list, a scissor per command.
type imguiGL struct {
	prog, vao, vbo, ebo, font uint32
	uProj, uTex               int32
}

func newImguiGL(io imgui.IO) (*imguiGL, error) {
	r := &imguiGL{}
	var err error
	if r.prog, err = render.Program("imgui.vert", "imgui.frag"); err != nil {
		return nil, err
	}
	r.uProj = gl.GetUniformLocation(r.prog, gl.Str("uProj\x00"))
	r.uTex = gl.GetUniformLocation(r.prog, gl.Str("uTex\x00"))
	gl.GenVertexArrays(1, &r.vao)
	gl.BindVertexArray(r.vao)
	gl.GenBuffers(1, &r.vbo)
	gl.GenBuffers(1, &r.ebo)
	gl.BindBuffer(gl.ARRAY_BUFFER, r.vbo)
	gl.BindBuffer(gl.ELEMENT_ARRAY_BUFFER, r.ebo)
	size, pos, uv, col := imgui.VertexBufferLayout()
	gl.EnableVertexAttribArray(0)
	gl.VertexAttribPointerWithOffset(0, 2, gl.FLOAT, false, int32(size), uintptr(pos))
	gl.EnableVertexAttribArray(1)
	gl.VertexAttribPointerWithOffset(1, 2, gl.FLOAT, false, int32(size), uintptr(uv))
	gl.EnableVertexAttribArray(2)
	gl.VertexAttribPointerWithOffset(2, 4, gl.UNSIGNED_BYTE, true, int32(size), uintptr(col))
	gl.BindVertexArray(0)

	img := io.Fonts().TextureDataRGBA32()
	gl.GenTextures(1, &r.font)
	gl.BindTexture(gl.TEXTURE_2D, r.font)
	gl.TexParameteri(gl.TEXTURE_2D, gl.TEXTURE_MIN_FILTER, gl.LINEAR)
	gl.TexParameteri(gl.TEXTURE_2D, gl.TEXTURE_MAG_FILTER, gl.LINEAR)
	gl.PixelStorei(gl.UNPACK_ROW_LENGTH, 0)
	gl.TexImage2D(gl.TEXTURE_2D, 0, gl.RGBA, int32(img.Width), int32(img.Height), 0, gl.RGBA, gl.UNSIGNED_BYTE, img.Pixels)
	io.Fonts().SetTextureID(imgui.TextureID(r.font))
	return r, nil
}

// render draws data into the bound framebuffer; display is the window size in screen coordinates,
// fb the framebuffer size in pixels (they differ on HiDPI screens).
func (r *imguiGL) render(display, fb [2]float32, data imgui.DrawData) {
	if fb[0] <= 0 || fb[1] <= 0 {
		return
	}
	scale := imgui.Vec2{X: fb[0] / display[0], Y: fb[1] / display[1]}
	data.ScaleClipRects(scale)

	gl.Enable(gl.BLEND)
	gl.BlendEquation(gl.FUNC_ADD)
	gl.BlendFunc(gl.SRC_ALPHA, gl.ONE_MINUS_SRC_ALPHA)
	gl.Disable(gl.CULL_FACE)
	gl.Disable(gl.DEPTH_TEST)
	gl.Enable(gl.SCISSOR_TEST)
	gl.PolygonMode(gl.FRONT_AND_BACK, gl.FILL)
	gl.Viewport(0, 0, int32(fb[0]), int32(fb[1]))
	proj := [16]float32{
		2 / display[0], 0, 0, 0,
		0, -2 / display[1], 0, 0,
		0, 0, -1, 0,
		-1, 1, 0, 1,
	}
	gl.UseProgram(r.prog)
	gl.Uniform1i(r.uTex, 0)
	gl.UniformMatrix4fv(r.uProj, 1, false, &proj[0])
	gl.BindVertexArray(r.vao)
	gl.ActiveTexture(gl.TEXTURE0)
	idxSize := imgui.IndexBufferLayout()
	idxType := uint32(gl.UNSIGNED_SHORT)
	if idxSize == 4 {
		idxType = gl.UNSIGNED_INT
	}
	for _, list := range data.CommandLists() {
		vb, vbn := list.VertexBuffer()
		gl.BindBuffer(gl.ARRAY_BUFFER, r.vbo)
		gl.BufferData(gl.ARRAY_BUFFER, vbn, vb, gl.STREAM_DRAW)
		ib, ibn := list.IndexBuffer()
		gl.BindBuffer(gl.ELEMENT_ARRAY_BUFFER, r.ebo)
		gl.BufferData(gl.ELEMENT_ARRAY_BUFFER, ibn, ib, gl.STREAM_DRAW)
		for _, cmd := range list.Commands() {
			if cmd.HasUserCallback() {
				cmd.CallUserCallback(list)
				continue
			}
			gl.BindTexture(gl.TEXTURE_2D, uint32(cmd.TextureID()))
			c := cmd.ClipRect()
			gl.Scissor(int32(c.X), int32(fb[1])-int32(c.W), int32(c.Z-c.X), int32(c.W-c.Y))
			gl.DrawElementsBaseVertexWithOffset(gl.TRIANGLES, int32(cmd.ElementCount()), idxType,
				uintptr(cmd.IndexOffset()*idxSize), int32(cmd.VertexOffset()))
		}
	}
	gl.Disable(gl.SCISSOR_TEST)
	gl.Disable(gl.BLEND)
	gl.BindVertexArray(0)
}
