package ui

import (
	"fmt"
	"math"

	"github.com/inkyblackness/imgui-go/v4"

	"tumble/render/instance"
	"tumble/sim"
)

// The panel's layout rule (TestNoWidgetMovesWhenAnotherInItsSectionChanges): no widget's position in
// a section changes because of another widget's state in that section. A widget shown only in some
// states (a solver's own setting, a limits field while limits are on, a shape's second size) keeps
// its line while it is away: keepLine draws a greyed note there, one field high, so that the widgets
// below never move under the mouse.

// keepLine fills a widget's line while the widget is not shown: note, greyed and cut to one line, at
// the height of a field.
func keepLine(note string) {
	imgui.AlignTextToFramePadding()
	if note == "" {
		note = " "
	}
	textDisabled(fitText(note, imgui.ContentRegionAvail().X))
}

// colourNote is the Debug section's line under "colour by": what the colours of the mode mean (for
// the sleep state, how many bodies sleep). Every mode has one, so that none adds a line.
func colourNote(mode instance.ColorBy, asleep int, sleepOn bool) string {
	switch mode {
	case instance.ColorByType:
		return "dynamic orange, kinematic blue, static grey"
	case instance.ColorBySleep:
		if !sleepOn {
			return "sleeping is off (Simulation > sleeping): every body is awake"
		}
		return fmt.Sprintf("%d bodies asleep (blue), the rest awake (green)", asleep)
	case instance.ColorByContact:
		return "contact points touching each body: blue none, to red many"
	}
	return "each body its own colour"
}

// sizeNote fills the second size line of a shape that has one size field (every shape but the
// capsule, which has two): the body's volume, and its mass at the default density when mass is 0.
func sizeNote(kind int32, size [3]float32) string {
	var v float64
	switch kind {
	case 0:
		v = 8 * float64(size[0]) * float64(size[1]) * float64(size[2])
	case 1:
		r := float64(size[0])
		v = 4.0 / 3 * math.Pi * r * r * r
	case 3:
		return "each rock spawned is a new random hull"
	case 6, 7, 8: // table, chair, dumbbell
		return fmt.Sprintf("the %s's parts at %.2g x their size, mass from their densities", spawnKinds[kind].name, size[0])
	default:
		return "the bunny preset's hull, scaled"
	}
	return fmt.Sprintf("volume %.3g m^3: %.3g kg at 1000 kg/m^3", v, 1000*v)
}

// notRead is the note on the line of a setting the solver does not read.
func notRead(setting string, solver sim.SolverKind) string {
	return fmt.Sprintf("%s: not read by %s", setting, solver)
}

// relaxNote is the note on the relax passes' line while the slider is away.
func relaxNote(hasRelax bool, solver sim.SolverKind) string {
	if hasRelax {
		return "relax passes: relax is off"
	}
	return notRead("relax passes", solver)
}
