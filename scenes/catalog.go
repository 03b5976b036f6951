package scenes

import "strconv"

// The catalog: what each preset is, for a scene picker (the window's panel, `sandbox scenes -l`).

// Info describes a preset for a user choosing one.
type Info struct {
	Name        string // the preset's name, as Preset takes it
	Group       string // what kind of scene: "stacks", "piles", "joints", "materials", "solvers", "motion", "benchmarks", "box3d"
	Description string // one line, under 100 characters: what it shows and what to try
	Bodies      int    // bodies in the scene, static ones (the ground) included
	Joints      int    // joints in the scene
	Heavy       bool   // Bodies >= HeavyBodies: too many to draw at frame rate with a software renderer
}

// HeavyBodies is the body count from which a preset is Heavy: the 10,000-box piles and up (pile,
// rain, pile100k, pile1m) and Box3D's benchmark scenes (large_pyramid, many_pyramids, joint_grid).
// The largest preset below it, pyramid, has 386 bodies.
const HeavyBodies = 5000

// catalog lists every preset, grouped, and within a group from the simplest to the largest. The
// counts are written out rather than counted at run time because building pile1m takes seconds;
// TestCatalogMatchesThePresets builds every preset and checks them.
var catalog = []Info{
	{Name: "stack", Group: "stacks", Bodies: 21,
		Description: "20 unit boxes in a column: watch it stand, then drag the bottom box out"},
	{Name: "pyramid", Group: "stacks", Bodies: 386,
		Description: "385 boxes in a 10 x 10 square pyramid: shoot it (B) and watch it collapse"},
	{Name: "dominoes", Group: "stacks", Bodies: 41,
		Description: "40 dominoes in a row, the first tipped over: watch the wave run down the line"},
	{Name: "wall", Group: "stacks", Bodies: 97,
		Description: "A wall of 95 bricks hit by a steel ball: watch the breach, then shoot more (B)"},

	{Name: "mixed", Group: "piles", Bodies: 76,
		Description: "75 boxes, spheres and capsules falling on the ground: drag one through the heap"},
	{Name: "rocks", Group: "piles", Bodies: 54,
		Description: "48 rocks (convex hulls) dropped among 5 static boulders: watch them settle in a heap"},
	{Name: "bunny", Group: "piles", Bodies: 9,
		Description: "5 bunnies (the hull of a low-poly bunny, inertia from its mesh) dropped onto rocks"},
	{Name: "terrain", Group: "piles", Bodies: 37,
		Description: "36 boxes, balls and rocks dropped into a bumpy bowl (a static triangle mesh)"},
	{Name: "hills", Group: "piles", Bodies: 81,
		Description: "80 boxes, balls, capsules and rocks roll down a 64 m height field of hills"},
	{Name: "furniture", Group: "piles", Bodies: 11,
		Description: "Compound bodies: tables, chairs and dumbbells, a hammer thrown spinning onto them"},
	{Name: "rain", Group: "piles", Bodies: 10005,
		Description: "10,000 small boxes poured into a bin: watch the heap form and settle"},

	{Name: "pendulum", Group: "joints", Bodies: 3, Joints: 2,
		Description: "A pendulum on a ball joint and a bar on a hinge: drag them and watch them swing"},
	{Name: "cradle", Group: "joints", Bodies: 6, Joints: 5,
		Description: "Newton's cradle: 5 hinged balls, the first swings in and the last flies out"},
	{Name: "chain", Group: "joints", Bodies: 31, Joints: 30,
		Description: "30 capsule links on ball joints falling from 8 m: drag the free end and whip it"},
	{Name: "chain100", Group: "joints", Bodies: 101, Joints: 100,
		Description: "100 links solved directly (J M^-1 J^T factored tip to root): no stretch as it whips"},
	{Name: "bridge", Group: "joints", Bodies: 28, Joints: 21,
		Description: "20 hinged planks between two banks, five boxes dropped on: shoot the deck (B)"},
	{Name: "door", Group: "joints", Bodies: 4, Joints: 1,
		Description: "A door on a hinge limited to 0..100 degrees, pushed by a ball: see it stop at the limit"},
	{Name: "engine", Group: "joints", Bodies: 4, Joints: 4,
		Description: "A motor turns a crank, a rod and a piston: see the piston run between its stops"},
	{Name: "car", Group: "joints", Bodies: 6, Joints: 4,
		Description: "A chassis on four motor-driven wheels drives off: shoot it (B) or drag it over"},
	{Name: "ragdoll", Group: "joints", Bodies: 221, Joints: 200,
		Description: "20 ragdolls (cones, twist and hinge limits) in a pile: drag a limb to its limits"},

	{Name: "impulse-stack", Group: "solvers", Bodies: 16,
		Description: "Impulse solver: a ball's bounces die out, 3 boxes stand, 10 topple (no warm start)"},
	{Name: "penalty-drop", Group: "solvers", Bodies: 5,
		Description: "Penalty springs: 1, 10, 100 kg boxes sink m g / k and overshoot; heavy ones sink deep"},
	{Name: "jelly", Group: "solvers", Bodies: 82,
		Description: "Shape matching: 3 jelly cubes of 27 boxes dropped; firm recovers, soft sags, stiff rings"},

	{Name: "incline", Group: "materials", Bodies: 16,
		Description: "Boxes on 15, 25 and 35 degree ramps: where tan(theta) > mu they slide, else they stick"},
	{Name: "bowling", Group: "materials", Bodies: 12,
		Description: "A 7 kg ball rolls into ten pins: change the friction and reset (R) to roll again"},

	{Name: "tumbling", Group: "motion", Bodies: 1,
		Description: "A T-handle spinning in zero gravity flips over and back (the Dzhanibekov effect)"},

	{Name: "pyramid20", Group: "benchmarks", Bodies: 211,
		Description: "The benchmark pyramid, 210 boxes one deep: compare the solvers, then shoot it (B)"},
	{Name: "pile", Group: "benchmarks", Bodies: 10001,
		Description: "The benchmark pile: 10,000 boxes in 100 layers settle; compare solvers and backends"},
	{Name: "pile100k", Group: "benchmarks", Bodies: 100001,
		Description: "GPU benchmark: 100,000 boxes in 10 layers settle; run it on the CUDA backend"},
	{Name: "pile1m", Group: "benchmarks", Bodies: 1000001,
		Description: "GPU benchmark: a million boxes in 16 layers settle; the CUDA backend on a large GPU"},

	{Name: "large_pyramid", Group: "box3d", Bodies: 5051,
		Description: "Box3D's large pyramid: 5050 boxes one deep on a 100-box base; time it against Box3D"},
	{Name: "many_pyramids", Group: "box3d", Bodies: 10781,
		Description: "Box3D's many pyramids: 196 pyramids of 55 boxes in a 14 x 14 grid; time it against Box3D"},
	{Name: "joint_grid", Group: "box3d", Bodies: 10000, Joints: 19701,
		Description: "Box3D's joint grid: 100 x 100 spheres on ball joints hanging from a static top row"},
}

// Catalog returns every preset's Info, grouped by kind of scene (stacks, piles, joints, materials,
// motion, benchmarks, box3d), each group from the simplest scene to the largest. The slice is the caller's.
func Catalog() []Info {
	out := make([]Info, len(catalog))
	for i, in := range catalog {
		in.Heavy = in.Bodies >= HeavyBodies
		out[i] = in
	}
	return out
}

// PresetInfo returns the named preset's Info, or false if there is no such preset.
func PresetInfo(name string) (Info, bool) {
	for _, in := range catalog {
		if in.Name == name {
			in.Heavy = in.Bodies >= HeavyBodies
			return in, true
		}
	}
	return Info{}, false
}

// Register adds a preset built outside this package, as the robots scenes/urdf reads from URDF (that
// package imports this one, so this one cannot call it): build makes the scene, and info goes into
// the catalog after the last preset of its group (at the end for a new group). It is meant for
// package initialisation, and panics on a name already taken or an Info without its name.
func Register(info Info, build func() *Scene) {
	if _, taken := presets[info.Name]; taken || info.Name == "" {
		panic("scenes: Register: preset name " + strconv.Quote(info.Name) + " taken or empty")
	}
	presets[info.Name] = build
	at := len(catalog)
	for i, in := range catalog {
		if in.Group == info.Group {
			at = i + 1
		}
	}
	catalog = append(catalog[:at], append([]Info{info}, catalog[at:]...)...)
}
