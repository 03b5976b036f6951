package gpu

// Go mirrors of gpu/kernels/layout.cuh (TestLayoutsMatch checks their sizes against the C++ ones).

// float4 is CUDA's float4: 16 bytes, 16-byte aligned on the device.
type float4 struct{ X, Y, Z, W float32 }

// float2 is CUDA's float2.
type float2 struct{ X, Y float32 }

// int2 is CUDA's int2: a broad-phase pair (a, b).
type int2 struct{ X, Y int32 }

// tbShape mirrors TbShape.
type tbShape struct {
	Kind          int32
	A, B, C       float32
	NX, NY, NZ, D float32
}

// tbPoint mirrors TbPoint.
type tbPoint struct {
	PX, PY, PZ float32
	Sep        float32
	ID         uint32
}

// tbContact mirrors TbContact.
type tbContact struct {
	A, B       int32
	Count      int32
	NX, NY, NZ float32
	Pts        [4]tbPoint
}

// bodyBuffers holds the device arrays of body state (layout.cuh), indexed by dense body index.
type bodyBuffers struct {
	pos, rot, vel, omega, invI buffer // float4 each
	shape                      buffer // tbShape
	material                   buffer // float2: friction, restitution
	flags                      buffer // uint32: body type
	// invIW is the world inverse inertia R diag(invI) R^T, three float4 rows per body (w unused),
	// refreshed by the solver whenever orientations change.
	invIW buffer
	n     int // bodies
}
