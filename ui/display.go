package ui

/*
#cgo LDFLAGS: -lX11
#include <stdlib.h>
#include <X11/Xlib.h>

static void *openDisplay(const char *name) { return (void *)XOpenDisplay(name); }
static void closeDisplay(void *d) { XCloseDisplay((Display *)d); }
*/
import "C"

import (
	"errors"
	"fmt"
	"os"
	"time"
	"unsafe"
)

// ErrNoDisplay is wrapped by the errors of CheckDisplay and Run when no window can be opened.
var ErrNoDisplay = errors.New("no display")

// display is a connection to the X server held while GLFW starts. go-gl/glfw's Init returns nil when
// it cannot open the display and the next GLFW call panics, so the app opens the display itself
// first. Holding that connection open also keeps a virtual server (Xvfb, which resets when its last
// client leaves) from resetting under GLFW's own connection.
type display struct{ p unsafe.Pointer }

// openDisplay connects to $DISPLAY, retrying for a second (a server that is resetting refuses
// connections for a moment).
func openDisplay() (*display, error) {
	d := os.Getenv("DISPLAY")
	if d == "" {
		if os.Getenv("WAYLAND_DISPLAY") != "" {
			return nil, fmt.Errorf("%w: $WAYLAND_DISPLAY is set but $DISPLAY is empty (this build of GLFW needs X11 or XWayland)", ErrNoDisplay)
		}
		return nil, fmt.Errorf("%w: $DISPLAY is empty", ErrNoDisplay)
	}
	cs := C.CString(d)
	defer C.free(unsafe.Pointer(cs))
	for try := 0; ; try++ {
		if p := C.openDisplay(cs); p != nil {
			return &display{p: p}, nil
		}
		if try == 10 {
			return nil, fmt.Errorf("%w: cannot open the X display %q", ErrNoDisplay, d)
		}
		time.Sleep(100 * time.Millisecond)
	}
}

func (d *display) close() { C.closeDisplay(d.p) }

// CheckDisplay says whether a window can be opened: $DISPLAY names an X server that accepts a
// connection. The error wraps ErrNoDisplay.
func CheckDisplay() error {
	d, err := openDisplay()
	if err != nil {
		return err
	}
	d.close()
	return nil
}
