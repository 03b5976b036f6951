//go:build cuda

package ui

import (
	"bytes"
	"strings"
	"testing"

	"tumble/ui/command"
)

// On a GPU whose EGL context CUDA can share buffers with (scripts/gpu-run.sh's probe-interop check):
// the pile's frames come through interop, the kernel writing the contacts layer into the GL line
// buffer, and the probe (an overlap aimed through the middle of the view) is drawn over them: its
// vertices in the frame's overlay and its colours in the picture, which the same run without the
// probe lacks.
func TestProbeLinesOverCUDAInteropOnAGPU(t *testing.T) {
	run1 := func(probe bool) (int, *App, string) {
		var log bytes.Buffer
		opt := Options{Scene: "pile", Width: 640, Height: 400, Frames: 30, NoPanel: true, NoShadows: true,
			GL: GLEGL, Backend: command.BackendCUDA, Log: &log, Debug: []string{"contacts"}}
		if probe {
			opt.Debug = append(opt.Debug, "probe")
			opt.Setup = func(a *App) { a.tools.probe.mode, a.tools.probe.size = probeOverlap, [3]float32{1, 1, 1} }
		}
		img, a := run(t, opt)
		return probePixels(img), a, log.String()
	}
	with, a, log := run1(true)
	f := &a.frame
	if !strings.Contains(log, "interop on") || !f.Device || f.DeviceLines == 0 {
		t.Fatalf("not drawn through interop with device lines (device %v, %d device line vertices): %s", f.Device, f.DeviceLines, log)
	}
	n := 0
	for _, v := range f.Overlay {
		if v.Color == colProbe || v.Color == colProbeHit {
			n++
		}
	}
	without, _, _ := run1(false)
	t.Logf("%d device line vertices, %d probe vertices in the overlay (%d hits); probe-coloured pixels: %d with the probe, %d without",
		f.DeviceLines, n, len(a.tools.probe.hits), with, without)
	if n == 0 || with < without+50 {
		t.Errorf("the probe is not drawn over the interop frame")
	}
}
