package ui

import (
	"errors"
	"fmt"
	"os"
	"strings"

	"tumble/render/egl"
)

// Where the OpenGL context comes from (Options.GL; the -gl flag and $TUMBLE_GL in cmd/sandbox).
const (
	// GLAuto picks EGL for a headless run (Frames > 0) when $DISPLAY is empty, GLFW otherwise; a
	// headless run whose display cannot give a context (the X server refuses, or has no OpenGL 4.5
	// configuration, as NVIDIA's GLX under Xvfb) then goes on through EGL, with one line saying so.
	GLAuto = "auto"
	// GLGLFW is a GLFW window on the X display (hidden for a headless run).
	GLGLFW = "glfw"
	// GLEGL is a headless context through EGL, with no window and no X server: headless runs only.
	GLEGL = "egl"
)

// GLNames are the values Options.GL takes ("" is GLAuto).
var GLNames = []string{GLAuto, GLGLFW, GLEGL}

// ErrNoEGL is wrapped by Run's error when an EGL context was wanted and none could be made (no
// libEGL, no display that initialises, no OpenGL configuration or 4.5 core context).
var ErrNoEGL = egl.ErrNoEGL

// ErrEGLNeedsHeadless is returned by Run for GL "egl" without Frames: EGL gives no window.
var ErrEGLNeedsHeadless = errors.New("-gl egl renders headless only: give -frames N with -screenshot or -video")

// chooseGL says whether the run starts on EGL, by Options.GL, Frames and $DISPLAY.
func chooseGL(opt Options) (bool, error) {
	switch opt.GL {
	case GLEGL:
		if opt.Frames == 0 {
			return false, ErrEGLNeedsHeadless
		}
		return true, nil
	case GLGLFW:
		return false, nil
	case GLAuto, "":
		return opt.Frames > 0 && os.Getenv("DISPLAY") == "", nil
	}
	return false, fmt.Errorf("unknown OpenGL context source %q (want %s)", opt.GL, strings.Join(GLNames, ", "))
}

// fallsBackToEGL says whether a failure to get a context from the display goes on through EGL: a
// headless run in auto mode whose display is missing, refuses, or has no OpenGL configuration.
func fallsBackToEGL(opt Options, err error) bool {
	return opt.Frames > 0 && (opt.GL == "" || opt.GL == GLAuto) &&
		(errors.Is(err, ErrNoDisplay) || errors.Is(err, ErrNoGLConfig))
}

// openEGL makes a headless EGL context current on this thread.
func (a *App) openEGL() error {
	c, err := egl.Open()
	if err != nil {
		return err
	}
	a.egl = c
	a.glContext = GLEGL + ": " + c.Display
	return nil
}

// GLContext says where the app's OpenGL context came from: "glfw", or "egl: " and the EGL display
// (it stays said after the app closes).
func (a *App) GLContext() string { return a.glContext }
