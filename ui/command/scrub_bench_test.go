package command

import "testing"

// BenchmarkScrubStep: one scrubbed step of the pyramid (386 bodies) within one keyframe's steps, as
// dragging the timeline's slider or playing back shows them (go test ./ui/command -bench Scrub).
func BenchmarkScrubStep(b *testing.B) {
	s, err := NewPreset("pyramid")
	if err != nil {
		b.Fatal(err)
	}
	if err := s.Steps(100); err != nil {
		b.Fatal(err)
	}
	i := 0
	for b.Loop() {
		if err := s.ScrubTo(10 + i%80); err != nil {
			b.Fatal(err)
		}
		i++
	}
}
