package main

import (
	"fmt"
	"io"
	"strings"
	"text/tabwriter"

	"tumble/scenes"
)

// cmdScenes is "sandbox scenes" (list the presets, one name a line), "sandbox scenes -l" (the
// catalog: group, counts and a description per preset) and "sandbox scenes export PRESET" (write one
// as a scene file).
func cmdScenes(args []string, stdout, stderr io.Writer) int {
	switch {
	case len(args) == 0:
		for _, n := range scenes.Names() {
			fmt.Fprintln(stdout, n)
		}
		return exitOK
	case len(args) == 1 && args[0] == "-l":
		tw := tabwriter.NewWriter(stdout, 0, 0, 2, ' ', 0)
		fmt.Fprintln(tw, "name\tgroup\tbodies\tjoints\tdescription")
		for _, in := range scenes.Catalog() {
			fmt.Fprintf(tw, "%s\t%s\t%d\t%d\t%s\n", in.Name, in.Group, in.Bodies, in.Joints, in.Description)
		}
		if err := tw.Flush(); err != nil {
			return fail(stderr, "%v", err)
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
	fmt.Fprintln(stderr, "usage: sandbox scenes [-l | export PRESET]")
	return exitUsage
}
