package sim

import (
	"fmt"
	"go/ast"
	"go/parser"
	"go/token"
	"os"
	"path/filepath"
	"sort"
	"strings"
	"testing"
)

// packageSources returns the package's non-test Go files (but generator templates), by name.
func packageSources(t *testing.T) map[string]string {
	t.Helper()
	names, err := filepath.Glob("*.go")
	if err != nil {
		t.Fatal(err)
	}
	srcs := map[string]string{}
	for _, name := range names {
		if strings.HasSuffix(name, "_test.go") {
			continue
		}
		src, err := os.ReadFile(name)
		if err != nil {
			t.Fatal(err)
		}
		if strings.Contains(string(src), "//go:build ignore") {
			continue
		}
		srcs[name] = string(src)
	}
	return srcs
}

// stageRefs lists, for every function of the sources srcs (file name to source), the stage structs
// of the pipeline it touches: through w.pipe.X, through a *pipeline (a receiver, a parameter or a
// variable bound to &w.pipe or w.pipe) and through a receiver or parameter of a stage struct's type.
// The key is "file:Func" (methods "file:Recv.Func"); closures count for the function that holds
// them.
func stageRefs(t *testing.T, srcs map[string]string) map[string][]string {
	t.Helper()
	fset := token.NewFileSet()
	var files []*ast.File
	var fileNames []string
	for name, src := range srcs {
		f, err := parser.ParseFile(fset, name, src, 0)
		if err != nil {
			t.Fatal(err)
		}
		files, fileNames = append(files, f), append(fileNames, name)
	}

	// The pipeline's fields and their stage types.
	field := map[string]string{} // field name -> stage type
	stageType := map[string]string{}
	for _, f := range files {
		ast.Inspect(f, func(n ast.Node) bool {
			ts, ok := n.(*ast.TypeSpec)
			if !ok || ts.Name.Name != "pipeline" {
				return true
			}
			for _, fl := range ts.Type.(*ast.StructType).Fields.List {
				typ := fl.Type.(*ast.Ident).Name
				for _, nm := range fl.Names {
					if notStages[nm.Name] != "" {
						continue
					}
					field[nm.Name] = typ
					stageType[typ] = nm.Name
				}
			}
			return false
		})
	}
	if len(field) == 0 {
		t.Fatal("no pipeline struct found")
	}

	typeName := func(e ast.Expr) string {
		if s, ok := e.(*ast.StarExpr); ok {
			e = s.X
		}
		if id, ok := e.(*ast.Ident); ok {
			return id.Name
		}
		return ""
	}
	isPipe := func(e ast.Expr) bool { // w.pipe, &w.pipe
		if u, ok := e.(*ast.UnaryExpr); ok && u.Op == token.AND {
			e = u.X
		}
		s, ok := e.(*ast.SelectorExpr)
		return ok && s.Sel.Name == "pipe"
	}

	refs := map[string][]string{}
	for i, f := range files {
		for _, d := range f.Decls {
			fd, ok := d.(*ast.FuncDecl)
			if !ok || fd.Body == nil {
				continue
			}
			key := fileNames[i] + ":" + fd.Name.Name
			touched := map[string]bool{}
			pipeVars := map[string]bool{}
			var params []*ast.Field
			if fd.Recv != nil {
				key = fileNames[i] + ":" + typeName(fd.Recv.List[0].Type) + "." + fd.Name.Name
				params = append(params, fd.Recv.List...)
			}
			params = append(params, fd.Type.Params.List...)
			for _, p := range params {
				tn := typeName(p.Type)
				if tn == "pipeline" {
					for _, nm := range p.Names {
						pipeVars[nm.Name] = true
					}
				}
				if st, ok := stageType[tn]; ok {
					touched[st] = true
				}
			}
			ast.Inspect(fd.Body, func(n ast.Node) bool {
				switch n := n.(type) {
				case *ast.AssignStmt:
					for k, r := range n.Rhs {
						if isPipe(r) && k < len(n.Lhs) {
							if id, ok := n.Lhs[k].(*ast.Ident); ok {
								pipeVars[id.Name] = true
							}
						}
					}
				case *ast.FuncLit:
					for _, p := range n.Type.Params.List {
						if st, ok := stageType[typeName(p.Type)]; ok {
							touched[st] = true
						}
					}
				case *ast.SelectorExpr:
					if _, ok := field[n.Sel.Name]; !ok {
						return true
					}
					if isPipe(n.X) {
						touched[n.Sel.Name] = true
					} else if id, ok := n.X.(*ast.Ident); ok && pipeVars[id.Name] {
						touched[n.Sel.Name] = true
					}
				}
				return true
			})
			var list []string
			for st := range touched {
				list = append(list, st)
			}
			sort.Strings(list)
			refs[key] = list
		}
	}
	return refs
}

// notStages names the pipeline's one field that is no stage: the plan, the step's ops and the
// constants they run with (Box2D v3's b2StepContext), which the executor writes before the step's
// stages run and every stage reads. The bodies' rotation matrices are a cache that goes with the
// bodies (Bodies.rot), outside the pipeline.
var notStages = map[string]string{
	"plan": "the step's ops and constants (h, invH, softness, maxPush, restThreshold, anchorReach), written by the executor",
}

// TestPipelineHoldsStagesAndPlan checks the pipeline's fields: each a stage's struct (a type named
// xxxStage, declared in the package, held by name, not embedded) or the plan, so that no state of
// several concerns creeps back beside the stages.
func TestPipelineHoldsStagesAndPlan(t *testing.T) {
	fset := token.NewFileSet()
	structs := map[string]bool{}
	var fields []*ast.Field
	for name, src := range packageSources(t) {
		f, err := parser.ParseFile(fset, name, src, 0)
		if err != nil {
			t.Fatal(err)
		}
		ast.Inspect(f, func(n ast.Node) bool {
			ts, ok := n.(*ast.TypeSpec)
			if !ok {
				return true
			}
			if st, ok := ts.Type.(*ast.StructType); ok {
				structs[ts.Name.Name] = true
				if ts.Name.Name == "pipeline" {
					fields = st.Fields.List
				}
			}
			return false
		})
	}
	if fields == nil {
		t.Fatal("no pipeline struct found")
	}
	plan := false
	for _, fl := range fields {
		id, ok := fl.Type.(*ast.Ident)
		if !ok || len(fl.Names) == 0 {
			t.Errorf("pipeline field %s: a stage's struct held by name, not %T", fset.Position(fl.Pos()), fl.Type)
			continue
		}
		for _, nm := range fl.Names {
			switch {
			case nm.Name == "plan" && id.Name == "planStage":
				plan = true
			case notStages[nm.Name] != "":
				t.Errorf("pipeline.%s is in notStages, which names the plan alone", nm.Name)
			case !strings.HasSuffix(id.Name, "Stage") || !structs[id.Name]:
				t.Errorf("pipeline.%s is a %s: the pipeline holds the stages' structs and the plan only", nm.Name, id.Name)
			}
		}
	}
	if !plan {
		t.Error("the pipeline holds no plan (plan planStage)")
	}
	if len(notStages) != 1 {
		t.Errorf("notStages names %d fields, want the plan alone", len(notStages))
	}
}

// orchestratorFiles and orchestratorFuncs are the step's executor: the one part of the package that
// reads several stages and hands one stage's outputs to the next (docs/ARCHITECTURE.md, "Inside
// sim"). World.Step, the stage drivers and the input builders are in step.go, the loop table in
// loops.go; the executors of a plan's ops that live with their solver or stage are listed by name
// (and every solver's run, which runs the solver's own ops).
var (
	orchestratorFiles = map[string]bool{"step.go": true, "loops.go": true}
	orchestratorFuncs = map[string]string{
		"solver.go:World.runSoftStep":          "runs a soft-step solver's warm start, solve, relax, projection and restitution ops",
		"solver.go:World.warmStart":            "the warm start op: the contacts', the joints' and the gather",
		"solver.go:World.refreshRows":          "brings the contact and joint rows to the poses before an op's passes",
		"islands.go:World.islandBlock":         "runs a StageIslands op's block, handing the regions their rows (regionRows)",
		"solver_rigid.go:World.positionPasses": "the rigid solver's StageProject op",
	}
)

// isOrchestrator reports whether the function key is part of the step's executor.
func isOrchestrator(key string) bool {
	file, fn, _ := strings.Cut(key, ":")
	if orchestratorFiles[file] || orchestratorFuncs[key] != "" {
		return true
	}
	return strings.HasPrefix(file, "solver_") && strings.HasSuffix(fn, "Solver.run")
}

// stageAllowlist lists the functions outside the executor that still touch more than one stage's
// struct, each with what it reads of the other stages. It is empty and may only stay so: a function
// on it that no longer does fails TestStagesKeepToTheirRooms, as does any function outside the
// executor that touches two stages. The World's public reads and edits of the state the stages keep
// between steps (Contacts, SaveState, RestoreState, RemoveBody) reach each stage's part through the
// executor's list of them (pipeline.keepers in step.go).
var stageAllowlist = map[string]string{}

// TestStagesKeepToTheirRooms holds the package to its rule: a stage's functions read and write their
// own stage's struct and what the executor hands them, and only the executor reads several stages'.
func TestStagesKeepToTheirRooms(t *testing.T) {
	refs := stageRefs(t, packageSources(t))
	var bad []string
	for key, stages := range refs {
		if len(stages) < 2 || isOrchestrator(key) {
			continue
		}
		if _, ok := stageAllowlist[key]; !ok {
			bad = append(bad, fmt.Sprintf("%s touches %v", key, stages))
		}
	}
	sort.Strings(bad)
	for _, b := range bad {
		t.Errorf("%s: hand it what it reads of the other stages as arguments, or let the executor do it", b)
	}
	for key := range stageAllowlist {
		if len(refs[key]) < 2 || isOrchestrator(key) {
			t.Errorf("%s keeps to its stage (or is gone): take it off stageAllowlist", key)
		}
	}
	for key := range orchestratorFuncs {
		if _, ok := refs[key]; !ok {
			t.Errorf("orchestratorFuncs names %s, which is no function of the package", key)
		}
	}
	t.Logf("%d functions outside the executor touch more than one stage", len(stageAllowlist))
}

// TestStageRefsSeesEveryPath checks the scan on a small source: each way a function can reach a stage
// counts, and a function that reaches one stage only is not flagged.
func TestStageRefsSeesEveryPath(t *testing.T) {
	src := `package sim
type pipeline struct {
	narrow narrowStage
	wide   wideStage
}
type World struct{ pipe pipeline }
type narrowStage struct{ n int }
type wideStage struct{ n int }
func (w *World) direct() int { return w.pipe.narrow.n + w.pipe.wide.n }
func (w *World) bound() int { p := &w.pipe; return p.narrow.n + p.wide.n }
func (p *pipeline) method() int { return p.narrow.n + p.wide.n }
func (s *wideStage) param(n *narrowStage) int { return s.n + n.n }
func (w *World) closure() func() int { return func() int { return w.pipe.narrow.n + w.pipe.wide.n } }
func (w *World) one() int { p := &w.pipe; return p.wide.n }
func (s *wideStage) own() int { return s.n }
`
	refs := stageRefs(t, map[string]string{"x.go": src})
	for _, fn := range []string{"World.direct", "World.bound", "pipeline.method", "wideStage.param", "World.closure"} {
		if got := refs["x.go:"+fn]; len(got) != 2 {
			t.Errorf("%s: stages %v, want narrow and wide", fn, got)
		}
	}
	for _, fn := range []string{"World.one", "wideStage.own"} {
		if got := refs["x.go:"+fn]; len(got) != 1 || got[0] != "wide" {
			t.Errorf("%s: stages %v, want wide alone", fn, got)
		}
	}
}
