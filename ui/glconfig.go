package ui

import (
	"errors"
	"fmt"
	"io"
	"os"
	"strings"

	"github.com/go-gl/glfw/v3.3/glfw"
)

// ErrNoGLConfig is wrapped by Run's error when the display offers no OpenGL 4.5 core configuration
// (NVIDIA's GLX under Xvfb offers none; nor does an 8-bit visual).
var ErrNoGLConfig = errors.New("no OpenGL 4.5 core configuration")

// createWindow opens the window with an OpenGL 4.6 core context, or 4.5 where that is the most
// (Mesa's llvmpipe). go-gl/glfw panics on a GLFW error it did not expect (FormatUnavailable: the
// display has no framebuffer configuration for the context) and prints GLFW's other errors to stderr
// itself, so both are caught here and returned as one error wrapping ErrNoGLConfig. On failure GLFW is
// terminated.
func createWindow(width, height int, title string) (win *glfw.Window, err error) {
	var glfwSaid string
	quiet(&glfwSaid, func() {
		for _, minor := range []int{6, 5} {
			glfw.WindowHint(glfw.ContextVersionMinor, minor)
			if win, err = createWindowOnce(width, height, title); err == nil {
				return
			}
		}
		glfw.Terminate() // prints the errors GLFW left unread
	})
	if err == nil {
		return win, nil
	}
	msg := err.Error()
	// GLFW's first complaint is often the more telling one ("No GLXFBConfigs returned").
	for _, l := range strings.Split(glfwSaid, "\n") {
		if i := strings.Index(l, "has occurred: "); i >= 0 && !strings.Contains(msg, l[i+14:]) {
			msg = l[i+14:] + "; " + msg
		}
	}
	return nil, fmt.Errorf("%w on display %q (%s)", ErrNoGLConfig, os.Getenv("DISPLAY"), msg)
}

// createWindowOnce is glfw.CreateWindow with its panics on a *glfw.Error returned as errors.
func createWindowOnce(width, height int, title string) (win *glfw.Window, err error) {
	defer func() {
		if p := recover(); p != nil {
			e, ok := p.(*glfw.Error)
			if !ok {
				panic(p)
			}
			win, err = nil, e
		}
	}()
	return glfw.CreateWindow(width, height, title, nil, nil)
}

// quiet runs f with os.Stderr captured into *said (go-gl/glfw writes its "internal error" lines
// there). Where no pipe can be made it runs f as it is.
func quiet(said *string, f func()) {
	r, w, err := os.Pipe()
	if err != nil {
		f()
		return
	}
	done := make(chan string)
	go func() {
		b, _ := io.ReadAll(r)
		r.Close()
		done <- string(b)
	}()
	saved := os.Stderr
	os.Stderr = w
	defer func() {
		os.Stderr = saved
		w.Close()
		*said = <-done
	}()
	f()
}
