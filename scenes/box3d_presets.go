package scenes

import "strconv"

// The Box3D presets rebuild three of Box3D's benchmark scenes (erincatto/box3d, shared/benchmarks.c:
// CreateLargePyramid, CreateManyPyramids, CreateJointGrid, at their release-build sizes) so that
// Tumble's step can be timed against Box3D's runner on the same bodies. Box3D computes every position
// in float32; the builders below repeat its arithmetic operation by operation in float32 (each
// product and sum converted explicitly, so none is fused), and write each coordinate as the shortest
// decimal that reads back to the same float32. The bodies come in Box3D's creation order, ground
// first. The files they export are byte for byte the peer's (../shared/tools/peers/box3d/scenes),
// which TestBox3DPresetsExportAsThePeerFiles checks.
//
// Box3D's defaults, as the scenes carry them: gravity (0, -10, 0), dt 1/60, friction 0.6 on every
// body (mixed by geometric mean, as Tumble mixes it), restitution 0, boxes of density 100 and spheres
// of Box3D's default density 1000, and no sleeping. The solver block says only that: Tumble's solver
// runs at its own defaults, as users run it.

// box3dFriction is Box3D's default friction (b3DefaultSurfaceMaterial).
const box3dFriction = 0.6

// box3dDensity is the density of the Box3D benchmarks' boxes.
const box3dDensity = 100

// f32num is a float32 coordinate as the scene file holds it: the shortest decimal that reads back to
// the same float32, as a float64 (so 75.99999, not 75.99998474121094).
func f32num(x float32) float64 {
	y, _ := strconv.ParseFloat(strconv.FormatFloat(float64(x), 'g', -1, 32), 64)
	return y
}

// f32vec is a float32 point as the scene file holds it.
func f32vec(x, y, z float32) *Vec3 { return &Vec3{f32num(x), f32num(y), f32num(z)} }

// box3dScene is a scene with Box3D's world settings and sleeping off.
func box3dScene(name string) *Scene {
	g := Vec3{0, -10, 0}
	dt := 1.0 / 60
	sleep := false
	return &Scene{Name: name, Gravity: &g, Dt: &dt, Solver: &Solver{Sleep: &sleep}, Bodies: []Body{}}
}

// box3dGround is Box3D's ground: a static box hull of half extents (e, 1, e) centred at y = -1.
func box3dGround(e float32) Body {
	return Body{Name: "ground", Type: "static", Shape: Shape{Type: "box", HalfExtents: f32vec(e, 1, e)},
		Position: f32vec(0, -1, 0), Friction: num(box3dFriction)}
}

// box3dBox is a dynamic cube of half extent h at (x, y, z).
func box3dBox(x, y, z, h float32) Body {
	return Body{Shape: Shape{Type: "box", HalfExtents: f32vec(h, h, h)}, Position: f32vec(x, y, z),
		Density: num(box3dDensity), Friction: num(box3dFriction)}
}

// largePyramid is CreateLargePyramid: a pyramid one box deep (z = 0) on a base of 100 boxes of 1 m,
// the boxes touching, 5050 in all.
func largePyramid() *Scene {
	const baseCount = 100
	s := box3dScene("box3d large_pyramid: 100-box base, one box deep, 5050 boxes of 1 m, density 100")
	s.Bodies = make([]Body, 0, 1+baseCount*(baseCount+1)/2)
	s.add(box3dGround(400))
	var h float32 = 0.5
	shift := float32(1 * h)
	for i := range baseCount {
		y := float32(float32(2*float32(i)+1) * shift)
		for j := i; j < baseCount; j++ {
			a := float32(float32(float32(i)+1) * shift)
			b := float32(float32(2*float32(j-i)) * shift)
			x := float32(float32(a+b) - float32(h*baseCount))
			s.add(box3dBox(x, y, 0, h))
		}
	}
	return s
}

// manyPyramids is CreateManyPyramids: 14 x 14 pyramids of base 10 (55 boxes of 1 m each, 10780 in
// all) on a ground of half extent 77, 1 m apart in x and in rows about 11.69 m apart in z. The rows'
// z accumulates as Box3D's does (baseZ += deltaZ), so the last row is at 75.99999.
func manyPyramids() *Scene {
	const baseCount, rows, columns = 10, 14, 14
	s := box3dScene("box3d many_pyramids: 14 x 14 pyramids of base 10, 10780 boxes of 1 m, density 100")
	s.Bodies = make([]Body, 0, 1+rows*columns*baseCount*(baseCount+1)/2)
	var extent float32 = 0.5
	groundExtent := float32(float32(extent*columns) * float32(baseCount+1))
	s.add(box3dGround(groundExtent))
	baseWidth := float32(float32(2*extent) * baseCount)
	baseZ := float32(-groundExtent + float32(2*extent))
	deltaZ := float32(float32(2*float32(groundExtent-float32(2*extent))) / float32(rows-1))
	for range rows {
		for j := range columns {
			centerX := float32(float32(-groundExtent+float32(float32(j)*float32(baseWidth+float32(2*extent)))) + float32(2*extent))
			// CreateSmallPyramid(baseCount, extent, centerX, baseZ).
			for i := range baseCount {
				y := float32(float32(2*float32(i)+1) * extent)
				for jj := i; jj < baseCount; jj++ {
					x := float32(float32(float32(i)+1) * extent)
					x = float32(x + float32(float32(2*float32(jj-i))*extent))
					x = float32(x + centerX)
					x = float32(x - 0.5)
					s.add(box3dBox(x, y, baseZ, extent))
				}
			}
		}
		baseZ = float32(baseZ + deltaZ)
	}
	return s
}

// jointGrid is CreateJointGrid: 100 x 100 spheres of radius 0.4 at (k, -i, 0), the top row (i = 0)
// static, each other sphere joined by a ball joint to the sphere above it and to the one before it in
// x, the anchor half way between them; no ground. Box3D also joins the static top row to itself (99
// joints between two static bodies, which act on nothing); Tumble refuses a joint with no dynamic
// body, so those are left out: 19,701 joints to Box3D's 19,800.
func jointGrid() *Scene {
	const n = 100
	s := box3dScene("box3d joint_grid: 100 x 100 spheres (r 0.4) on ball joints, top row static, no ground")
	s.Bodies = make([]Body, 0, n*n)
	s.Joints = make([]Joint, 0, 2*n*(n-1)-(n-1))
	name := func(i int) string { return "body" + strconv.Itoa(i) }
	for k := range n {
		for i := range n {
			b := Body{Shape: sphere(0.4), Position: f32vec(float32(k), -float32(i), 0), Friction: num(box3dFriction)}
			if i == 0 {
				b.Type = "static"
				b.Position = f32vec(float32(k), 0, 0) // 0, not -0
			}
			s.add(b)
			index := k*n + i
			if i > 0 {
				s.Joints = append(s.Joints, Joint{Type: "ball", BodyA: name(index - 1), BodyB: name(index),
					Anchor: f32vec(float32(k), float32(-float32(i)+0.5), 0)})
			}
			if k > 0 && i > 0 {
				s.Joints = append(s.Joints, Joint{Type: "ball", BodyA: name(index - n), BodyB: name(index),
					Anchor: f32vec(float32(float32(k)-0.5), -float32(i), 0)})
			}
		}
	}
	return s
}
