package scenes

import (
	"fmt"
	"image"
	"image/color"
	"image/png"
	"math"
	"os"
	"path/filepath"
	"strconv"

	"tumble/sim/geom"
)

// Height fields (static bodies only): {"type": "heightfield", "spacing": [dx, dz], "heights": [[...],
// ...]} gives the heights inline, one row per z (heights[j][i] is the sample at column i along x and
// row j along z), or {"type": "heightfield", "spacing": [dx, dz], "file": "hills.png", "heightScale":
// s} reads them from a 16-bit grayscale PNG (its path relative to the scene file), the pixel at
// column i and row j of the image a sample at height s value/65535. The grid is centred on the body's
// position in x and z; the heights are y in the body's frame. Both forms are stored as 16-bit steps
// (geom.HeightGrid): a PNG as it is, inline heights quantised over their range, within
// (max - min)/131070 of what was written.

// fieldSource is a height field's samples, as read from its PNG or given inline.
type fieldSource struct {
	nx, nz     int
	base, step float32
	q          []uint16  // from a PNG
	heights    []float32 // inline
}

// fieldFile is where the shape's PNG is: relative to the scene file's folder, as meshFile.
func (s *Shape) fieldFile() string { return s.meshFile() }

// validateField checks a height field shape and returns its field, built (nil when refused).
func (s *Shape) validateField(c *check, path string) *geom.HeightGrid {
	if s.Spacing == nil {
		c.fail(path+".spacing", "missing (required for a heightfield: [dx, dz], m)", "")
		return nil
	}
	for i, x := range s.Spacing {
		c.num(path+".spacing["+strconv.Itoa(i)+"]", x, MinSize, MaxSize, true, " m")
	}
	if c.err != nil {
		return nil
	}
	var src fieldSource
	switch {
	case s.File != "" && s.Heights != nil:
		c.fail(path+".file", "give a file or heights, not both", strconv.Quote(s.File))
		return nil
	case s.File != "":
		if s.HeightScale == nil {
			c.fail(path+".heightScale", "missing (required with a file: the height of a white pixel, m)", "")
			return nil
		}
		c.num(path+".heightScale", *s.HeightScale, 0, MaxCoordinate, true, " m")
		if c.err != nil {
			return nil
		}
		var err error
		if src, err = readHeightPNG(s.fieldFile(), *s.HeightScale); err != nil {
			c.fail(path+".file", err.Error(), strconv.Quote(s.File))
			return nil
		}
	case s.Heights != nil:
		if s.HeightScale != nil {
			c.fail(path+".heightScale", "only with a file (inline heights are in metres)", fmtNum(*s.HeightScale))
			return nil
		}
		src = s.inlineField(c, path)
		if c.err != nil {
			return nil
		}
	default:
		c.fail(path+".heights", "missing (a heightfield needs heights or a file)", "")
		return nil
	}
	dx, dz := float32(s.Spacing[0]), float32(s.Spacing[1])
	var f *geom.HeightGrid
	var err error
	if src.q != nil {
		f, err = geom.NewHeightField16(src.nx, src.nz, dx, dz, src.base, src.step, src.q)
	} else {
		f, err = geom.NewHeightField(src.nx, src.nz, dx, dz, src.heights)
	}
	if err != nil {
		c.fail(path, err.Error(), "")
		return nil
	}
	if ext := float64(max(f.Box.Max[0], f.Box.Max[2])); ext > MaxCoordinate {
		c.fail(path+".spacing", "the field spans "+fmtNum(2*ext)+" m; it must lie within "+fmtNum(MaxCoordinate)+" m of its centre", fmtVec(s.Spacing[:]))
		return nil
	}
	return f
}

// inlineField checks inline heights: at least 2 rows of at least 2 samples, all rows as long as the
// first, at most geom.MaxFieldSide each way, every height finite and within MaxCoordinate.
func (s *Shape) inlineField(c *check, path string) fieldSource {
	p := path + ".heights"
	nz := len(s.Heights)
	if nz < 2 || nz > geom.MaxFieldSide {
		c.fail(p, "a heightfield takes 2 to "+strconv.Itoa(geom.MaxFieldSide)+" rows", strconv.Itoa(nz)+" rows")
		return fieldSource{}
	}
	nx := len(s.Heights[0])
	if nx < 2 || nx > geom.MaxFieldSide {
		c.fail(p+"[0]", "a row takes 2 to "+strconv.Itoa(geom.MaxFieldSide)+" samples", strconv.Itoa(nx)+" samples")
		return fieldSource{}
	}
	src := fieldSource{nx: nx, nz: nz, heights: make([]float32, 0, nx*nz)}
	for j, row := range s.Heights {
		if len(row) != nx {
			c.fail(p+"["+strconv.Itoa(j)+"]", "every row must have as many samples as the first ("+strconv.Itoa(nx)+")", strconv.Itoa(len(row))+" samples")
			return fieldSource{}
		}
		for i, h := range row {
			c.num(p+"["+strconv.Itoa(j)+"]["+strconv.Itoa(i)+"]", h, -MaxCoordinate, MaxCoordinate, false, " m")
			src.heights = append(src.heights, float32(h))
		}
		if c.err != nil {
			return fieldSource{}
		}
	}
	return src
}

// readHeightPNG reads a 16-bit grayscale PNG as a height field's samples: value v at height
// scale v/65535. Any other kind of image is refused, naming what it is.
func readHeightPNG(path string, scale float64) (fieldSource, error) {
	fh, err := os.Open(path)
	if err != nil {
		return fieldSource{}, fmt.Errorf("cannot read the height map: %v", err)
	}
	defer fh.Close()
	cfg, err := png.DecodeConfig(fh)
	if err != nil {
		return fieldSource{}, fmt.Errorf("%s is not a PNG image: %v", filepath.Base(path), err)
	}
	if cfg.ColorModel != color.Gray16Model {
		return fieldSource{}, fmt.Errorf("%s must be a 16-bit grayscale PNG, got %s", filepath.Base(path), describeModel(cfg.ColorModel))
	}
	if cfg.Width < 2 || cfg.Height < 2 || cfg.Width > geom.MaxFieldSide || cfg.Height > geom.MaxFieldSide {
		return fieldSource{}, fmt.Errorf("%s is %d x %d pixels; a height map takes 2 to %d each way", filepath.Base(path), cfg.Width, cfg.Height, geom.MaxFieldSide)
	}
	if _, err := fh.Seek(0, 0); err != nil {
		return fieldSource{}, fmt.Errorf("cannot read the height map: %v", err)
	}
	img, err := png.Decode(fh)
	if err != nil {
		return fieldSource{}, fmt.Errorf("%s: %v", filepath.Base(path), err)
	}
	g, ok := img.(*image.Gray16)
	if !ok {
		return fieldSource{}, fmt.Errorf("%s must be a 16-bit grayscale PNG", filepath.Base(path))
	}
	b := g.Bounds()
	src := fieldSource{nx: b.Dx(), nz: b.Dy(), step: float32(scale / 65535), q: make([]uint16, b.Dx()*b.Dy())}
	for j := range src.nz {
		row := g.Pix[j*g.Stride:]
		for i := range src.nx {
			src.q[j*src.nx+i] = uint16(row[2*i])<<8 | uint16(row[2*i+1]) // big-endian samples
		}
	}
	return src, nil
}

// describeModel names a PNG's colour model for an error message.
func describeModel(m color.Model) string {
	switch m {
	case color.GrayModel:
		return "8-bit grayscale"
	case color.RGBAModel, color.NRGBAModel:
		return "8-bit colour"
	case color.RGBA64Model, color.NRGBA64Model:
		return "16-bit colour"
	}
	if _, ok := m.(color.Palette); ok {
		return "a paletted image"
	}
	return "another colour model"
}

// builtField builds the field of a valid height field shape (again: a Shape keeps no built state).
func (s *Shape) builtField() *geom.HeightGrid {
	c := &check{}
	f := s.validateField(c, "shape")
	if c.err != nil {
		panic("scenes: BodyDef of an invalid scene: " + c.err.Error())
	}
	return f
}

// heights decodes inline heights: an array of rows, each an array of numbers.
func (d *decoder) heights(m map[string]*node, key, path string) [][]float64 {
	n, ok := m[key]
	if !ok || d.err != nil {
		return nil
	}
	p := join(path, key)
	if n.kind != 'a' {
		d.fail(p, "must be an array of rows of heights", n)
		return nil
	}
	out := make([][]float64, len(n.vals))
	for j, row := range n.vals {
		rp := p + "[" + strconv.Itoa(j) + "]"
		if row.kind != 'a' {
			d.fail(rp, "must be an array of heights", row)
			return nil
		}
		out[j] = make([]float64, len(row.vals))
		for i, v := range row.vals {
			// Parsed here rather than by d.number, which would build every sample's path.
			x, err := strconv.ParseFloat(v.text, 64)
			if v.kind != 'n' || err != nil || math.IsInf(x, 0) {
				out[j][i] = d.number(v, rp+"["+strconv.Itoa(i)+"]")
				return nil
			}
			out[j][i] = x
		}
	}
	return out
}
