package ui

import (
	"go/ast"
	"go/parser"
	"go/token"
	"os"
	"path/filepath"
	"slices"
	"strings"
	"testing"

	"github.com/inkyblackness/imgui-go/v4"
)

// Every interactive widget goes through widgets.go, where its ID is checked and its rectangle kept;
// an imgui.Button (or any of these) written straight into the panel would escape both.
func TestPanelCallsImGuiWidgetsOnlyThroughTheWrappers(t *testing.T) {
	forbidden := []string{"Button", "ButtonV", "Checkbox", "SliderInt", "SliderFloat", "SliderFloatV", "DragFloat",
		"DragFloatV", "DragFloat2", "DragFloat2V", "DragFloat3", "DragFloat3V", "DragInt", "InputText", "InputTextV",
		"Combo", "ComboV", "BeginCombo", "BeginComboV", "Selectable", "SelectableV", "CollapsingHeader",
		"CollapsingHeaderV", "TreeNode", "TreeNodeV", "PushID", "PushIDInt", "PopID", "BeginTable", "BeginTableV",
		"EndTable", "BeginChild", "BeginChildV", "EndChild", "RadioButton", "InputInt", "BeginV", "Begin", "End", "TreePop"}
	files, _ := filepath.Glob("*.go")
	for _, f := range files {
		if f == "widgets.go" || strings.HasSuffix(f, "_test.go") {
			continue
		}
		src, err := os.ReadFile(f)
		if err != nil {
			t.Fatal(err)
		}
		fs := token.NewFileSet()
		file, err := parser.ParseFile(fs, f, src, 0)
		if err != nil {
			t.Fatal(err)
		}
		ast.Inspect(file, func(n ast.Node) bool {
			sel, ok := n.(*ast.SelectorExpr)
			if !ok {
				return true
			}
			if id, ok := sel.X.(*ast.Ident); ok && id.Name == "imgui" && slices.Contains(forbidden, sel.Sel.Name) {
				t.Errorf("%s: imgui.%s called directly: use the wrapper in widgets.go", fs.Position(sel.Pos()), sel.Sel.Name)
			}
			return true
		})
	}
}

// frameWithoutGL runs one Dear ImGui frame (no window: the font atlas is built on the CPU) with f
// submitting widgets, and returns the record.
func frameWithoutGL(t *testing.T, f func(g *widgets)) *widgets {
	t.Helper()
	ctx := imgui.CreateContext(nil)
	defer ctx.Destroy()
	io := imgui.CurrentIO()
	io.SetIniFilename("")
	io.SetDisplaySize(imgui.Vec2{X: 800, Y: 600})
	io.Fonts().TextureDataAlpha8()
	imgui.NewFrame()
	g := &widgets{}
	g.beginFrame()
	g.begin("Tumble", nil, 0)
	f(g)
	g.end()
	imgui.Render()
	return g
}

func TestOneIDSubmittedTwiceInAFrameIsCaught(t *testing.T) {
	var v1, v2 bool
	g := frameWithoutGL(t, func(g *widgets) {
		g.checkbox("friction", &v1)
		if g.header("Spawn", 0) {
			g.checkbox("friction", &v2)
		}
		g.button("Spawn")
		g.button("Spawn##2") // another ID: no duplicate
	})
	if want := []string{"Tumble/Spawn"}; !slices.Equal(g.dups, want) {
		t.Errorf("duplicates %v, want %v (the header and the button)", g.dups, want)
	}
	g = frameWithoutGL(t, func(g *widgets) {
		g.push("simulation")
		g.checkbox("friction", &v1)
		g.pop()
		g.push("spawn")
		g.checkbox("friction", &v2)
		g.button("Spawn")
		g.pop()
		g.header("Spawn", 0)
	})
	if len(g.dups) > 0 {
		t.Errorf("duplicates %v with each section in its own ID scope", g.dups)
	}
}

func TestIDPartFollowsDearImGuisRules(t *testing.T) {
	for label, want := range map[string]string{"Spawn": "Spawn", "set##mu": "set##mu", "Play (Space)###play": "###play"} {
		if got := idPart(label); got != want {
			t.Errorf("idPart(%q) = %q, want %q", label, got, want)
		}
	}
	if got := shown("set##mu"); got != "set" {
		t.Errorf("shown = %q", got)
	}
}
