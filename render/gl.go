package render

import (
	"fmt"
	"strings"
	"unsafe"

	"github.com/go-gl/gl/v4.6-core/gl"

	"tumble/shaders"
)

// Init loads the OpenGL functions for the current context and checks its version: the renderer needs
// 4.5 core (it asks for 4.6 and takes 4.5, which Mesa's llvmpipe grants). gl.Init succeeds even when
// functions are missing, so the version string is what decides. It returns that string. getProc is
// the context's loader (eglGetProcAddress for an EGL context); nil: go-gl's own (GLX, for GLFW's).
func Init(getProc func(name string) unsafe.Pointer) (string, error) {
	load := gl.Init
	if getProc != nil {
		load = func() error { return gl.InitWithProcAddrFunc(getProc) }
	}
	if err := load(); err != nil {
		return "", fmt.Errorf("opengl: %w", err)
	}
	v := gl.GoStr(gl.GetString(gl.VERSION))
	var major, minor int
	if _, err := fmt.Sscanf(v, "%d.%d", &major, &minor); err != nil {
		return v, fmt.Errorf("opengl: cannot read the version %q", v)
	}
	if major < 4 || (major == 4 && minor < 5) {
		return v, fmt.Errorf("opengl: need 4.5 core or later, got %q", v)
	}
	return v, nil
}

// Program compiles and links a vertex and a fragment shader from the shaders package.
func Program(vert, frag string) (uint32, error) {
	vs, err := compile(vert, gl.VERTEX_SHADER)
	if err != nil {
		return 0, err
	}
	fs, err := compile(frag, gl.FRAGMENT_SHADER)
	if err != nil {
		return 0, err
	}
	p := gl.CreateProgram()
	gl.AttachShader(p, vs)
	gl.AttachShader(p, fs)
	gl.LinkProgram(p)
	gl.DeleteShader(vs)
	gl.DeleteShader(fs)
	var ok int32
	gl.GetProgramiv(p, gl.LINK_STATUS, &ok)
	if ok == gl.FALSE {
		var n int32
		gl.GetProgramiv(p, gl.INFO_LOG_LENGTH, &n)
		log := strings.Repeat("\x00", int(n+1))
		gl.GetProgramInfoLog(p, n, nil, gl.Str(log))
		return 0, fmt.Errorf("link %s + %s: %s", vert, frag, strings.TrimRight(log, "\x00"))
	}
	return p, nil
}

func compile(name string, kind uint32) (uint32, error) {
	s := gl.CreateShader(kind)
	src, free := gl.Strs(shaders.Source(name) + "\x00")
	gl.ShaderSource(s, 1, src, nil)
	free()
	gl.CompileShader(s)
	var ok int32
	gl.GetShaderiv(s, gl.COMPILE_STATUS, &ok)
	if ok == gl.FALSE {
		var n int32
		gl.GetShaderiv(s, gl.INFO_LOG_LENGTH, &n)
		log := strings.Repeat("\x00", int(n+1))
		gl.GetShaderInfoLog(s, n, nil, gl.Str(log))
		return 0, fmt.Errorf("compile %s: %s", name, strings.TrimRight(log, "\x00"))
	}
	return s, nil
}

// uniforms looks up a program's uniform locations by name.
func uniforms(p uint32, names ...string) map[string]int32 {
	m := map[string]int32{}
	for _, n := range names {
		m[n] = gl.GetUniformLocation(p, gl.Str(n+"\x00"))
	}
	return m
}
