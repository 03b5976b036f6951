// tumble.cuh: what every Tumble kernel includes.
//
// The kernels are written once and compiled twice:
//   - by nvcc (make kernels) to PTX, which gpu/ embeds and loads through the CUDA driver API;
//   - by the host C++ compiler through cgo (package tumble/gpu/emu), with the emulation below, so that
//     make test runs every kernel's logic on a machine without a GPU.
//
// Rules that keep the two builds equivalent:
//   - A kernel is declared TB_KERNEL and registered at the end of its file with TB_REGISTER(name) when
//     it never calls __syncthreads, or TB_REGISTER_SYNC(name) when it does (the emulator then runs the
//     block's threads as fibers that meet at each barrier).
//   - Kernel parameters are device pointers or scalars of at most 8 bytes (the host passes each in one
//     8-byte slot). Structures live in device buffers.
//   - Shared memory is static (__shared__ arrays of fixed size); no dynamic shared memory, no warp
//     intrinsics (__shfl, __ballot): the emulator has no warps.
//   - Grids are one-dimensional in x (gridDim.x blocks of blockDim.x threads).
#pragma once

#ifdef __CUDACC__

#include <stdint.h>
#define TB_KERNEL_0 extern "C" __global__
#define TB_FN static __device__ __forceinline__
#define TB_REGISTER_0(name)
#define TB_REGISTER_SYNC_0(name)

#else // host emulation

#include <atomic>
#include <cmath>
#include <cstddef>
#include <cstdint>
#include <cstring>
#include <utility>

#define __device__
#define __host__
#define __global__
#define __forceinline__ inline
#define __restrict__ __restrict
// The emulator runs one block at a time on one OS thread, so a static local is exactly one block's
// shared memory.
#define __shared__ static thread_local

struct uint3 {
	unsigned int x, y, z;
};
struct dim3 {
	unsigned int x, y, z;
};
struct float2 {
	float x, y;
} __attribute__((aligned(8)));
struct float3 {
	float x, y, z;
};
struct float4 {
	float x, y, z, w;
} __attribute__((aligned(16)));
struct int2 {
	int x, y;
} __attribute__((aligned(8)));
struct uint2 {
	unsigned int x, y;
} __attribute__((aligned(8)));
struct int4 {
	int x, y, z, w;
} __attribute__((aligned(16)));
struct uint4 {
	unsigned int x, y, z, w;
} __attribute__((aligned(16)));

inline float2 make_float2(float x, float y) { return float2{x, y}; }
inline float3 make_float3(float x, float y, float z) { return float3{x, y, z}; }
inline float4 make_float4(float x, float y, float z, float w) { return float4{x, y, z, w}; }
inline int2 make_int2(int x, int y) { return int2{x, y}; }
inline uint2 make_uint2(unsigned x, unsigned y) { return uint2{x, y}; }
inline int4 make_int4(int x, int y, int z, int w) { return int4{x, y, z, w}; }
inline uint4 make_uint4(unsigned x, unsigned y, unsigned z, unsigned w) { return uint4{x, y, z, w}; }

namespace tbemu {
extern thread_local uint3 thread_idx, block_idx;
extern thread_local dim3 block_dim, grid_dim;
void syncthreads();
typedef void (*invoker)(void *fn, void **params);
void register_kernel(const char *name, void *fn, invoker call, const size_t *sizes, int nparams, bool sync);

template <typename... A, size_t... I>
inline void invoke_with(void (*f)(A...), void **p, std::index_sequence<I...>) {
	f(*static_cast<A *>(p[I])...);
}
template <typename... A>
struct kernel_traits {
	static void call(void *fn, void **p) {
		invoke_with(reinterpret_cast<void (*)(A...)>(fn), p, std::index_sequence_for<A...>{});
	}
	static constexpr bool small_params = ((sizeof(A) <= 8) && ... && true);
};
template <typename... A>
inline kernel_traits<A...> traits_of(void (*)(A...)) { return {}; }
template <typename... A>
struct param_sizes {
	static constexpr size_t value[sizeof...(A) + 1] = {sizeof(A)..., 0};
	static constexpr int count = sizeof...(A);
};
template <typename... A>
inline param_sizes<A...> sizes_of(void (*)(A...)) { return {}; }

struct registrar {
	template <typename... A>
	registrar(const char *name, void (*f)(A...), bool sync) {
		static_assert(kernel_traits<A...>::small_params, "kernel parameters must be at most 8 bytes each");
		register_kernel(name, reinterpret_cast<void *>(f), &kernel_traits<A...>::call, param_sizes<A...>::value,
		                param_sizes<A...>::count, sync);
	}
};
} // namespace tbemu

#define threadIdx (tbemu::thread_idx)
#define blockIdx (tbemu::block_idx)
#define blockDim (tbemu::block_dim)
#define gridDim (tbemu::grid_dim)
#define __syncthreads() tbemu::syncthreads()
#define __threadfence() std::atomic_thread_fence(std::memory_order_seq_cst)

#define TB_KERNEL_0 extern "C"
#define TB_FN static inline
#define TB_REGISTER_0(name) static tbemu::registrar tb_reg_##name(#name, &name, false);
#define TB_REGISTER_SYNC_0(name) static tbemu::registrar tb_reg_##name(#name, &name, true);

// Atomics. The emulator runs blocks one after another, but these are real atomics so that running
// blocks on several OS threads stays correct.
inline int atomicAdd(int *a, int v) { return __atomic_fetch_add(a, v, __ATOMIC_SEQ_CST); }
inline unsigned atomicAdd(unsigned *a, unsigned v) { return __atomic_fetch_add(a, v, __ATOMIC_SEQ_CST); }
inline unsigned long long atomicAdd(unsigned long long *a, unsigned long long v) {
	return __atomic_fetch_add(a, v, __ATOMIC_SEQ_CST);
}
inline float atomicAdd(float *a, float v) {
	unsigned *u = reinterpret_cast<unsigned *>(a);
	unsigned old = __atomic_load_n(u, __ATOMIC_SEQ_CST), next;
	do {
		float f;
		std::memcpy(&f, &old, 4);
		f += v;
		std::memcpy(&next, &f, 4);
	} while (!__atomic_compare_exchange_n(u, &old, next, false, __ATOMIC_SEQ_CST, __ATOMIC_SEQ_CST));
	float r;
	std::memcpy(&r, &old, 4);
	return r;
}
inline int atomicSub(int *a, int v) { return __atomic_fetch_sub(a, v, __ATOMIC_SEQ_CST); }
inline unsigned atomicSub(unsigned *a, unsigned v) { return __atomic_fetch_sub(a, v, __ATOMIC_SEQ_CST); }
inline int atomicExch(int *a, int v) { return __atomic_exchange_n(a, v, __ATOMIC_SEQ_CST); }
inline unsigned atomicExch(unsigned *a, unsigned v) { return __atomic_exchange_n(a, v, __ATOMIC_SEQ_CST); }
inline int atomicCAS(int *a, int cmp, int v) {
	__atomic_compare_exchange_n(a, &cmp, v, false, __ATOMIC_SEQ_CST, __ATOMIC_SEQ_CST);
	return cmp;
}
inline unsigned atomicCAS(unsigned *a, unsigned cmp, unsigned v) {
	__atomic_compare_exchange_n(a, &cmp, v, false, __ATOMIC_SEQ_CST, __ATOMIC_SEQ_CST);
	return cmp;
}
inline unsigned long long atomicCAS(unsigned long long *a, unsigned long long cmp, unsigned long long v) {
	__atomic_compare_exchange_n(a, &cmp, v, false, __ATOMIC_SEQ_CST, __ATOMIC_SEQ_CST);
	return cmp;
}
template <typename T>
inline T tb_atomic_min(T *a, T v) {
	T old = __atomic_load_n(a, __ATOMIC_SEQ_CST);
	while (v < old && !__atomic_compare_exchange_n(a, &old, v, false, __ATOMIC_SEQ_CST, __ATOMIC_SEQ_CST)) {
	}
	return old;
}
template <typename T>
inline T tb_atomic_max(T *a, T v) {
	T old = __atomic_load_n(a, __ATOMIC_SEQ_CST);
	while (v > old && !__atomic_compare_exchange_n(a, &old, v, false, __ATOMIC_SEQ_CST, __ATOMIC_SEQ_CST)) {
	}
	return old;
}
inline int atomicMin(int *a, int v) { return tb_atomic_min(a, v); }
inline unsigned atomicMin(unsigned *a, unsigned v) { return tb_atomic_min(a, v); }
inline int atomicMax(int *a, int v) { return tb_atomic_max(a, v); }
inline unsigned atomicMax(unsigned *a, unsigned v) { return tb_atomic_max(a, v); }
inline unsigned atomicOr(unsigned *a, unsigned v) { return __atomic_fetch_or(a, v, __ATOMIC_SEQ_CST); }
inline unsigned atomicAnd(unsigned *a, unsigned v) { return __atomic_fetch_and(a, v, __ATOMIC_SEQ_CST); }

// Intrinsics.
inline int __float_as_int(float f) {
	int i;
	std::memcpy(&i, &f, 4);
	return i;
}
inline unsigned __float_as_uint(float f) {
	unsigned i;
	std::memcpy(&i, &f, 4);
	return i;
}
inline float __int_as_float(int i) {
	float f;
	std::memcpy(&f, &i, 4);
	return f;
}
inline float __uint_as_float(unsigned i) {
	float f;
	std::memcpy(&f, &i, 4);
	return f;
}
inline int __clz(int x) { return x == 0 ? 32 : __builtin_clz(static_cast<unsigned>(x)); }
inline int __clzll(long long x) { return x == 0 ? 64 : __builtin_clzll(static_cast<unsigned long long>(x)); }
inline int __popc(unsigned x) { return __builtin_popcount(x); }
inline int __ffs(int x) { return __builtin_ffs(x); }
inline float rsqrtf(float x) { return 1.0f / std::sqrt(x); }
inline float __fdividef(float a, float b) { return a / b; }
inline float __saturatef(float x) { return x < 0 ? 0 : (x > 1 ? 1 : x); }
#include <math.h>
inline int min(int a, int b) { return a < b ? a : b; }
inline int max(int a, int b) { return a > b ? a : b; }
inline unsigned min(unsigned a, unsigned b) { return a < b ? a : b; }
inline unsigned max(unsigned a, unsigned b) { return a > b ? a : b; }
inline long long min(long long a, long long b) { return a < b ? a : b; }
inline long long max(long long a, long long b) { return a > b ? a : b; }
inline unsigned long long min(unsigned long long a, unsigned long long b) { return a < b ? a : b; }
inline unsigned long long max(unsigned long long a, unsigned long long b) { return a > b ? a : b; }
inline float min(float a, float b) { return a < b ? a : b; }
inline float max(float a, float b) { return a > b ? a : b; }

#endif // __CUDACC__

// Atomic min and max on floats, for both builds: ordered through the integer view (non-negative floats
// order like their bits as signed ints, negative ones in reverse as unsigned).
TB_FN float tbAtomicMinFloat(float *a, float v) {
	return v >= 0 ? __int_as_float(atomicMin(reinterpret_cast<int *>(a), __float_as_int(v)))
	              : __uint_as_float(atomicMax(reinterpret_cast<unsigned *>(a), __float_as_uint(v)));
}
TB_FN float tbAtomicMaxFloat(float *a, float v) {
	return v >= 0 ? __int_as_float(atomicMax(reinterpret_cast<int *>(a), __float_as_int(v)))
	              : __uint_as_float(atomicMin(reinterpret_cast<unsigned *>(a), __float_as_uint(v)));
}

// The global index of this thread in a one-dimensional grid.
TB_FN unsigned tbThread() { return blockIdx.x * blockDim.x + threadIdx.x; }

// TB_KERNEL, TB_REGISTER and TB_REGISTER_SYNC pick their form by TB_BORROWING where they are used. A
// file may compile other files' kernels into its own module to call their device functions (one kernel
// doing the work of several launches: small.cu): it includes their .cu files between #define
// TB_BORROWING 1 and #define TB_BORROWING 0 (each after #undef), which makes their kernels unused
// static functions, neither kernels of its module nor registered with the emulator a second time.
#define TB_BORROWING 0
#define TB_PICK(a, b) TB_PICK_(a, b)
#define TB_PICK_(a, b) a##b
#define TB_KERNEL TB_PICK(TB_KERNEL_, TB_BORROWING)
#define TB_KERNEL_1 static __device__ inline
#define TB_REGISTER(name) TB_PICK(TB_REGISTER_, TB_BORROWING)(name)
#define TB_REGISTER_SYNC(name) TB_PICK(TB_REGISTER_SYNC_, TB_BORROWING)(name)
#define TB_REGISTER_1(name)
#define TB_REGISTER_SYNC_1(name)
// A body kernel runs over every body (list null: thread t takes body t of n) or over a list of body
// indices the device compacted (list, *listN of them: the awake ones, gpu/awake.go), each thread
// striding by the grid, so that a grid the host sized from its estimate of the list still covers a
// list that grew on the device. The bodies' work does not depend on which thread takes them.
TB_FN int tbBodyCount(const int *list, const unsigned *listN, int n) { return list != 0 ? (int)*listN : n; }
TB_FN int tbBodyAt(const int *list, int t) { return list != 0 ? list[t] : t; }
TB_FN int tbStride() { return (int)(gridDim.x * blockDim.x); }
