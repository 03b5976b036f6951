// layout.cuh: the device data that kernels of different stages share. Their Go mirrors are generated
// into gpu/kernels_gen.go (gpu/internal/kerngen), and TestLayoutsMatchC checks every field's offset.
#pragma once
#include "tumble.cuh"

// Shape kinds, as sim/geom.Kind.
#define TB_BOX 0
#define TB_SPHERE 1
#define TB_CAPSULE 2
#define TB_PLANE 3

// Body types, as sim.BodyType, in the low bits of a body's flags.
#define TB_DYNAMIC 0
#define TB_KINEMATIC 1
#define TB_STATIC 2
#define TB_TYPE_MASK 3u

// TbShape is a collision shape in its body's frame (sim/geom.Shape): a box's half extents (a, b, c),
// a sphere's radius a, a capsule's radius a and half height b (core along local y), a plane's unit
// normal (nx, ny, nz) and offset d.
struct TbShape {
	int kind;
	float a, b, c;
	float nx, ny, nz, d;
};

// tbBoundingRadius is sim's boundingRadius: the distance from the centre to the shape's farthest point
// (zero for a plane).
TB_FN float tbBoundingRadius(const TbShape &s) {
	switch (s.kind) {
	case TB_BOX:
		return sqrtf(s.a * s.a + s.b * s.b + s.c * s.c);
	case TB_SPHERE:
		return s.a;
	case TB_CAPSULE:
		return s.a + s.b;
	}
	return 0;
}

// Body state lives in separate arrays indexed by the dense body index (as sim.Bodies):
//   float4 pos[]      centre of mass (xyz), inverse mass (w; 0 for static and kinematic)
//   float4 rot[]      orientation quaternion (x, y, z, w)
//   float4 vel[]      linear velocity (xyz), w unused (0)
//   float4 omega[]    angular velocity (xyz), w unused (0)
//   float4 invI[]     principal inverse inertia, local frame (xyz), w unused (0)
//   TbShape shape[]
//   float4 material[] friction (x), restitution (y), rolling (z) and spinning (w) resistance
//   unsigned flags[]  body type (TB_TYPE_MASK bits)

// A broad-phase pair is an int2 (a, b) of dense indices with a < b; pair lists are sorted by (a, b).

// TbPoint is one contact point of a narrow-phase manifold (sim/collide.Point).
struct TbPoint {
	float px, py, pz; // world, midway between the surfaces
	float sep;        // signed distance along the normal, negative when overlapping
	unsigned id;      // feature id, stable while the same features touch
};

// TbContact is a touching pair from the narrow phase (sim/collide.Manifold, with its bodies).
struct TbContact {
	int a, b;         // dense body indices, a < b
	int count;        // points, 1..4
	float nx, ny, nz; // unit normal from a to b
	TbPoint pts[4];
};
