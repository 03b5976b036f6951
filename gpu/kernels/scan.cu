// scan.cu: exclusive prefix sums of uint32 arrays, the building block of compaction and radix sort.
// A scan of n values runs tb_scan_blocks (each block scans TB_SCAN_ITEMS values and writes their sum),
// scans the block sums the same way, then adds them back with tb_scan_add (gpu/scan.go drives it).
#include "tumble.cuh"

#define TB_SCAN_THREADS 256
#define TB_SCAN_PER_THREAD 4
#define TB_SCAN_ITEMS (TB_SCAN_THREADS * TB_SCAN_PER_THREAD)

// tb_scan_blocks writes out[i] = the sum of in[j] for j < i within i's block of TB_SCAN_ITEMS values,
// and sums[block] = the block's total. in and out may be the same buffer. Launch with
// TB_SCAN_THREADS threads per block.
TB_KERNEL void tb_scan_blocks(const unsigned *in, unsigned *out, unsigned *sums, int n) {
	__shared__ unsigned part[TB_SCAN_THREADS];
	unsigned t = threadIdx.x;
	unsigned base = blockIdx.x * TB_SCAN_ITEMS + t * TB_SCAN_PER_THREAD;
	unsigned v[TB_SCAN_PER_THREAD];
	unsigned local = 0;
	for (int k = 0; k < TB_SCAN_PER_THREAD; k++) {
		unsigned i = base + k;
		v[k] = i < (unsigned)n ? in[i] : 0;
		local += v[k];
	}
	part[t] = local;
	__syncthreads();
	for (unsigned off = 1; off < TB_SCAN_THREADS; off <<= 1) {
		unsigned add = t >= off ? part[t - off] : 0;
		__syncthreads();
		part[t] += add;
		__syncthreads();
	}
	unsigned run = part[t] - local;
	for (int k = 0; k < TB_SCAN_PER_THREAD; k++) {
		unsigned i = base + k;
		if (i < (unsigned)n) {
			out[i] = run;
		}
		run += v[k];
	}
	if (t == TB_SCAN_THREADS - 1) {
		sums[blockIdx.x] = part[t];
	}
}
TB_REGISTER_SYNC(tb_scan_blocks)

// tb_scan_add adds each block's offset (the exclusive scan of the block sums) to its values.
TB_KERNEL void tb_scan_add(unsigned *out, const unsigned *offsets, int n) {
	unsigned i = tbThread();
	if (i < (unsigned)n) {
		out[i] += offsets[i / TB_SCAN_ITEMS];
	}
}
TB_REGISTER(tb_scan_add)

// tb_fill_u32 sets n values to v.
TB_KERNEL void tb_fill_u32(unsigned *out, unsigned v, int n) {
	unsigned i = tbThread();
	if (i < (unsigned)n) {
		out[i] = v;
	}
}
TB_REGISTER(tb_fill_u32)
