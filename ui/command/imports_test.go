package command

import (
	"go/parser"
	"go/token"
	"path/filepath"
	"strconv"
	"strings"
	"testing"
)

// TestTheUIDoesNotImportTheBackends: no non-test file of ui or ui/command imports tumble/gpu
// (DESIGN.md's table: ui imports sim, scenes and render). The backends are chosen in cmd/sandbox and
// injected (Backends); what the window needs of one it asks through small interfaces.
func TestTheUIDoesNotImportTheBackends(t *testing.T) {
	for _, dir := range []string{".", ".."} {
		files, err := filepath.Glob(filepath.Join(dir, "*.go"))
		if err != nil {
			t.Fatal(err)
		}
		for _, f := range files {
			if strings.HasSuffix(f, "_test.go") {
				continue
			}
			af, err := parser.ParseFile(token.NewFileSet(), f, nil, parser.ImportsOnly)
			if err != nil {
				t.Fatal(err)
			}
			for _, im := range af.Imports {
				if p, _ := strconv.Unquote(im.Path.Value); p == "tumble/gpu" || strings.HasPrefix(p, "tumble/gpu/") {
					t.Errorf("%s imports %s", f, p)
				}
			}
		}
	}
}
