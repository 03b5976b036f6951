package scenes

import (
	"bufio"
	"bytes"
	"encoding/json"
	"io"
	"math"
	"strconv"
)

// Save writes the scene as JSON: the top level indented, one body or joint per line. Fields the scene
// left out stay out, so Parse gives back an equal Scene. Numbers are written in the shortest form that
// reads back to the same float64.
func (s *Scene) Save(w io.Writer) error {
	bw := bufio.NewWriter(w)
	var line []byte
	var err error
	first := true
	field := func(key string, v any) {
		if err != nil {
			return
		}
		line, err = compact(line[:0], v)
		if !first {
			bw.WriteString(",\n")
		}
		first = false
		bw.WriteString("  " + strconv.Quote(key) + ": ")
		bw.Write(line)
	}
	list := func(key string, n int, item func(i int) any) {
		if err != nil {
			return
		}
		if !first {
			bw.WriteString(",\n")
		}
		first = false
		bw.WriteString("  " + strconv.Quote(key) + ": [")
		for i := 0; i < n && err == nil; i++ {
			line, err = compact(line[:0], item(i))
			if i > 0 {
				bw.WriteByte(',')
			}
			bw.WriteString("\n    ")
			bw.Write(line)
		}
		if n > 0 {
			bw.WriteString("\n  ")
		}
		bw.WriteString("]")
	}
	bw.WriteString("{\n")
	if s.Name != "" {
		field("name", s.Name)
	}
	if s.Gravity != nil {
		field("gravity", s.Gravity)
	}
	if s.Dt != nil {
		field("dt", s.Dt)
	}
	if s.Solver != nil {
		field("solver", s.Solver)
	}
	if s.Broadphase != "" {
		field("broadphase", s.Broadphase)
	}
	if s.View != nil {
		field("view", s.View)
	}
	list("bodies", len(s.Bodies), func(i int) any { return &s.Bodies[i] })
	if len(s.Joints) > 0 {
		list("joints", len(s.Joints), func(i int) any { return &s.Joints[i] })
	}
	if len(s.Clusters) > 0 {
		list("clusters", len(s.Clusters), func(i int) any { return &s.Clusters[i] })
	}
	bw.WriteString("\n}\n")
	if err != nil {
		return err
	}
	return bw.Flush()
}

// compact appends v as JSON on one line, with a space after each ':' and ',' for the reader.
func compact(dst []byte, v any) ([]byte, error) {
	var buf bytes.Buffer
	enc := json.NewEncoder(&buf)
	enc.SetEscapeHTML(false)
	if err := enc.Encode(v); err != nil {
		return dst, err
	}
	raw := bytes.TrimRight(buf.Bytes(), "\n")
	inString, escaped := false, false
	for _, c := range raw {
		dst = append(dst, c)
		switch {
		case escaped:
			escaped = false
		case inString && c == '\\':
			escaped = true
		case c == '"':
			inString = !inString
		case !inString && (c == ':' || c == ','):
			dst = append(dst, ' ')
		}
	}
	return dst, nil
}

// appendNum appends x as encoding/json writes a float64 (the shortest form that reads back exactly).
func appendNum(b []byte, x float64) []byte {
	a := math.Abs(x)
	format := byte('f')
	if a != 0 && (a < 1e-6 || a >= 1e21) {
		format = 'e'
	}
	start := len(b)
	b = strconv.AppendFloat(b, x, format, -1, 64)
	if n := len(b); format == 'e' && n-start >= 4 && b[n-4] == 'e' && b[n-3] == '-' && b[n-2] == '0' {
		b[n-2] = b[n-1] // 1e-07 -> 1e-7, as encoding/json does
		b = b[:n-1]
	}
	return b
}
