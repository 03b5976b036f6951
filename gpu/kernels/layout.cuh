// layout.cuh: the device data that kernels of different stages share. Their Go mirrors are generated
// into gpu/kernels_gen.go (gpu/internal/kerngen), and TestLayoutsMatchC checks every field's offset.
#pragma once
#include "tumble.cuh"

// Shape kinds, as sim/geom.Kind.
#define TB_BOX 0
#define TB_SPHERE 1
#define TB_CAPSULE 2
#define TB_PLANE 3
#define TB_HULL 4
#define TB_MESH 5

// Body types, as sim.BodyType, in the low bits of a body's flags.
#define TB_DYNAMIC 0
#define TB_KINEMATIC 1
#define TB_STATIC 2
#define TB_TYPE_MASK 3u
// TB_ASLEEP marks a dynamic body of a sleeping island (sim.Bodies.Asleep; sleep.cu sets and clears it
// with the body's island label): it is neither integrated nor a moving body of the broad phase.
#define TB_ASLEEP 4u

// TbShape is a collision shape in its body's frame (sim/geom.Shape): a box's half extents (a, b, c),
// a sphere's radius a, a capsule's radius a and half height b (core along local y), a plane's unit
// normal (nx, ny, nz) and offset d, a convex hull's bounding radius a and its entry hull in the hull
// table (TbHull; 0 for the other kinds), a static triangle mesh's local box as its half extents (a, b,
// c) and centre (nx, ny, nz), its bounding radius d and its entry hull in the mesh table (TbMesh).
struct TbShape {
	int kind;
	float a, b, c;
	float nx, ny, nz, d;
	int hull;
};

// The convex hulls' geometry (sim/geom.Hull) is one table for all bodies: a TbHull per distinct hull,
// and four pools its entries point into, each index relative to the hull's own first element, as
// geom.Hull's slices number them. Entry TB_UNIT_BOX_HULL is the cube [-1, 1]^3 that sim/collide's
// boxes borrow their faces, loops and edges from.
#define TB_UNIT_BOX_HULL 0

// TbHull is one hull's place in the pools: vertices (float4, w unused), faces (TbHullFace), face
// loops (int vertex numbers; a face names its own stretch) and edges (TbHullEdge), and its radius
// (geom.Hull.Radius).
struct TbHull {
	int firstVert, numVerts;
	int firstFace, numFaces;
	int firstLoop;
	int firstEdge, numEdges;
	float radius;
};

// TbHullFace is geom.HullFace: the outward unit normal (nx, ny, nz), the offset (points p of the face
// have n.p = offset) and the face's loop, first and count in the hull's loop pool.
struct TbHullFace {
	float nx, ny, nz, offset;
	int first, count;
};

// TbHullEdge is geom.HullEdge: vertices v0, v1 and the faces f0 (left of v0 -> v1 seen from outside)
// and f1.
struct TbHullEdge {
	int v0, v1, f0, f1;
};

// The static triangle meshes' geometry (sim/geom.Mesh) is one table too: a TbMesh per distinct mesh,
// and pools of BVH nodes (TbMeshNode), leaf orders (int triangle numbers), triangles (TbMeshTri),
// triangle normals (float4, w unused) and vertices (float4, w unused), each index relative to the
// mesh's own first element, as geom.Mesh's slices number them.

// TbMesh is one mesh's place in the pools.
struct TbMesh {
	int firstNode, firstOrder, firstTri, firstVert;
};

// TbMeshNode is geom.MeshNode: the node's box, and a leaf's triangles order[first : first+count]
// (count > 0) or an inner node's second child, node first (its first child is the next node).
struct TbMeshNode {
	float lo[3], hi[3];
	int first, count;
};

// TbMeshTri is a triangle: its vertices' numbers (v0, v1, v2, counter-clockwise seen from the side
// bodies are kept on) and its active edges (geom.Mesh.Active: bit k for the edge from vertex k to k+1).
struct TbMeshTri {
	int v0, v1, v2;
	unsigned active;
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
	case TB_HULL:
		return s.a;
	case TB_MESH:
		return s.d;
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
