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

// Program compiles and links shaders from the shaders package, each of the stage its name's
// extension says (.vert, .geom, .frag).
func Program(names ...string) (uint32, error) {
	p := gl.CreateProgram()
	for _, name := range names {
		kind := uint32(gl.FRAGMENT_SHADER)
		switch {
		case strings.HasSuffix(name, ".vert"):
			kind = gl.VERTEX_SHADER
		case strings.HasSuffix(name, ".geom"):
			kind = gl.GEOMETRY_SHADER
		}
		sh, err := compile(name, kind)
		if err != nil {
			gl.DeleteProgram(p)
			return 0, err
		}
		gl.AttachShader(p, sh)
		gl.DeleteShader(sh) // freed with the program
	}
	gl.LinkProgram(p)
	var ok int32
	gl.GetProgramiv(p, gl.LINK_STATUS, &ok)
	if ok == gl.FALSE {
		var n int32
		gl.GetProgramiv(p, gl.INFO_LOG_LENGTH, &n)
		log := strings.Repeat("\x00", int(n+1))
		gl.GetProgramInfoLog(p, n, nil, gl.Str(log))
		return 0, fmt.Errorf("link %s: %s", strings.Join(names, " + "), strings.TrimRight(log, "\x00"))
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
