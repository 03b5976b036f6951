package ui

import "github.com/inkyblackness/imgui-go/v4"

// cell submits a table cell's lines as one group and records it (kind "cell", named id), so that the
// tests see where a cell's text ends: inside the table's visible width, or cut off.
func (g *widgets) cell(id string, lines ...string) {
	imgui.BeginGroup()
	for _, l := range lines {
		imgui.Text(l)
	}
	imgui.EndGroup()
	g.record("cell", id)
}
