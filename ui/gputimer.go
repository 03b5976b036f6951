package ui

import "github.com/go-gl/gl/v4.6-core/gl"

// gpuTimer measures how long the GPU (or llvmpipe) took to draw a frame with GL_TIME_ELAPSED queries,
// without waiting for it: the window's draw time on the host is only the time to submit the calls.
// A ring of queries is read a few frames late, when its result is there.
type gpuTimer struct {
	q    [4]uint32
	n    int     // queries begun
	last float32 // ms, the newest result read (0: none yet)
}

// begin starts timing this frame's draw calls, first reading the result of the query it reuses.
func (g *gpuTimer) begin() {
	if g.q[0] == 0 {
		gl.GenQueries(int32(len(g.q)), &g.q[0])
	}
	q := g.q[g.n%len(g.q)]
	if g.n >= len(g.q) {
		var ready int32
		gl.GetQueryObjectiv(q, gl.QUERY_RESULT_AVAILABLE, &ready)
		if ready != 0 {
			var ns uint64
			gl.GetQueryObjectui64v(q, gl.QUERY_RESULT, &ns)
			g.last = float32(float64(ns) / 1e6)
		}
	}
	gl.BeginQuery(gl.TIME_ELAPSED, q)
}

// end stops timing.
func (g *gpuTimer) end() {
	gl.EndQuery(gl.TIME_ELAPSED)
	g.n++
}
