package ui

import (
	"fmt"
	"math"

	"github.com/inkyblackness/imgui-go/v4"

	"tumble/sim"
	"tumble/ui/command"
)

// jointInspector shows joint k's own state (anchors and axis now, where it stands against its limits,
// the force it carries) and edits its own limits, motor, friction and break force in place.
func (a *App) jointInspector(k int) {
	g := &a.w
	var (
		d   sim.JointDef
		st  sim.JointState
		ok  bool
		nA  string
		nB  = "world"
		deg = float32(180 / 3.14159265)
	)
	// Peek, not View: the joint's definition and its bodies' names are the host's, and JointState
	// reads the joint's two bodies alone from a backend; a View would read every body back each frame.
	a.S.Peek(func(w *sim.World) {
		if k >= w.NumJoints() {
			return
		}
		ok = true
		d, st = w.Joint(k), w.JointState(k)
		if i, live := w.Index(d.BodyA); live {
			nA = w.Bodies.Name[i]
		}
		if i, live := w.Index(d.BodyB); live {
			nB = w.Bodies.Name[i]
		}
	})
	if !ok {
		return
	}
	imgui.Separator()
	imgui.Textf("joint %d: %s, %s - %s", k, d.Type, nA, nB)
	imgui.Textf("anchor on A (%.2f, %.2f, %.2f)", st.AnchorA[0], st.AnchorA[1], st.AnchorA[2])
	imgui.Textf("anchor on B (%.2f, %.2f, %.2f)", st.AnchorB[0], st.AnchorB[1], st.AnchorB[2])
	if d.Type != sim.Fixed {
		imgui.Textf("axis (%.2f, %.2f, %.2f)", st.Axis[0], st.Axis[1], st.Axis[2])
	}
	lim := ""
	if d.HasLimits {
		lim = fmt.Sprintf(" (limits %.1f to %.1f)", d.Limits[0]*deg, d.Limits[1]*deg)
	}
	servo := d.HasMotor && d.Motor.Mode == sim.MotorPosition
	switch d.Type {
	case sim.Hinge:
		if servo {
			lim += fmt.Sprintf(", servo to %.1f", d.Motor.Target*deg)
		}
		imgui.Textf("angle %.1f deg%s", st.Coordinate*deg, lim)
	case sim.Piston:
		if d.HasLimits {
			lim = fmt.Sprintf(" (limits %.3f to %.3f)", d.Limits[0], d.Limits[1])
		}
		if servo {
			lim += fmt.Sprintf(", servo to %.3f", d.Motor.Target)
		}
		imgui.Textf("travel %.3f m%s", st.Coordinate, lim)
	case sim.Ball:
		imgui.Textf("swing %.1f deg   twist %.1f deg", st.Swing*deg, st.Coordinate*deg)
	}
	if f := st.Force; f == f && st.Asleep {
		g.text(fmt.Sprintf("force %.1f N, asleep", f))
		tip("the island sleeps: this is the force the joint held when it fell asleep")
	} else if f == f {
		g.text(fmt.Sprintf("force %.1f N", f))
	} else {
		textDisabled("force: not known yet (no step since the joint was made)")
	}
	edit := func(what string, e command.JointEdit) { a.do(what, command.EditJoint(k, e)) }
	id := a.panel.commit.jointID
	of := fmt.Sprint("joint ", id) // the fields' copies belong to this joint
	if d.Type == sim.Hinge || d.Type == sim.Piston {
		unit, scale := "m", float32(1)
		if d.Type == sim.Hinge {
			unit, scale = "deg", deg
		}
		on := d.HasLimits
		if g.checkbox("limits##own", &on) {
			e := command.JointEdit{HasLimits: &on}
			if on && d.Limits == ([2]float32{}) {
				// Never set: a range that holds the joint where it is now, not a lock at the creation pose.
				half := float32(1) // m
				if d.Type == sim.Hinge {
					half = math.Pi / 2
				}
				l := [2]float32{min(st.Coordinate, 0) - half, max(st.Coordinate, 0) + half}
				e.Limits = &l
			}
			edit("joint limits", e)
		}
		if on {
			lim := [2]float32{d.Limits[0] * scale, d.Limits[1] * scale}
			a.commitDrag2("lo, hi, "+unit+"##own", of, lim, 0.1, -3600, 3600, "%.2f", func(lim [2]float32) {
				if lim[0] <= lim[1] {
					l := [2]float32{lim[0] / scale, lim[1] / scale}
					a.editJointID(id, "joint limits", command.JointEdit{Limits: &l})
				}
			})
		} else {
			keepLine("no limits")
		}
		motor := d.HasMotor
		if g.checkbox("motor##own", &motor) {
			e := command.JointEdit{HasMotor: &motor}
			if motor && d.Motor.MaxForce == 0 {
				// Never set: a motor that moves the joint (1 rad/s or 1 m/s, up to 100 N m or N), not one
				// of zero force that would change nothing.
				e.Motor = &sim.Motor{Speed: 1, MaxForce: 100}
			}
			edit("joint motor", e)
		}
		g.sameLine("checkbox", "servo##own")
		if g.checkbox("servo##own", &servo) {
			// A servo switched on holds the joint where it is now (its target the coordinate), with the
			// motor's force, or 100 N m or N where none was set; switched off it is a speed motor again.
			m := d.Motor
			if m.MaxForce == 0 {
				m.MaxForce = 100
			}
			m.Mode = sim.MotorSpeed
			if servo {
				m.Mode, m.Target = sim.MotorPosition, min(max(st.Coordinate, -math.Pi), math.Pi)
			}
			edit("joint servo", command.JointEdit{Motor: &m})
			motor = true
		}
		tip("a servo drives the joint to a target angle or travel (at most the max speed, 0: no limit); otherwise the motor drives it at a speed")
		u := unitOf(d.Type)
		if motor && servo {
			m := [3]float32{d.Motor.Target * u.scale, d.Motor.Speed * u.scale, d.Motor.MaxForce}
			a.commitDrag3(u.servo+"##own", of, m, 0.05*u.scale, -u.targetMax, 1e5, "%.2f", func(m [3]float32) {
				if sm, ok := u.servoOf(m); ok {
					a.editJointID(id, "joint servo", command.JointEdit{Motor: &sm})
				}
			})
			tip(servoTip)
		} else if motor {
			m := [2]float32{d.Motor.Speed * u.scale, d.Motor.MaxForce}
			a.commitDrag2(u.motor+"##own", of, m, 0.05*u.scale, -100*u.scale, 1e5, "%.2f", func(m [2]float32) {
				if m[1] >= 0 {
					a.editJointID(id, "joint motor", command.JointEdit{Motor: &sim.Motor{Speed: m[0] / u.scale, MaxForce: m[1]}})
				}
			})
		} else {
			keepLine("no motor")
		}
	}
	if d.Type == sim.Ball {
		sw := d.Swing * deg
		a.commitSlider("swing cone, deg", of, sw, 0, 180, "%.3f", 0, func(sw float32) {
			s := sw / deg
			a.editJointID(id, "swing cone", command.JointEdit{Swing: &s})
		})
		tip("the largest angle between the bodies' twist axes; 0: no cone")
		tw := d.HasTwist
		if g.checkbox("twist limits", &tw) {
			edit("twist limits", command.JointEdit{HasTwist: &tw})
		}
		if tw {
			lim := [2]float32{d.Twist[0] * deg, d.Twist[1] * deg}
			a.commitDrag2("twist lo, hi, deg", of, lim, 0.5, -180, 180, "%.1f", func(lim [2]float32) {
				if lim[0] <= lim[1] {
					l := [2]float32{lim[0] / deg, lim[1] / deg}
					a.editJointID(id, "twist limits", command.JointEdit{Twist: &l})
				}
			})
		} else {
			keepLine("no twist limits")
		}
	}
	if d.Type == sim.Fixed {
		keepLine("no friction (a fixed joint)")
	} else {
		a.commitDrag(unitOf(d.Type).friction, of, d.Friction, 0.05, 0, 1e5, "%.2f", func(f float32) {
			if f >= 0 {
				a.editJointID(id, "joint friction", command.JointEdit{Friction: &f})
			}
		})
		tip(frictionTip)
	}
	bf := d.BreakForce
	a.commitDrag("break force, N", of, bf, 1, 0, 1e7, "%.0f", func(bf float32) {
		if bf >= 0 {
			a.editJointID(id, "break force", command.JointEdit{BreakForce: &bf})
		}
	})
	tip("the joint breaks at a force above this; 0: never")
}
