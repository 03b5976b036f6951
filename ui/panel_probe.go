package ui

import (
	"fmt"

	"github.com/inkyblackness/imgui-go/v4"
)

// probeTableRows is the hits list's height in rows: it scrolls past them.
const probeTableRows = 6

// probeLabel is the probe's tree node, at the end of the Debug draw section.
const probeLabel = "probe: scene queries"

// probeNode is the probe's part of the Debug draw section: the scene query the view aims (probe.go),
// its shape, distance and filter, and the hits it finds, under a tree node. Every line is there
// whatever is chosen (the shape's greyed for a ray), so that choosing moves nothing.
func (a *App) probeNode() {
	g := &a.w
	if !g.treeNode(probeLabel) {
		return
	}
	defer g.treePop()
	p := &a.tools.probe
	p.init()
	g.checkbox("probe the view", &p.on)
	tip("on: the query below runs on every frame the cursor is over the view, aimed through it;\n" +
		"over the panel the aim stays, so the hits can be read here")
	g.combo("query", &p.mode, probeModeNames)
	tip("ray: the first body the ray meets (World.RayCast), or every one (RayCastAll);\n" +
		"shape cast: the shape swept along the ray (ShapeCast); overlap: the bodies the shape\n" +
		"touches where the ray first meets the scene (Overlap)")
	g.combo("aim", &p.aim, probeAimNames)
	tip("from the camera through the cursor, or from an origin placed with the P key (the point\n" +
		"under the cursor) towards the point under the cursor")
	ray := p.mode == probeRay || p.mode == probeRayAll
	g.beginDisabled(ray)
	g.combo("probe shape", &p.shape, probeShapeNames)
	a.sizeWidgets(p.shape, &p.size)
	g.endDisabled()
	g.sliderFloatV("max distance, m", &p.maxDist, 0.1, 1000, "%.1f", imgui.SliderFlagsLogarithmic)
	tip("how far the ray or the sweep goes")
	g.checkbox("dynamic", &p.dynamic)
	g.sameLine("checkbox", "static")
	g.checkbox("static", &p.static)
	g.sameLine("checkbox", "kinematic")
	g.checkbox("kinematic", &p.kinematic)
	tip("the body types the query sees (its QueryFilter's Types)")
	g.checkbox("skip the selected body", &p.skipSel)
	tip("the query's filter leaves the selected body out (QueryFilter.Exclude)")
	origin := "origin: none placed (P over the view places it)"
	if p.placed {
		origin = fmt.Sprintf("origin: (%.2f, %.2f, %.2f)", p.origin[0], p.origin[1], p.origin[2])
	}
	keepLine(origin)
	g.text(fitText(a.probeSummary(), imgui.ContentRegionAvail().X))
	a.probeTable()
}

// probeSummary is the section's line on the query's outcome.
func (a *App) probeSummary() string {
	p := &a.tools.probe
	switch {
	case !p.on:
		return "probe off"
	case p.err != "":
		return p.err
	case !p.aimed:
		return "not aimed yet"
	case len(p.hits) == 0:
		return "no hit"
	case p.mode == probeOverlap:
		return fmt.Sprintf("%d bodies overlap the %s", p.overlapped, probeShapeNames[p.shape])
	case p.mode == probeRayAll:
		return fmt.Sprintf("%d hits, nearest %s at %.3f m", len(p.hits), p.hits[0].name, p.hits[0].T)
	}
	return fmt.Sprintf("hit %s at %.3f m", p.hits[0].name, p.hits[0].T)
}

// probeTable lists the hits: body, distance, point and normal (an overlap: the body and its centre),
// in a region of fixed height.
func (a *App) probeTable() {
	g := &a.w
	p := &a.tools.probe
	h := (imgui.TextLineHeightWithSpacing()+4)*float32(probeTableRows+1) + 4
	g.beginChild("probe hits", imgui.Vec2{Y: h}, true)
	defer g.endChild()
	flags := imgui.TableFlagsBorders | imgui.TableFlagsRowBg | imgui.TableFlagsSizingStretchProp
	if !g.beginTable("hits", 4, flags, imgui.Vec2{}) {
		return
	}
	for _, c := range []struct {
		name   string
		weight float32
	}{{"body", 1.4}, {"m", 0.9}, {"point", 1.3}, {"normal", 1.3}} {
		imgui.TableSetupColumnV(c.name, imgui.TableColumnFlagsNone, c.weight, 0)
	}
	imgui.TableHeadersRow()
	v3 := func(v [3]float32) string { return fmt.Sprintf("%.1f %.1f %.1f", v[0], v[1], v[2]) }
	for _, hit := range p.hits {
		imgui.TableNextRow()
		cells := []string{hit.name, fmt.Sprintf("%.3f", hit.T), v3(hit.Point), v3(hit.Normal)}
		if p.mode == probeOverlap {
			cells = []string{hit.name, "-", v3(hit.Point), "-"}
		}
		for c, s := range cells {
			imgui.TableSetColumnIndex(c)
			imgui.Text(s)
		}
	}
	g.endTable()
}
