package gpu

import (
	"testing"

	"tumble/sim"
)

// TestEmulatedResistanceIsExact: the rolling and spinning resistance rows (solver.cu, sim's
// contact_resist.go) give the CPU's Jacobi step bit for bit on the emulator, through the bowling
// preset's ball and pins rolling, colliding and slowing, edits of the coefficients (doubled, then 0, then back), and
// friction switched off and on (which switches the rows). Without the rows doing something the run
// would equal one with every coefficient 0, which is checked not to be.
func TestEmulatedResistanceIsExact(t *testing.T) {
	for _, scene := range []string{"bowling"} {
		t.Run(scene, func(t *testing.T) {
			cpu := newWorld(t, scene)
			defer cpu.Close()
			dev := newWorld(t, scene)
			defer dev.Close()
			free := newWorld(t, scene) // the same on the CPU with no resistance
			defer free.Close()
			must(t, dev.SetBackend(NewEmulated()))
			defer dev.SetBackend(nil)
			roll := append([]float32(nil), cpu.Bodies.RollingResistance...)
			spin := append([]float32(nil), cpu.Bodies.SpinningResistance...)
			scale := func(f float32) func(w *sim.World) {
				return func(w *sim.World) {
					for i := range w.Bodies.Len() {
						must(t, w.SetResistance(w.HandleAt(i), f*roll[i], f*spin[i]))
					}
				}
			}
			scale(0)(free)
			setFriction := func(on bool) func(w *sim.World) {
				return func(w *sim.World) {
					s := w.Settings()
					s.NoFriction = !on
					w.SetSettings(s)
				}
			}
			phases := []struct {
				what  string
				edit  func(w *sim.World)
				steps int
			}{
				{"roll", func(*sim.World) {}, 120},
				{"resistance x 2", scale(2), 30},
				{"resistance 0", scale(0), 20},
				{"resistance back", scale(1), 30},
				{"friction off", setFriction(false), 10},
				{"friction on", setFriction(true), 30},
			}
			for _, ph := range phases {
				must(t, dev.Sync())
				ph.edit(cpu)
				ph.edit(dev)
				for step := 1; step <= ph.steps; step++ {
					must(t, cpu.Step(), dev.Step(), dev.Sync(), free.Step())
					cb, db := &cpu.Bodies, &dev.Bodies
					for i := range cb.Len() {
						if cb.Position[i] != db.Position[i] || cb.Velocity[i] != db.Velocity[i] ||
							cb.AngularVelocity[i] != db.AngularVelocity[i] {
							t.Fatalf("%s, step %d: %s differs: CPU x %v w %v, device x %v w %v", ph.what, step,
								cb.Name[i], cb.Position[i], cb.AngularVelocity[i], db.Position[i], db.AngularVelocity[i])
						}
					}
				}
			}
			same := true
			for i := range cpu.Bodies.Len() {
				same = same && cpu.Bodies.Position[i] == free.Bodies.Position[i]
			}
			if same {
				t.Fatal("the run with resistance equals the one without: the rows did nothing")
			}
		})
	}
}
