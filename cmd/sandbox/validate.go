package main

import (
	"fmt"
	"io"

	"tumble/scenes"
)

// cmdValidate is "sandbox validate FILE...": check each scene file, and that it builds a world. It
// prints one line per file and exits 1 if any is refused.
func cmdValidate(args []string, stdout, stderr io.Writer) int {
	if len(args) == 0 || args[0] == "-h" || args[0] == "-help" || args[0] == "--help" {
		fmt.Fprintln(stderr, "usage: sandbox validate FILE...")
		if len(args) > 0 {
			return exitOK
		}
		return exitUsage
	}
	code := exitOK
	for _, path := range args {
		s, err := readSceneFile(path, stderr)
		if err == nil {
			_, err = s.World(scenes.Options{})
		}
		if err != nil {
			code = fail(stderr, "%v", err)
			continue
		}
		fmt.Fprintf(stdout, "%s: ok (%d bodies, %d joints)\n", path, len(s.Bodies), len(s.Joints))
	}
	return code
}
