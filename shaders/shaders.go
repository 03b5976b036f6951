// Package shaders holds the renderer's GLSL sources (OpenGL 4.5 core, "#version 450 core"), embedded
// so the binary needs no files beside it. render compiles them; the names are the file names.
package shaders

import "embed"

// FS holds every *.vert, *.geom and *.frag file of this directory.
//
//go:embed *.vert *.geom *.frag
var FS embed.FS

// Source returns the named shader's text; it panics on a name that is not embedded (a programmer
// error: the set is fixed at build time).
func Source(name string) string {
	b, err := FS.ReadFile(name)
	if err != nil {
		panic("shaders: " + err.Error())
	}
	return string(b)
}
