package gpu

import "unsafe"

// The Go mirrors of the kernels' structures (tbShape, tbContact, tbJoint, float4, ...) are generated
// into kernels_gen.go from gpu/kernels by gpu/internal/kerngen; TestLayoutsMatchC checks them.

// Sizes of the kernels' structures that buffers are sized by.
const (
	contactBytes        = int(unsafe.Sizeof(tbContact{}))        // TbContact
	solverManifoldBytes = int(unsafe.Sizeof(tbSolverManifold{})) // TbSolverManifold
	contactOutBytes     = int(unsafe.Sizeof(tbContactOut{}))     // TbContactOut
	tbBoxSize           = int(unsafe.Sizeof(tbBox{}))            // TbBox
	tbNodeSize          = int(unsafe.Sizeof(tbNode{}))           // TbNode
	tbBigSize           = int(unsafe.Sizeof(tbBig{}))            // TbBig
	hullBytes           = int(unsafe.Sizeof(tbHull{}))           // TbHull
	hullFaceBytes       = int(unsafe.Sizeof(tbHullFace{}))       // TbHullFace
	hullEdgeBytes       = int(unsafe.Sizeof(tbHullEdge{}))       // TbHullEdge
	meshBytes           = int(unsafe.Sizeof(tbMesh{}))           // TbMesh
	meshNodeBytes       = int(unsafe.Sizeof(tbMeshNode{}))       // TbMeshNode
	meshTriBytes        = int(unsafe.Sizeof(tbMeshTri{}))        // TbMeshTri
)

// bodyBuffers holds the device arrays of body state (layout.cuh), indexed by dense body index.
type bodyBuffers struct {
	pos, rot, vel, omega, invI buffer // float4 each
	shape                      buffer // tbShape
	material                   buffer // float4: friction, restitution, rolling and spinning resistance
	flags                      buffer // uint32: body type
	// invIW is the world inverse inertia R diag(invI) R^T, three float4 rows per body (w unused),
	// refreshed by the solver whenever orientations change.
	invIW buffer
	// hulls holds the convex hulls' geometry that hull shapes index (tbShape.Hull).
	hulls hullTable
	// meshes holds the static triangle meshes' geometry that mesh shapes index (tbShape.Hull).
	meshes meshTable
	n      int // bodies
}
