// Package egl opens a headless OpenGL 4.5+ core context through EGL: no window, no X server, no
// $DISPLAY (what MuJoCo calls MUJOCO_GL=egl). The app renders into its own framebuffer object and
// reads the pixels back, so the context needs no surface.
//
// libEGL.so.1 is opened at run time (dlopen), not linked: a binary built here starts where EGL is not
// installed, and only asking for an EGL context there fails, with an error saying what is missing.
//
// Displays are tried in order: each EGL device (EGL_EXT_platform_device: a GPU on NVIDIA's driver,
// Mesa's software device), the one CUDA calls device 0 first so that CUDA-GL interop shares it, then
// Mesa's surfaceless platform (EGL_MESA_platform_surfaceless: llvmpipe). $TUMBLE_EGL_DEVICE=N keeps
// only device N, and $TUMBLE_EGL_DEVICE=surfaceless only that platform. NVIDIA's libEGL is found by glvnd through its vendor file; where glvnd does not look
// (a container with the driver mounted elsewhere), point __EGL_VENDOR_LIBRARY_FILENAMES at
// 10_nvidia.json.
package egl

/*
#cgo LDFLAGS: -ldl
#include <dlfcn.h>
#include <stdint.h>
#include <stdlib.h>

typedef int32_t EGLint;
typedef unsigned int EGLBoolean;
typedef unsigned int EGLenum;
// Opaque handles as pointers to incomplete structs: cgo gives them Go pointer types (nil works).
typedef struct tbDisplay_ *EGLDisplay;
typedef struct tbConfig_ *EGLConfig;
typedef struct tbContext_ *EGLContext;
typedef struct tbSurface_ *EGLSurface;
typedef struct tbDevice_ *EGLDeviceEXT;
typedef intptr_t EGLAttrib;

typedef void *(*pfnGetProcAddress)(const char *);
typedef EGLint (*pfnGetError)(void);
typedef const char *(*pfnQueryString)(EGLDisplay, EGLint);
typedef EGLBoolean (*pfnInitialize)(EGLDisplay, EGLint *, EGLint *);
typedef EGLBoolean (*pfnTerminate)(EGLDisplay);
typedef EGLBoolean (*pfnBindAPI)(EGLenum);
typedef EGLBoolean (*pfnChooseConfig)(EGLDisplay, const EGLint *, EGLConfig *, EGLint, EGLint *);
typedef EGLContext (*pfnCreateContext)(EGLDisplay, EGLConfig, EGLContext, const EGLint *);
typedef EGLBoolean (*pfnDestroyContext)(EGLDisplay, EGLContext);
typedef EGLBoolean (*pfnMakeCurrent)(EGLDisplay, EGLSurface, EGLSurface, EGLContext);
typedef EGLSurface (*pfnCreatePbufferSurface)(EGLDisplay, EGLConfig, const EGLint *);
typedef EGLBoolean (*pfnDestroySurface)(EGLDisplay, EGLSurface);
typedef EGLBoolean (*pfnQueryDevicesEXT)(EGLint, EGLDeviceEXT *, EGLint *);
typedef const char *(*pfnQueryDeviceStringEXT)(EGLDeviceEXT, EGLint);
typedef EGLBoolean (*pfnQueryDeviceAttribEXT)(EGLDeviceEXT, EGLint, EGLAttrib *);
typedef EGLDisplay (*pfnGetPlatformDisplayEXT)(EGLenum, void *, const EGLint *);

typedef struct {
	void *lib;
	pfnGetProcAddress getProcAddress;
	pfnGetError getError;
	pfnQueryString queryString;
	pfnInitialize initialize;
	pfnTerminate terminate;
	pfnBindAPI bindAPI;
	pfnChooseConfig chooseConfig;
	pfnCreateContext createContext;
	pfnDestroyContext destroyContext;
	pfnMakeCurrent makeCurrent;
	pfnCreatePbufferSurface createPbufferSurface;
	pfnDestroySurface destroySurface;
	pfnQueryDevicesEXT queryDevices;
	pfnQueryDeviceStringEXT queryDeviceString;
	pfnQueryDeviceAttribEXT queryDeviceAttrib;
	pfnGetPlatformDisplayEXT getPlatformDisplay;
} tbLib;

// tbLoad opens the library and looks up the core functions; it returns the missing symbol's name (or
// "" for the library itself, whose error dlerror gives), NULL when all are there.
static const char *tbLoad(tbLib *l, const char *name) {
	l->lib = dlopen(name, RTLD_NOW | RTLD_LOCAL);
	if (!l->lib) return "";
#define SYM(field, sym) if (!(l->field = (void *)dlsym(l->lib, sym))) return sym;
	SYM(getProcAddress, "eglGetProcAddress")
	SYM(getError, "eglGetError")
	SYM(queryString, "eglQueryString")
	SYM(initialize, "eglInitialize")
	SYM(terminate, "eglTerminate")
	SYM(bindAPI, "eglBindAPI")
	SYM(chooseConfig, "eglChooseConfig")
	SYM(createContext, "eglCreateContext")
	SYM(destroyContext, "eglDestroyContext")
	SYM(makeCurrent, "eglMakeCurrent")
	SYM(createPbufferSurface, "eglCreatePbufferSurface")
	SYM(destroySurface, "eglDestroySurface")
#undef SYM
	l->queryDevices = (pfnQueryDevicesEXT)l->getProcAddress("eglQueryDevicesEXT");
	l->queryDeviceString = (pfnQueryDeviceStringEXT)l->getProcAddress("eglQueryDeviceStringEXT");
	l->queryDeviceAttrib = (pfnQueryDeviceAttribEXT)l->getProcAddress("eglQueryDeviceAttribEXT");
	l->getPlatformDisplay = (pfnGetPlatformDisplayEXT)l->getProcAddress("eglGetPlatformDisplayEXT");
	return NULL;
}

static const char *tbDLError(void) { return dlerror(); }

static EGLint tbGetError(tbLib *l) { return l->getError(); }
static const char *tbQueryString(tbLib *l, EGLDisplay d, EGLint name) { return l->queryString(d, name); }

// tbDevices fills devs (up to max) and returns how many there are, -1 without device enumeration.
static EGLint tbDevices(tbLib *l, EGLDeviceEXT *devs, EGLint max) {
	EGLint n = 0;
	if (!l->queryDevices || !l->queryDevices(max, devs, &n)) return -1;
	return n;
}

static const char *tbDeviceString(tbLib *l, EGLDeviceEXT d, EGLint name) {
	return l->queryDeviceString ? l->queryDeviceString(d, name) : NULL;
}

// tbDeviceAttrib returns the attribute, or -1 where the device does not have it.
static intptr_t tbDeviceAttrib(tbLib *l, EGLDeviceEXT d, EGLint name) {
	EGLAttrib v = -1;
	if (!l->queryDeviceAttrib || !l->queryDeviceAttrib(d, name, &v)) return -1;
	return v;
}

static EGLDisplay tbPlatformDisplay(tbLib *l, EGLenum platform, EGLDeviceEXT native) {
	return l->getPlatformDisplay ? l->getPlatformDisplay(platform, (void *)native, NULL) : NULL;
}

static EGLBoolean tbInitialize(tbLib *l, EGLDisplay d, EGLint *major, EGLint *minor) {
	return l->initialize(d, major, minor);
}
static EGLBoolean tbTerminate(tbLib *l, EGLDisplay d) { return l->terminate(d); }
static EGLBoolean tbBindAPI(tbLib *l, EGLenum api) { return l->bindAPI(api); }

static EGLint tbChooseConfig(tbLib *l, EGLDisplay d, const EGLint *attrs, EGLConfig *cfg) {
	EGLint n = 0;
	if (!l->chooseConfig(d, attrs, cfg, 1, &n)) return -1;
	return n;
}

static EGLContext tbCreateContext(tbLib *l, EGLDisplay d, EGLConfig cfg, const EGLint *attrs) {
	return l->createContext(d, cfg, NULL, attrs);
}
static EGLBoolean tbDestroyContext(tbLib *l, EGLDisplay d, EGLContext c) { return l->destroyContext(d, c); }
static EGLBoolean tbMakeCurrent(tbLib *l, EGLDisplay d, EGLSurface s, EGLContext c) {
	return l->makeCurrent(d, s, s, c);
}
static EGLSurface tbPbuffer(tbLib *l, EGLDisplay d, EGLConfig cfg, const EGLint *attrs) {
	return l->createPbufferSurface(d, cfg, attrs);
}
static EGLBoolean tbDestroySurface(tbLib *l, EGLDisplay d, EGLSurface s) { return l->destroySurface(d, s); }
static void *tbProcAddress(tbLib *l, const char *name) { return l->getProcAddress(name); }
*/
import "C"

import (
	"errors"
	"fmt"
	"os"
	"slices"
	"strconv"
	"strings"
	"unsafe"
)

// EGL's enums (egl.h, eglext.h), written out so that building needs no EGL headers.
const (
	eglSuccess              = 0x3000
	eglNone                 = 0x3038
	eglVendor               = 0x3053
	eglVersion              = 0x3054
	eglExtensions           = 0x3055
	eglSurfaceType          = 0x3033
	eglPbufferBit           = 0x0001
	eglRenderableType       = 0x3040
	eglOpenGLBit            = 0x0008
	eglRedSize              = 0x3024
	eglGreenSize            = 0x3023
	eglBlueSize             = 0x3022
	eglWidth                = 0x3057
	eglHeight               = 0x3056
	eglOpenGLAPI            = 0x30A2
	eglContextMajor         = 0x3098
	eglContextMinor         = 0x30FB
	eglContextProfileMask   = 0x30FD
	eglContextCoreBit       = 0x0001
	eglPlatformDevice       = 0x313F
	eglPlatformSurfaceless  = 0x31DD
	eglDRMDeviceFile        = 0x3233
	eglCUDADeviceNV         = 0x323A
	maxDevices              = 16
	libName                 = "libEGL.so.1"
	deviceEnv               = "TUMBLE_EGL_DEVICE"
	surfacelessExt          = "EGL_MESA_platform_surfaceless"
	deviceExt               = "EGL_EXT_platform_device"
	surfacelessContextExt   = "EGL_KHR_surfaceless_context"
	deviceSoftwareExt       = "EGL_MESA_device_software"
	deviceCUDAExt           = "EGL_NV_device_cuda"
	eglNotInitialized       = 0x3001
	eglBadAccess            = 0x3002
	eglBadAlloc             = 0x3003
	eglBadAttribute         = 0x3004
	eglBadConfig            = 0x3005
	eglBadContext           = 0x3006
	eglBadDisplay           = 0x3008
	eglBadMatch             = 0x3009
	eglBadParameter         = 0x300C
	eglContextLost          = 0x300E
	pbufferSide             = 16
	contextMajor            = 4
	contextMinorWanted      = 6
	contextMinorLeastAccept = 5
)

// ErrNoEGL is wrapped by every error of Open: no libEGL, no display that initialises, no OpenGL
// configuration, or no 4.5 core context.
var ErrNoEGL = errors.New("EGL")

// library is the file dlopen loads (a variable so that a test can name one that does not exist).
var library = libName

// Context is a current headless GL context on the calling OS thread (lock it: runtime.LockOSThread).
type Context struct {
	lib *C.tbLib
	dpy C.EGLDisplay
	ctx C.EGLContext
	srf C.EGLSurface // a 16 x 16 pbuffer where the display has no surfaceless contexts, else nil
	// Display says which display it is on, e.g. `device 0 (EGL_NV_device_cuda, CUDA device 0)` or
	// `surfaceless`, with EGL's vendor and version.
	Display string
}

// candidate is a display to try.
type candidate struct {
	name     string
	platform C.EGLenum
	native   C.EGLDeviceEXT
	cuda     int // the device's CUDA ordinal, -1 if none
}

// Open creates an OpenGL 4.6 (or 4.5) core context on the first display that gives one and makes it
// current on this thread, with no surface where the display allows it. The error is one line that
// wraps ErrNoEGL and says what each display answered.
func Open() (*Context, error) {
	l := (*C.tbLib)(C.calloc(1, C.size_t(unsafe.Sizeof(C.tbLib{}))))
	cname := C.CString(library)
	defer C.free(unsafe.Pointer(cname))
	if sym := C.tbLoad(l, cname); sym != nil {
		defer C.free(unsafe.Pointer(l))
		if s := C.GoString(sym); s != "" {
			return nil, fmt.Errorf("%w: %s has no %s (not an EGL library)", ErrNoEGL, library, s)
		}
		why := C.GoString(C.tbDLError())
		return nil, fmt.Errorf("%w: cannot load %s (%s); install libegl1 and libegl-mesa0 (Mesa) or NVIDIA's driver", ErrNoEGL, library, why)
	}
	cands, err := candidates(l)
	if err != nil {
		C.free(unsafe.Pointer(l))
		return nil, err
	}
	var why []string
	for _, c := range cands {
		ctx, err := openOn(l, c)
		if err == nil {
			return ctx, nil
		}
		why = append(why, c.name+": "+err.Error())
	}
	C.free(unsafe.Pointer(l))
	if len(why) == 0 {
		return nil, fmt.Errorf("%w: no display to try (libEGL has neither %s nor %s)", ErrNoEGL, deviceExt, surfacelessExt)
	}
	return nil, fmt.Errorf("%w: no OpenGL %d.%d core context (%s)", ErrNoEGL, contextMajor, contextMinorLeastAccept, strings.Join(why, "; "))
}

// candidates lists the displays to try: the EGL devices (CUDA's device 0 first), then surfaceless;
// with $TUMBLE_EGL_DEVICE set, that device alone.
func candidates(l *C.tbLib) ([]candidate, error) {
	client := C.GoString(C.tbQueryString(l, nil, eglExtensions)) // client extensions (EGL 1.5, EXT_client_extensions)
	has := func(ext string) bool { return slices.Contains(strings.Fields(client), ext) }
	want := -1
	s, set := os.LookupEnv(deviceEnv)
	if set && s == "surfaceless" {
		if !has(surfacelessExt) {
			return nil, fmt.Errorf("%w: $%s=surfaceless, but libEGL has no %s", ErrNoEGL, deviceEnv, surfacelessExt)
		}
		return []candidate{{name: "surfaceless", platform: eglPlatformSurfaceless, cuda: -1}}, nil
	}
	if set && s != "" {
		n, err := strconv.Atoi(s)
		if err != nil || n < 0 {
			return nil, fmt.Errorf("%w: $%s=%q: want a device number (0, 1, ...) or surfaceless", ErrNoEGL, deviceEnv, s)
		}
		want = n
	}
	var devs []candidate
	if has(deviceExt) {
		var raw [maxDevices]C.EGLDeviceEXT
		n := int(C.tbDevices(l, &raw[0], maxDevices))
		for i := 0; i < n; i++ {
			d := raw[i]
			exts := C.GoString(C.tbDeviceString(l, d, eglExtensions))
			c := candidate{platform: eglPlatformDevice, native: d, cuda: -1}
			var desc []string
			if strings.Contains(exts, deviceCUDAExt) {
				if v := int(C.tbDeviceAttrib(l, d, eglCUDADeviceNV)); v >= 0 {
					c.cuda = v
					desc = append(desc, fmt.Sprintf("CUDA device %d", v))
				}
			}
			if p := C.tbDeviceString(l, d, eglDRMDeviceFile); p != nil {
				desc = append(desc, C.GoString(p))
			}
			if strings.Contains(exts, deviceSoftwareExt) {
				desc = append(desc, "software")
			}
			c.name = fmt.Sprintf("device %d", i)
			if len(desc) > 0 {
				c.name += " (" + strings.Join(desc, ", ") + ")"
			}
			devs = append(devs, c)
		}
	}
	if want >= 0 {
		if want >= len(devs) {
			return nil, fmt.Errorf("%w: $%s=%d, but EGL lists %d devices", ErrNoEGL, deviceEnv, want, len(devs))
		}
		return devs[want : want+1], nil
	}
	// CUDA's device 0 first (the CUDA backend runs there, and interop needs GL on the same GPU), then
	// the others as listed.
	slices.SortStableFunc(devs, func(a, b candidate) int {
		return boolInt(a.cuda != 0) - boolInt(b.cuda != 0)
	})
	if has(surfacelessExt) {
		devs = append(devs, candidate{name: "surfaceless", platform: eglPlatformSurfaceless, cuda: -1})
	}
	return devs, nil
}

func boolInt(b bool) int {
	if b {
		return 1
	}
	return 0
}

// openOn initialises one display and makes a context current on it, or says which step failed.
func openOn(l *C.tbLib, c candidate) (*Context, error) {
	dpy := C.tbPlatformDisplay(l, c.platform, c.native)
	if dpy == nil {
		return nil, stepError(l, "eglGetPlatformDisplayEXT")
	}
	var major, minor C.EGLint
	if C.tbInitialize(l, dpy, &major, &minor) == 0 {
		return nil, stepError(l, "eglInitialize")
	}
	fail := func(step string) (*Context, error) {
		err := stepError(l, step)
		C.tbTerminate(l, dpy)
		return nil, err
	}
	if C.tbBindAPI(l, eglOpenGLAPI) == 0 {
		return fail("eglBindAPI(EGL_OPENGL_API)")
	}
	attrs := cInts(eglSurfaceType, eglPbufferBit, eglRenderableType, eglOpenGLBit,
		eglRedSize, 8, eglGreenSize, 8, eglBlueSize, 8, eglNone)
	defer C.free(unsafe.Pointer(attrs))
	var cfg C.EGLConfig
	switch n := C.tbChooseConfig(l, dpy, attrs, &cfg); {
	case n < 0:
		return fail("eglChooseConfig")
	case n == 0:
		C.tbTerminate(l, dpy)
		return nil, errors.New("eglChooseConfig: no configuration renders OpenGL to a pbuffer")
	}
	var ctx C.EGLContext
	for _, m := range []int{contextMinorWanted, contextMinorLeastAccept} {
		ca := cInts(eglContextMajor, contextMajor, eglContextMinor, m, eglContextProfileMask, eglContextCoreBit, eglNone)
		ctx = C.tbCreateContext(l, dpy, cfg, ca)
		C.free(unsafe.Pointer(ca))
		if ctx != nil {
			break
		}
	}
	if ctx == nil {
		return fail(fmt.Sprintf("eglCreateContext(OpenGL %d.%d core)", contextMajor, contextMinorLeastAccept))
	}
	out := &Context{lib: l, dpy: dpy, ctx: ctx}
	dexts := C.GoString(C.tbQueryString(l, dpy, eglExtensions))
	if !slices.Contains(strings.Fields(dexts), surfacelessContextExt) ||
		C.tbMakeCurrent(l, dpy, nil, ctx) == 0 {
		pa := cInts(eglWidth, pbufferSide, eglHeight, pbufferSide, eglNone)
		out.srf = C.tbPbuffer(l, dpy, cfg, pa)
		C.free(unsafe.Pointer(pa))
		if out.srf == nil || C.tbMakeCurrent(l, dpy, out.srf, ctx) == 0 {
			err := stepError(l, "eglMakeCurrent")
			out.release()
			return nil, err
		}
	}
	out.Display = fmt.Sprintf("%s, EGL %d.%d by %s", c.name, int(major), int(minor),
		C.GoString(C.tbQueryString(l, dpy, eglVendor)))
	return out, nil
}

// cInts is a C array of EGLints (free it).
func cInts(v ...int) *C.EGLint {
	p := (*C.EGLint)(C.malloc(C.size_t(len(v)) * C.size_t(unsafe.Sizeof(C.EGLint(0)))))
	s := unsafe.Slice(p, len(v))
	for i, x := range v {
		s[i] = C.EGLint(x)
	}
	return p
}

// stepError names the failed call and EGL's error code.
func stepError(l *C.tbLib, step string) error {
	return fmt.Errorf("%s failed (%s)", step, errorName(int(C.tbGetError(l))))
}

// errorName is an EGL error code's name.
func errorName(code int) string {
	names := map[int]string{eglSuccess: "EGL_SUCCESS", eglNotInitialized: "EGL_NOT_INITIALIZED",
		eglBadAccess: "EGL_BAD_ACCESS", eglBadAlloc: "EGL_BAD_ALLOC", eglBadAttribute: "EGL_BAD_ATTRIBUTE",
		eglBadConfig: "EGL_BAD_CONFIG", eglBadContext: "EGL_BAD_CONTEXT", eglBadDisplay: "EGL_BAD_DISPLAY",
		eglBadMatch: "EGL_BAD_MATCH", eglBadParameter: "EGL_BAD_PARAMETER", eglContextLost: "EGL_CONTEXT_LOST"}
	if n, ok := names[code]; ok {
		return n
	}
	return fmt.Sprintf("EGL error 0x%x", code)
}

// ProcAddr is eglGetProcAddress, for gl.InitWithProcAddrFunc.
func (c *Context) ProcAddr(name string) unsafe.Pointer {
	cs := C.CString(name)
	defer C.free(unsafe.Pointer(cs))
	return C.tbProcAddress(c.lib, cs)
}

// Close releases the context and the display. The library stays loaded (NVIDIA's does not unload
// cleanly, and a later Open loads it again at no cost).
func (c *Context) Close() {
	if c.lib == nil {
		return
	}
	c.release()
	C.free(unsafe.Pointer(c.lib))
	c.lib = nil
}

// release makes nothing current and destroys what was made.
func (c *Context) release() {
	C.tbMakeCurrent(c.lib, c.dpy, nil, nil)
	if c.srf != nil {
		C.tbDestroySurface(c.lib, c.dpy, c.srf)
	}
	C.tbDestroyContext(c.lib, c.dpy, c.ctx)
	C.tbTerminate(c.lib, c.dpy)
}
