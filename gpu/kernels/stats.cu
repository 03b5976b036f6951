// stats.cu: what the host reads at the end of a step, gathered into one small buffer so that a step
// has exactly one read-back.
#include "layout.cuh"

// tb_stats_points adds up the points of the narrow phase's contacts (those within capacity) into
// *points, which the caller zeroes first.
TB_KERNEL void tb_stats_points(const TbContact *contacts, const unsigned *count, int cap, unsigned *points) {
	unsigned i = tbThread();
	if (i < min(*count, (unsigned)cap)) {
		atomicAdd(points, (unsigned)contacts[i].count);
	}
}
TB_REGISTER(tb_stats_points)

// tb_stats_gather copies the step's counters into out: pairs, contacts (touching pairs), the first
// blown-up body (int, -1 for none), contact points, then the graph colours the Gauss-Seidel passes
// needed for the manifolds and for the joints (tb_gs_colour's, two ints at colours). One thread.
TB_KERNEL void tb_stats_gather(const unsigned *pairs, const unsigned *contacts, const int *bad,
                               const unsigned *points, const int *colours, unsigned *out) {
	if (tbThread() == 0) {
		out[0] = *pairs;
		out[1] = *contacts;
		out[2] = (unsigned)*bad;
		out[3] = *points;
		out[4] = (unsigned)colours[0];
		out[5] = (unsigned)colours[1];
	}
}
TB_REGISTER(tb_stats_gather)
