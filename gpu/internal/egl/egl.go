//go:build cuda

// Package egl gives the cuda build's tests a headless OpenGL context (the app's own, from
// tumble/render/egl: no window, no display server) and the few GL calls they need to check CUDA-GL
// interop on a GPU machine: make a GL buffer, let CUDA write it, read it back. It is for tests only.
package egl

/*
#include <stddef.h>
#include <stdint.h>
#include <stdlib.h>

typedef unsigned int GLenum;
typedef unsigned int GLuint;
typedef int GLsizei;
typedef unsigned char GLubyte;
#define GL_ARRAY_BUFFER 0x8892
#define GL_DYNAMIC_DRAW 0x88E8
#define GL_VENDOR 0x1F00
#define GL_RENDERER 0x1F01

typedef void (*tbGenBuffers)(GLsizei, GLuint *);
typedef void (*tbDeleteBuffers)(GLsizei, const GLuint *);
typedef void (*tbBindBuffer)(GLenum, GLuint);
typedef void (*tbBufferData)(GLenum, ptrdiff_t, const void *, GLenum);
typedef void (*tbGetBufferSubData)(GLenum, ptrdiff_t, ptrdiff_t, void *);
typedef const GLubyte *(*tbGetString)(GLenum);
typedef void (*tbFinish)(void);

typedef struct {
	tbGenBuffers genBuffers;
	tbDeleteBuffers deleteBuffers;
	tbBindBuffer bindBuffer;
	tbBufferData bufferData;
	tbGetBufferSubData getBufferSubData;
	tbGetString getString;
	tbFinish finish;
} tbGL;

static void tbSet(tbGL *g, void *gen, void *del, void *bind, void *data, void *sub, void *str, void *fin) {
	g->genBuffers = (tbGenBuffers)gen;
	g->deleteBuffers = (tbDeleteBuffers)del;
	g->bindBuffer = (tbBindBuffer)bind;
	g->bufferData = (tbBufferData)data;
	g->getBufferSubData = (tbGetBufferSubData)sub;
	g->getString = (tbGetString)str;
	g->finish = (tbFinish)fin;
}

static const char *tbString(tbGL *e, GLenum name) { return (const char *)e->getString(name); }

static GLuint tbNewBuffer(tbGL *e, ptrdiff_t bytes) {
	GLuint b = 0;
	e->genBuffers(1, &b);
	e->bindBuffer(GL_ARRAY_BUFFER, b);
	e->bufferData(GL_ARRAY_BUFFER, bytes, 0, GL_DYNAMIC_DRAW);
	return b;
}

static void tbRead(tbGL *e, GLuint b, void *dst, ptrdiff_t bytes) {
	e->finish();
	e->bindBuffer(GL_ARRAY_BUFFER, b);
	e->getBufferSubData(GL_ARRAY_BUFFER, 0, bytes, dst);
}

static void tbDelete(tbGL *e, GLuint b) { e->deleteBuffers(1, &b); }
*/
import "C"

import (
	"fmt"
	"unsafe"

	regl "tumble/render/egl"
)

// Context is a current headless GL context. Use it from one OS thread (runtime.LockOSThread).
type Context struct {
	c *regl.Context
	e *C.tbGL
}

// Open creates the context as the app does (render/egl.Open) and makes it current on this thread.
func Open() (*Context, error) {
	c, err := regl.Open()
	if err != nil {
		return nil, err
	}
	names := []string{"glGenBuffers", "glDeleteBuffers", "glBindBuffer", "glBufferData", "glGetBufferSubData", "glGetString", "glFinish"}
	var p [7]unsafe.Pointer
	for i, n := range names {
		if p[i] = c.ProcAddr(n); p[i] == nil {
			c.Close()
			return nil, fmt.Errorf("egl: eglGetProcAddress found no %s", n)
		}
	}
	e := (*C.tbGL)(C.malloc(C.size_t(unsafe.Sizeof(C.tbGL{}))))
	C.tbSet(e, p[0], p[1], p[2], p[3], p[4], p[5], p[6])
	return &Context{c: c, e: e}, nil
}

// Display says which EGL display the context is on.
func (c *Context) Display() string { return c.c.Display }

// Vendor is GL_VENDOR.
func (c *Context) Vendor() string { return C.GoString(C.tbString(c.e, C.GL_VENDOR)) }

// Renderer is GL_RENDERER.
func (c *Context) Renderer() string { return C.GoString(C.tbString(c.e, C.GL_RENDERER)) }

// NewBuffer makes an array buffer of the given size (contents undefined).
func (c *Context) NewBuffer(bytes int) uint32 { return uint32(C.tbNewBuffer(c.e, C.ptrdiff_t(bytes))) }

// Read copies the buffer's first len(dst) bytes into dst, after GL has finished.
func (c *Context) Read(buf uint32, dst []byte) {
	if len(dst) > 0 {
		C.tbRead(c.e, C.GLuint(buf), unsafe.Pointer(&dst[0]), C.ptrdiff_t(len(dst)))
	}
}

// Delete deletes a buffer.
func (c *Context) Delete(buf uint32) { C.tbDelete(c.e, C.GLuint(buf)) }

// Close releases the context.
func (c *Context) Close() {
	c.c.Close()
	C.free(unsafe.Pointer(c.e))
}
