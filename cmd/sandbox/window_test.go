package main

import (
	"strings"
	"testing"
)

// TestWindowBackendFlagIsChecked: a backend the window does not know is a usage error before any
// window opens (the window tests in package ui cover cpu, cuda and emu themselves).
func TestWindowBackendFlagIsChecked(t *testing.T) {
	t.Setenv("DISPLAY", "")
	code, _, errs := sandbox("-backend", "vulkan")
	if code != exitUsage || !strings.Contains(errs, "want cpu, cuda or emu") {
		t.Errorf("code %d, stderr %q", code, errs)
	}
	var out, errb strings.Builder
	cmdWindow([]string{"-h"}, &out, &errb)
	if !strings.Contains(out.String()+errb.String(), "-backend") {
		t.Errorf("the window's -h does not list -backend: %q", out.String()+errb.String())
	}
}
