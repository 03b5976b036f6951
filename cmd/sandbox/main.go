// Command sandbox is Tumble's front end. With no arguments (or only flags) it opens the window app
// (package ui), or renders a scene off screen to a PNG with -screenshot; its headless commands (run, bench, soak, scenes, validate) load scene files or presets, step them
// and report, as ../shared/docs/CONTRACT.md specifies. docs/SCENES.md is the user's reference.
package main

import (
	"fmt"
	"io"
	"os"
	"strings"

	"tumble/sim"
)

func main() {
	os.Exit(run(os.Args[1:], os.Stdout, os.Stderr))
}

// Exit statuses.
const (
	exitOK    = 0
	exitError = 1 // a bad scene, a failed step, an I/O error
	exitUsage = 2 // a bad command line, or no display for the window app
)

// usage is the help text; the solvers and broad phases are sim's own lists, so a new one shows.
var usage = `usage:
  sandbox [-scene FILE|PRESET] [VIEW FLAGS]                     the window app
  sandbox -scene FILE|PRESET -frames N -screenshot OUT.png [-video OUT] [-gl auto|glfw|egl] [-perf] [-orbit DEG] [-cpuprofile FILE] [VIEW FLAGS]
                                  render N frames off screen (one step each) to a PNG (and a video);
                                  without a display through EGL (-gl, default $TUMBLE_GL, else auto)
    VIEW FLAGS: -width W -height H -no-panel -select BODY -color body|type|sleep|contact -yaw DEG -pitch DEG
                -debug contacts,normals,friction,joints,aabbs,com,velocities,bvh
                -open scene,simulation,spawn,shoot,joints,inspect,debug,stats
  sandbox run -scene FILE|PRESET -steps N|-settle SECONDS [-trace OUT.csv] [-every K] [-backend cpu|cuda|emu] [-solver NAME] [-substeps N] [-broadphase NAME] [-bvh-refit G] [-workers N] [-grains auto|coarse|fine] [-islands=false] [-lanes 8|16] [-scalar] [-cpuprofile FILE]
  sandbox bench -scene FILE|PRESET [-steps N] [-warmup N] [-backend cpu|cuda|emu] [-solver NAME] [-substeps N] [-broadphase NAME] [-bvh-refit G] [-workers N] [-grains auto|coarse|fine] [-islands=false] [-lanes 8|16] [-scalar] [-cpuprofile FILE]
    recording: [-check-determinism [-check-workers 1,2]] [-record OUT.replay] [-record-budget MB] [-record-keyframe K]
  sandbox soak -scene FILE|PRESET [-steps N] [-sample N] [-warm SECONDS] [-max-speed M/S] [-max-spin RAD/S] [-row] [the run flags]
                                  a long run: memory growth, blow-ups, the slowest step (make soak)
  sandbox replay FILE [-trace OUT.csv] [-from A] [-to B] [-every K] [-check-determinism [-workers N]]
                                  describe a replay file, trace any range of it, re-simulate it
  sandbox scenes                  list the preset scenes
  sandbox scenes -l               the presets with their group, bodies, joints and a description
  sandbox scenes export PRESET    write a preset as a scene file to standard output
  sandbox validate FILE...        check scene files
  sandbox help                    this text
Run "sandbox COMMAND -h" for a command's flags. Solvers: ` + sim.SolverNames + `.
Broad phases: lbvh (default), sap, grid, brute.
`

// run is the whole program: it parses args (without the program name), writes to stdout and stderr,
// and returns the exit status.
func run(args []string, stdout, stderr io.Writer) int {
	if len(args) == 0 || strings.HasPrefix(args[0], "-") && !isHelp(args[0]) {
		return cmdWindow(args, stdout, stderr)
	}
	switch args[0] {
	case "run":
		return cmdRun(args[1:], stdout, stderr)
	case "bench":
		return cmdBench(args[1:], stdout, stderr)
	case "soak":
		return cmdSoak(args[1:], stdout, stderr)
	case "scenes":
		return cmdScenes(args[1:], stdout, stderr)
	case "validate":
		return cmdValidate(args[1:], stdout, stderr)
	case "replay":
		return cmdReplay(args[1:], stdout, stderr)
	case "help", "-h", "-help", "--help":
		fmt.Fprint(stdout, usage)
		return exitOK
	}
	fmt.Fprintf(stderr, "sandbox: unknown command %q\n%s", args[0], usage)
	return exitUsage
}

func isHelp(a string) bool { return a == "-h" || a == "-help" || a == "--help" }

// fail reports an error the sandbox way and returns exitError.
func fail(stderr io.Writer, format string, a ...any) int {
	fmt.Fprintf(stderr, "sandbox: "+format+"\n", a...)
	return exitError
}
