package main

import (
	"fmt"
	"io"
	"strings"

	"tumble/scenes"
)

// cmdScenes is "sandbox scenes" (list the presets, one name a line) and "sandbox scenes export PRESET"
// (write one as a scene file).
func cmdScenes(args []string, stdout, stderr io.Writer) int {
	switch {
	case len(args) == 0:
		for _, n := range scenes.Names() {
			fmt.Fprintln(stdout, n)
		}
		return exitOK
	case args[0] == "export" && len(args) == 2:
		s, ok := scenes.Preset(args[1])
		if !ok {
			return fail(stderr, "no preset named %q (presets: %s)", args[1], strings.Join(scenes.Names(), ", "))
		}
		if err := s.Save(stdout); err != nil {
			return fail(stderr, "%v", err)
		}
		return exitOK
	}
	fmt.Fprintln(stderr, "usage: sandbox scenes [export PRESET]")
	return exitUsage
}
