package main

import (
	"fmt"
	"io"

	"tumble/sim"
)

// restWatch follows a run for the check of rest (run -settle): with sleeping on, the first step at
// which every dynamic body was asleep.
type restWatch struct {
	w        *sim.World
	sleep    bool
	dynamic  int // the world's dynamic bodies (a run adds or removes none)
	asleepAt int // the first step with every dynamic body asleep; 0: none yet
}

func newRestWatch(w *sim.World) *restWatch {
	return &restWatch{w: w, sleep: w.Resolved().Sleep, dynamic: w.Bodies.Motion(sim.RestSpeed).Dynamic}
}

// step notes step i's sleep from the step's count of sleeping bodies (World.Stats.Asleep), which
// every backend keeps: a device backend's bodies on the host are those of the last Sync, and a Sync
// each step would read back every body to learn one number.
func (r *restWatch) step(i int) {
	if !r.sleep || r.asleepAt != 0 {
		return
	}
	if r.w.Stats.Asleep >= r.dynamic {
		r.asleepAt = i
	}
}

// report writes the check's one line: after the run's steps, the largest speed and its body, the count
// of dynamic bodies moving faster than sim.RestSpeed, the largest angular speed and its body, and with
// sleeping on the bodies awake and when all first slept.
func (r *restWatch) report(out io.Writer, scene string, steps int, dt float64) {
	b := &r.w.Bodies
	m := b.Motion(sim.RestSpeed)
	name := func(i int) string {
		if i < 0 {
			return "none"
		}
		return b.Name[i]
	}
	fmt.Fprintf(out, "settle: %s after %.6g s (%d steps): largest speed %.4f m/s (%s), %d of %d bodies above %g m/s, largest angular speed %.4f rad/s (%s)",
		scene, float64(steps)*dt, steps, m.Speed, name(m.Fastest), m.Moving, m.Dynamic, sim.RestSpeed, m.AngularSpeed, name(m.Spinning))
	if r.sleep {
		fmt.Fprintf(out, "; sleeping: %d of %d bodies awake", m.Awake, m.Dynamic)
		if r.asleepAt > 0 {
			fmt.Fprintf(out, ", all asleep from %.6g s", float64(r.asleepAt)*dt)
		} else {
			fmt.Fprint(out, ", never all asleep")
		}
	}
	fmt.Fprintln(out)
}
