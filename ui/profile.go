package ui

import (
	"fmt"
	"time"

	"github.com/inkyblackness/imgui-go/v4"

	"tumble/ui/command"
)

// The profile table (in the Stats section): each stage's time over a window of the latest steps, its
// average and maximum, as the session recorded every step (command.Session.Profile), not sampled once a
// frame: a frame may take several steps, or none.

// profileState is the table's window between frames.
type profileState struct {
	window int32
	shown  command.Profile // the table as last shown
}

// defaultProfileWindow is the table's window at first: two seconds at 60 Hz.
const defaultProfileWindow = 120

// profileTable draws the table.
func (a *App) profileTable() {
	g := &a.w
	ps := &a.tools.profile
	if ps.window == 0 {
		ps.window = defaultProfileWindow
	}
	g.sliderInt("profile window, steps", &ps.window, 10, command.MaxProfileSteps)
	tip("the average and maximum below are over this many of the latest steps")
	ps.shown = a.S.Profile(int(ps.window))
	p := &ps.shown
	if p.Steps == 0 {
		textDisabled("no step taken yet")
		return
	}
	ms := func(d time.Duration) string { return fmt.Sprintf("%.3f", float64(d.Nanoseconds())/1e6) }
	flags := imgui.TableFlagsBorders | imgui.TableFlagsRowBg | imgui.TableFlagsSizingStretchProp
	if !g.beginTable("profile", 5, flags, imgui.Vec2{}) {
		return
	}
	imgui.TableSetupColumn("stage")
	imgui.TableSetupColumn("last ms")
	imgui.TableSetupColumn("avg ms")
	imgui.TableSetupColumn("max ms")
	imgui.TableSetupColumn("share")
	imgui.TableHeadersRow()
	row := func(name string, r command.StageProfile) {
		imgui.TableNextRow()
		for c, s := range []string{name, ms(r.Last), ms(r.Avg), ms(r.Max), fmt.Sprintf("%.0f%%", 100*r.Proportion)} {
			imgui.TableSetColumnIndex(c)
			imgui.Text(s)
		}
	}
	for _, r := range p.Stages {
		row(r.Stage.String(), r)
	}
	row(fmt.Sprintf("step (%d)", p.Steps), p.Total)
	g.endTable()
}
