package egl

import (
	"errors"
	"runtime"
	"strings"
	"testing"

	"github.com/go-gl/gl/v4.6-core/gl"
)

// openOrFail opens a context; the machines the tests run on have Mesa's EGL (make deps installs it).
func openOrFail(t *testing.T) *Context {
	t.Helper()
	c, err := Open()
	if err != nil {
		t.Fatalf("no EGL context: %v", err)
	}
	return c
}

// TestAHeadlessContextDrawsAndReadsBack: with no window and no display, the context is OpenGL 4.5 or
// later core, and a framebuffer cleared to a colour reads back as that colour.
func TestAHeadlessContextDrawsAndReadsBack(t *testing.T) {
	runtime.LockOSThread()
	defer runtime.UnlockOSThread()
	t.Setenv("DISPLAY", "")
	c := openOrFail(t)
	defer c.Close()
	if err := gl.InitWithProcAddrFunc(c.ProcAddr); err != nil {
		t.Fatalf("gl.InitWithProcAddrFunc: %v", err)
	}
	var major, minor, mask int32
	gl.GetIntegerv(gl.MAJOR_VERSION, &major)
	gl.GetIntegerv(gl.MINOR_VERSION, &minor)
	gl.GetIntegerv(gl.CONTEXT_PROFILE_MASK, &mask)
	if major < 4 || (major == 4 && minor < 5) || mask&gl.CONTEXT_CORE_PROFILE_BIT == 0 {
		t.Fatalf("OpenGL %d.%d, profile mask 0x%x: want 4.5 or later, core", major, minor, mask)
	}
	t.Logf("%s: %s, %s", c.Display, gl.GoStr(gl.GetString(gl.RENDERER)), gl.GoStr(gl.GetString(gl.VERSION)))
	const w, h = 8, 4
	var fbo, rb uint32
	gl.GenFramebuffers(1, &fbo)
	gl.BindFramebuffer(gl.FRAMEBUFFER, fbo)
	gl.GenRenderbuffers(1, &rb)
	gl.BindRenderbuffer(gl.RENDERBUFFER, rb)
	gl.RenderbufferStorage(gl.RENDERBUFFER, gl.RGBA8, w, h)
	gl.FramebufferRenderbuffer(gl.FRAMEBUFFER, gl.COLOR_ATTACHMENT0, gl.RENDERBUFFER, rb)
	if st := gl.CheckFramebufferStatus(gl.FRAMEBUFFER); st != gl.FRAMEBUFFER_COMPLETE {
		t.Fatalf("framebuffer status 0x%x", st)
	}
	gl.Viewport(0, 0, w, h)
	gl.ClearColor(1, 0.5, 0, 1)
	gl.Clear(gl.COLOR_BUFFER_BIT)
	px := make([]uint8, 4*w*h)
	gl.ReadPixels(0, 0, w, h, gl.RGBA, gl.UNSIGNED_BYTE, gl.Ptr(px))
	for i := 0; i < len(px); i += 4 {
		// 0.5 is 127 or 128 depending on the rounding of the implementation.
		if px[i] != 255 || px[i+1] < 127 || px[i+1] > 128 || px[i+2] != 0 || px[i+3] != 255 {
			t.Fatalf("pixel %d is %v, want (255, 127 or 128, 0, 255)", i/4, px[i:i+4])
		}
	}
	gl.DeleteRenderbuffers(1, &rb)
	gl.DeleteFramebuffers(1, &fbo)
}

// TestOpenTwiceInARow: a context is released cleanly, so the next one opens on the same thread (the
// app's tests open one per run), on each platform: Mesa's software device and surfaceless.
func TestOpenTwiceInARow(t *testing.T) {
	runtime.LockOSThread()
	defer runtime.UnlockOSThread()
	for _, env := range []string{"0", "surfaceless", "0"} {
		t.Setenv(deviceEnv, env)
		c := openOrFail(t)
		if want := map[string]string{"0": "device 0", "surfaceless": "surfaceless"}[env]; !strings.HasPrefix(c.Display, want) {
			t.Errorf("%s=%s: opened on %q", deviceEnv, env, c.Display)
		}
		if c.ProcAddr("glClear") == nil {
			t.Error("eglGetProcAddress found no glClear")
		}
		c.Close()
		c.Close() // a second Close does nothing
	}
}

// TestNoLibraryIsOneLine: without libEGL the error is one line naming the library and what to install.
func TestNoLibraryIsOneLine(t *testing.T) {
	saved := library
	library = "libEGL-not-here.so.1"
	defer func() { library = saved }()
	_, err := Open()
	if !errors.Is(err, ErrNoEGL) {
		t.Fatalf("err %v: want ErrNoEGL", err)
	}
	msg := err.Error()
	if strings.Contains(msg, "\n") || !strings.Contains(msg, "libEGL-not-here.so.1") || !strings.Contains(msg, "libegl1") {
		t.Errorf("%q: want one line naming the library and the packages", msg)
	}
}

// TestADeviceThatIsNotThereIsOneLine: $TUMBLE_EGL_DEVICE out of range, or not a number, is refused
// with one line naming the variable and its value.
func TestADeviceThatIsNotThereIsOneLine(t *testing.T) {
	for _, v := range []string{"99", "gpu0", "-1"} {
		t.Setenv(deviceEnv, v)
		_, err := Open()
		if !errors.Is(err, ErrNoEGL) || strings.Contains(err.Error(), "\n") ||
			!strings.Contains(err.Error(), deviceEnv) || !strings.Contains(err.Error(), strings.TrimPrefix(v, "-")) {
			t.Errorf("%s=%s: %v", deviceEnv, v, err)
		}
	}
}
