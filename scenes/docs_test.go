package scenes

import (
	"flag"
	"os"
	"strings"
	"testing"

	"tumble/sim"
)

var updateDocs = flag.Bool("update-docs", false, "rewrite docs/SCENES.md's table of solver settings from sim.Tunables")

const (
	docsFile       = "../docs/SCENES.md"
	tableBeginMark = "<!-- the solver settings: made from sim.Tunables by go test ./scenes -run TestDocsSolverTable -update-docs -->"
	tableEndMark   = "<!-- end of the solver settings -->"
)

// solverTable is docs/SCENES.md's table of the solver block's tunable settings, one row per descriptor.
func solverTable() string {
	var b strings.Builder
	b.WriteString("| field | meaning | read by | default | allowed | flag |\n| --- | --- | --- | --- | --- | --- |\n")
	for _, d := range sim.Tunables() {
		readers := d.Readers()
		names := make([]string, len(readers))
		for i, k := range readers {
			names[i] = k.String()
		}
		readBy := strings.Join(names, ", ")
		if len(readers) == len(sim.Solvers()) {
			readBy = "every solver"
		}
		allowed, flagForm := "whole number in "+d.Range(), "`-"+d.Flag+"` N"
		switch d.Kind {
		case sim.TunableFloat:
			allowed, flagForm = d.Range(), "`-"+d.Flag+"` X"
		case sim.TunableOnOff:
			allowed, flagForm = "true, false", "`-"+d.Flag+"` on or off"
		}
		b.WriteString("| `" + d.Key + "` | " + d.Tip + " | " + readBy + " | " + defaults(d, readers) + " | " +
			allowed + " | " + flagForm + " |\n")
	}
	return b.String()
}

// defaults writes the value each reader runs with when the scene leaves the setting out: one value if
// they agree, else each solver's.
func defaults(d sim.Tunable, readers []sim.SolverKind) string {
	format := func(x float64) string {
		if d.Kind == sim.TunableOnOff {
			return map[bool]string{true: "on", false: "off"}[x != 0]
		}
		return sim.FormatValue(float64(float32(x)))
	}
	var parts []string
	same := true
	for _, k := range readers {
		v := format(d.Default(k))
		same = same && v == format(d.Default(readers[0]))
		parts = append(parts, k.String()+" "+v)
	}
	if same {
		return format(d.Default(readers[0]))
	}
	return strings.Join(parts, ", ")
}

// docs/SCENES.md's table of solver settings is the descriptors' (sim.Tunables): a setting added,
// renamed or re-ranged there fails this test until the page says so (-update-docs rewrites it).
func TestDocsSolverTableMatchesTheDescriptors(t *testing.T) {
	data, err := os.ReadFile(docsFile)
	if err != nil {
		t.Fatal(err)
	}
	text := string(data)
	i, j := strings.Index(text, tableBeginMark), strings.Index(text, tableEndMark)
	if i < 0 || j < i {
		t.Fatalf("%s: no table between %q and %q", docsFile, tableBeginMark, tableEndMark)
	}
	start := i + len(tableBeginMark) + 1
	want := solverTable()
	if text[start:j] == want {
		return
	}
	if *updateDocs {
		if err := os.WriteFile(docsFile, []byte(text[:start]+want+text[j:]), 0o644); err != nil {
			t.Fatal(err)
		}
		return
	}
	t.Errorf("%s's table of solver settings differs from sim.Tunables; run go test ./scenes -run TestDocsSolverTable -update-docs\nthe page has:\n%s\nthe descriptors give:\n%s",
		docsFile, text[start:j], want)
}
