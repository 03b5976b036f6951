package record_test

import (
	"testing"

	"tumble/sim/record"
)

// BenchmarkRecordPileStep times Record on the 10,001-body pile, one step at a time as the window's
// timeline records (the steps themselves untimed), keyframes every DefaultKeyEvery steps included:
//
//	go test -run '^$' -bench RecordPileStep -benchtime 240x ./sim/record
func BenchmarkRecordPileStep(b *testing.B) {
	w := preset(b, "pile", 0)
	for range 30 {
		if err := w.Step(); err != nil {
			b.Fatal(err)
		}
	}
	r := record.New(0, 0)
	if err := r.Record(w, ""); err != nil {
		b.Fatal(err)
	}
	b.ReportAllocs()
	b.ResetTimer()
	for b.Loop() {
		b.StopTimer()
		if err := w.Step(); err != nil {
			b.Fatal(err)
		}
		b.StartTimer()
		if err := r.Record(w, ""); err != nil {
			b.Fatal(err)
		}
	}
	b.ReportMetric(float64(r.Bytes())/float64(r.Last()-r.First()+1), "bytes/step")
}
