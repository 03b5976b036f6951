package command

import (
	"slices"
	"testing"
	"time"

	"tumble/sim"
)

// BenchmarkPeekWhileRunning measures how long the window's frame waits to read the world while the
// simulation goroutine runs a scene slower than real time (the 10,001-box pile): the frame's Peek
// waits for the steps Advance holds the lock over. It reports the median and the longest wait.
//
//	go test -run '^$' -bench PeekWhileRunning -benchtime 1x ./ui/command
func BenchmarkPeekWhileRunning(b *testing.B) {
	s, err := NewPreset("pile")
	if err != nil {
		b.Fatal(err)
	}
	for b.Loop() {
		stop, done := make(chan struct{}), make(chan struct{})
		go func() { s.Run(stop); close(done) }()
		var waits []float64
		end := time.Now().Add(8 * time.Second)
		for time.Now().Before(end) {
			t0 := time.Now()
			s.Peek(func(*sim.World) {})
			waits = append(waits, float64(time.Since(t0).Microseconds())/1000)
			time.Sleep(20 * time.Millisecond) // a frame's drawing, outside the lock
		}
		close(stop)
		<-done
		slices.Sort(waits)
		b.ReportMetric(waits[len(waits)/2], "median-wait-ms")
		b.ReportMetric(waits[len(waits)*9/10], "p90-wait-ms")
		b.ReportMetric(waits[len(waits)-1], "max-wait-ms")
		b.ReportMetric(float64(len(waits))/8, "frames/s")
	}
}
