package gpu

import (
	"go/ast"
	"go/parser"
	"go/token"
	"path/filepath"
	"sort"
	"strconv"
	"strings"
	"testing"
)

// rawLaunchesPending are files allowed to launch kernels by name with positional arguments while
// they move to the typed wrappers: none. The test fails for a file listed here that launches no kernel
// by name.
var rawLaunchesPending = map[string]bool{}

// rawLaunchesOnPurpose launch by name to test the untyped launch itself (wrong argument sizes and
// counts must fail), which a typed wrapper cannot express.
var rawLaunchesOnPurpose = map[string]bool{
	"emulated_test.go": true,
}

// TestKernelsLaunchThroughWrappers fails when a file of package gpu launches a kernel by name
// (launch("tb_...", grid, block, args...)) instead of through its generated wrapper, where two
// swapped arguments of one type compile and run.
func TestKernelsLaunchThroughWrappers(t *testing.T) {
	files, err := filepath.Glob("*.go")
	if err != nil {
		t.Fatal(err)
	}
	sort.Strings(files)
	fset := token.NewFileSet()
	seen := map[string]bool{}
	for _, name := range files {
		if name == "kernels_gen.go" {
			continue
		}
		f, err := parser.ParseFile(fset, name, nil, parser.SkipObjectResolution)
		if err != nil {
			t.Fatal(err)
		}
		ast.Inspect(f, func(n ast.Node) bool {
			call, ok := n.(*ast.CallExpr)
			if !ok || len(call.Args) == 0 || !isLaunch(call.Fun) {
				return true
			}
			lit, ok := call.Args[0].(*ast.BasicLit)
			if !ok || lit.Kind != token.STRING {
				return true
			}
			kernel, _ := strconv.Unquote(lit.Value)
			if !strings.HasPrefix(kernel, "tb_") {
				return true
			}
			seen[name] = true
			if !rawLaunchesPending[name] && !rawLaunchesOnPurpose[name] {
				t.Errorf("%s: %s launched by name: use kernelSet's wrapper (kernels_gen.go)", fset.Position(lit.Pos()),
					kernel)
			}
			return true
		})
	}
	for name := range rawLaunchesPending {
		if !seen[name] {
			t.Errorf("%s launches no kernel by name any more: take it off rawLaunchesPending", name)
		}
	}
}

// isLaunch reports whether fun is a function or method named launch.
func isLaunch(fun ast.Expr) bool {
	switch f := fun.(type) {
	case *ast.Ident:
		return f.Name == "launch"
	case *ast.SelectorExpr:
		return f.Sel.Name == "launch"
	}
	return false
}
