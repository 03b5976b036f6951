package command

import (
	"testing"

	"tumble/sim"
)

// BenchmarkContactTableOfOneBody: the Inspect section's table of one body's contacts on the pile
// (10,001 bodies) once it has landed, and for comparison every contact point of the world built and
// filtered by name, as the table did before it asked for that body's alone (go test ./ui/command
// -run '^$' -bench ContactTable; the set-up steps the pile 120 times first).
func BenchmarkContactTableOfOneBody(b *testing.B) {
	s, err := NewPreset("pile")
	if err != nil {
		b.Fatal(err)
	}
	if err := s.Steps(120); err != nil {
		b.Fatal(err)
	}
	s.View(func(w *sim.World) {
		name := w.Bodies.Name[5000]
		points := len(w.Contacts(nil))
		b.Run("table", func(b *testing.B) {
			for b.Loop() {
				ContactTable(w, name, ByPair)
			}
			b.ReportMetric(float64(points), "world-points")
		})
		b.Run("every-point-filtered", func(b *testing.B) {
			for b.Loop() {
				n := 0
				for _, c := range w.Contacts(nil) {
					if w.Bodies.Name[c.BodyA] == name || w.Bodies.Name[c.BodyB] == name {
						n++
					}
				}
			}
			b.ReportMetric(float64(points), "world-points")
		})
	})
}
