package scenes

import (
	"bytes"
	"reflect"
	"testing"
)

// FuzzParse feeds Parse arbitrary bytes: it must never panic, and any scene it accepts must survive
// Save and Parse unchanged. The seed corpus is the presets (all but the two 10,000-body ones), the
// examples' every-field scene and every invalid case of the table test.
func FuzzParse(f *testing.F) {
	for _, name := range Names() {
		s, _ := Preset(name)
		if len(s.Bodies) > 1000 {
			continue
		}
		var buf bytes.Buffer
		s.Save(&buf)
		f.Add(buf.Bytes())
	}
	f.Add([]byte(everything))
	for _, c := range invalidCases {
		f.Add([]byte(c.json))
	}
	f.Fuzz(func(t *testing.T, data []byte) {
		s, err := Parse("fuzz.json", data)
		if err != nil {
			if s != nil {
				t.Fatal("scene returned with an error")
			}
			return
		}
		var buf bytes.Buffer
		if err := s.Save(&buf); err != nil {
			t.Fatalf("save: %v", err)
		}
		back, err := Parse("saved.json", buf.Bytes())
		if err != nil {
			t.Fatalf("saved scene refused: %v\n%s", err, buf.Bytes())
		}
		if !reflect.DeepEqual(s, back) {
			t.Fatalf("round trip changed the scene:\n%s", buf.Bytes())
		}
		if _, err := s.World(Options{}); err != nil {
			t.Fatalf("accepted scene does not build: %v", err)
		}
	})
}
