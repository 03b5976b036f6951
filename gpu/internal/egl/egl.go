//go:build cuda

// Package egl opens a headless OpenGL context through EGL (no window, no display server) so that the
// cuda build's tests can check CUDA-GL interop on a GPU machine: make a GL buffer, let CUDA write it,
// read it back. It is for tests only; the window app's context comes from GLFW.
package egl

/*
#cgo LDFLAGS: -lEGL
#include <stdlib.h>
#include <string.h>
#include <EGL/egl.h>
#include <GL/gl.h>

typedef void (*tbGenBuffers)(GLsizei, GLuint *);
typedef void (*tbDeleteBuffers)(GLsizei, const GLuint *);
typedef void (*tbBindBuffer)(GLenum, GLuint);
typedef void (*tbBufferData)(GLenum, ptrdiff_t, const void *, GLenum);
typedef void (*tbGetBufferSubData)(GLenum, ptrdiff_t, ptrdiff_t, void *);
typedef const GLubyte *(*tbGetString)(GLenum);
typedef void (*tbFinish)(void);

typedef struct {
	EGLDisplay dpy;
	EGLContext ctx;
	tbGenBuffers genBuffers;
	tbDeleteBuffers deleteBuffers;
	tbBindBuffer bindBuffer;
	tbBufferData bufferData;
	tbGetBufferSubData getBufferSubData;
	tbGetString getString;
	tbFinish finish;
} tbEGL;

// tbOpen makes a 4.5 core context current without a surface; it returns a step name on failure.
static const char *tbOpen(tbEGL *e) {
	memset(e, 0, sizeof *e);
	e->dpy = eglGetDisplay(EGL_DEFAULT_DISPLAY);
	if (e->dpy == EGL_NO_DISPLAY) return "eglGetDisplay";
	EGLint major, minor;
	if (!eglInitialize(e->dpy, &major, &minor)) return "eglInitialize";
	if (!eglBindAPI(EGL_OPENGL_API)) return "eglBindAPI";
	EGLint attrs[] = {EGL_SURFACE_TYPE, EGL_PBUFFER_BIT, EGL_RENDERABLE_TYPE, EGL_OPENGL_BIT, EGL_NONE};
	EGLConfig cfg;
	EGLint n = 0;
	if (!eglChooseConfig(e->dpy, attrs, &cfg, 1, &n) || n < 1) return "eglChooseConfig";
	EGLint ctxAttrs[] = {EGL_CONTEXT_MAJOR_VERSION, 4, EGL_CONTEXT_MINOR_VERSION, 5,
	                     EGL_CONTEXT_OPENGL_PROFILE_MASK, EGL_CONTEXT_OPENGL_CORE_PROFILE_BIT, EGL_NONE};
	e->ctx = eglCreateContext(e->dpy, cfg, EGL_NO_CONTEXT, ctxAttrs);
	if (e->ctx == EGL_NO_CONTEXT) return "eglCreateContext";
	if (!eglMakeCurrent(e->dpy, EGL_NO_SURFACE, EGL_NO_SURFACE, e->ctx)) return "eglMakeCurrent (surfaceless)";
	e->genBuffers = (tbGenBuffers)eglGetProcAddress("glGenBuffers");
	e->deleteBuffers = (tbDeleteBuffers)eglGetProcAddress("glDeleteBuffers");
	e->bindBuffer = (tbBindBuffer)eglGetProcAddress("glBindBuffer");
	e->bufferData = (tbBufferData)eglGetProcAddress("glBufferData");
	e->getBufferSubData = (tbGetBufferSubData)eglGetProcAddress("glGetBufferSubData");
	e->getString = (tbGetString)eglGetProcAddress("glGetString");
	e->finish = (tbFinish)eglGetProcAddress("glFinish");
	if (!e->genBuffers || !e->deleteBuffers || !e->bindBuffer || !e->bufferData || !e->getBufferSubData ||
	    !e->getString || !e->finish) return "eglGetProcAddress (GL functions)";
	return 0;
}

static void tbClose(tbEGL *e) {
	eglMakeCurrent(e->dpy, EGL_NO_SURFACE, EGL_NO_SURFACE, EGL_NO_CONTEXT);
	if (e->ctx != EGL_NO_CONTEXT) eglDestroyContext(e->dpy, e->ctx);
	eglTerminate(e->dpy);
}

static const char *tbString(tbEGL *e, GLenum name) { return (const char *)e->getString(name); }

static GLuint tbNewBuffer(tbEGL *e, ptrdiff_t bytes) {
	GLuint b = 0;
	e->genBuffers(1, &b);
	e->bindBuffer(GL_ARRAY_BUFFER, b);
	e->bufferData(GL_ARRAY_BUFFER, bytes, 0, GL_DYNAMIC_DRAW);
	return b;
}

static void tbRead(tbEGL *e, GLuint b, void *dst, ptrdiff_t bytes) {
	e->finish();
	e->bindBuffer(GL_ARRAY_BUFFER, b);
	e->getBufferSubData(GL_ARRAY_BUFFER, 0, bytes, dst);
}

static void tbDelete(tbEGL *e, GLuint b) { e->deleteBuffers(1, &b); }
*/
import "C"

import (
	"fmt"
	"unsafe"
)

// Context is a current headless GL context. Use it from one OS thread (runtime.LockOSThread).
type Context struct{ e *C.tbEGL }

// Open creates the context on EGL's default display and makes it current on this thread.
func Open() (*Context, error) {
	e := (*C.tbEGL)(C.malloc(C.size_t(unsafe.Sizeof(C.tbEGL{}))))
	if step := C.tbOpen(e); step != nil {
		C.free(unsafe.Pointer(e))
		return nil, fmt.Errorf("egl: %s failed (error 0x%x)", C.GoString(step), int(C.eglGetError()))
	}
	return &Context{e: e}, nil
}

// Vendor and Renderer are GL_VENDOR and GL_RENDERER.
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
	C.tbClose(c.e)
	C.free(unsafe.Pointer(c.e))
}
