package main

import (
	"bufio"
	"io"
	"strconv"
	"strings"

	"tumble/sim"
)

// traceHeader is the trace CSV's header, exactly as the contract gives it.
const traceHeader = "step,time,body,px,py,pz,qx,qy,qz,qw,vx,vy,vz,wx,wy,wz\n"

// traceWriter writes trace rows: one per body per recorded step. It formats numbers with
// strconv.AppendFloat into one reused line buffer, so a 10,000-body step costs no allocations.
type traceWriter struct {
	w    *bufio.Writer
	dt   float64 // the scene's dt, for time = step * dt
	line []byte
}

func newTraceWriter(w io.Writer, dt float64) (*traceWriter, error) {
	t := &traceWriter{w: bufio.NewWriterSize(w, 1<<20), dt: dt}
	_, err := t.w.WriteString(traceHeader)
	return t, err
}

// record writes the world's current state as the rows of the given step.
func (t *traceWriter) record(step int, b *sim.Bodies) error {
	prefix := strconv.AppendInt(t.line[:0], int64(step), 10)
	prefix = append(prefix, ',')
	// 12 significant digits: step * dt without the float64 noise (0.3, not 0.30000000000000004).
	prefix = strconv.AppendFloat(prefix, float64(step)*t.dt, 'g', 12, 64)
	prefix = append(prefix, ',')
	n := len(prefix)
	for i := range b.Len() {
		line := appendCSVField(prefix[:n], b.Name[i])
		q := b.Rotation[i]
		line = appendVec(line, b.Position[i])
		line = appendFloat(line, q.V[0])
		line = appendFloat(line, q.V[1])
		line = appendFloat(line, q.V[2])
		line = appendFloat(line, q.W)
		line = appendVec(line, b.Velocity[i])
		line = appendVec(line, b.AngularVelocity[i])
		line = append(line, '\n')
		if _, err := t.w.Write(line); err != nil {
			return err
		}
		prefix = line[:n] // keep the (possibly grown) buffer
	}
	t.line = prefix
	return nil
}

func (t *traceWriter) flush() error { return t.w.Flush() }

func appendVec(b []byte, v sim.Vec3) []byte {
	return appendFloat(appendFloat(appendFloat(b, v[0]), v[1]), v[2])
}

// appendFloat appends ',' and x in the shortest form that reads back as the same float32.
func appendFloat(b []byte, x float32) []byte {
	return strconv.AppendFloat(append(b, ','), float64(x), 'g', -1, 32)
}

// appendCSVField appends s, quoted as RFC 4180 asks when it holds a comma, quote or line break.
func appendCSVField(b []byte, s string) []byte {
	if !strings.ContainsAny(s, ",\"\r\n") {
		return append(b, s...)
	}
	b = append(b, '"')
	for i := 0; i < len(s); i++ {
		if s[i] == '"' {
			b = append(b, '"')
		}
		b = append(b, s[i])
	}
	return append(b, '"')
}
