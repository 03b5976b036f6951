package ui

/*
#cgo LDFLAGS: -lX11
#include <stdlib.h>
#include <X11/Xlib.h>

static int canOpen(const char *name) {
	Display *d = XOpenDisplay(name);
	if (d == NULL) return 0;
	XCloseDisplay(d);
	return 1;
}
*/
import "C"

import (
	"fmt"
	"os"
	"unsafe"
)

// CheckDisplay says whether a window can be opened: $DISPLAY names an X server that accepts a
// connection. go-gl/glfw's Init returns nil without a display and the next GLFW call panics, so the
// app asks here first. (GLFW is built for X11; a Wayland session needs XWayland, which sets DISPLAY.)
func CheckDisplay() error {
	d := os.Getenv("DISPLAY")
	if d == "" {
		if os.Getenv("WAYLAND_DISPLAY") != "" {
			return fmt.Errorf("no X display: $WAYLAND_DISPLAY is set but $DISPLAY is empty (this build of GLFW needs X11 or XWayland)")
		}
		return fmt.Errorf("no display: $DISPLAY is empty")
	}
	cs := C.CString(d)
	defer C.free(unsafe.Pointer(cs))
	if C.canOpen(cs) == 0 {
		return fmt.Errorf("no display: cannot open the X display %q", d)
	}
	return nil
}
