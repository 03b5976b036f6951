// small.cu: the small-world path (gpu/small.go). A small world's sub-step loop launches a kernel for
// every phase of every pass (16 sub-steps of 2+2 Jacobi passes: about 200 launches a step, more under
// PGS, one per colour), each a few microseconds of fixed cost on a GPU, for a few hundred rows. Here
// the whole loop, the restitution after it and the step's end are one launch of one block: its threads
// stride over the bodies, manifolds and joints of each phase and meet at __syncthreads between phases,
// where the per-pass path has a kernel boundary. Each phase calls the very device functions the per-pass kernels
// call on the same items, so the step's bits are the per-pass path's (and so the CPU's).
#include "tumble.cuh"

// The per-pass kernels' files, for their device functions (tumble.cuh, "TB_BORROWING").
#undef TB_BORROWING
#define TB_BORROWING 1
#include "integrate.cu"
#include "joints.cu"
#include "solver.cu"
#include "sleep.cu"
#undef TB_BORROWING
#define TB_BORROWING 0

// The stages a program runs (gpu/small.go's smallStages): each op is a stage and its passes, sim's
// plan from the first sub-step's integration to restitution.
#define TB_SMALL_VELOCITIES 1 // integrate velocities
#define TB_SMALL_WARM 2       // warm start
#define TB_SMALL_SOLVE 3      // passes with bias
#define TB_SMALL_POSITIONS 4  // integrate positions
#define TB_SMALL_RELAX 5      // passes without bias
#define TB_SMALL_RESTITUTE 6  // restitution passes
#define TB_SMALL_STORE 7      // world inertia, the kept manifolds, the blow-up check, the joints' held forces
#define TB_SMALL_SLEEP 8      // the sleep stage: rest times, islands, the islands that fall asleep

// tbSmallAsleep reports whether body i sleeps. The per-pass path runs its body kernels that do not
// skip a sleeping body themselves (the world inertia, the blow-up check, a gather without joints) over
// the awake list (gpu/awake.go), the bodies neither static nor asleep; a static body returns early from
// each, so the block skips the sleeping ones alone and needs no list (nor does the sleep stage, whose
// device functions skip them too). Without sleeping no body has the flag.
TB_FN bool tbSmallAsleep(const unsigned *flags, int i) { return (flags[i] & TB_ASLEEP) != 0; }

// TB_SMALL_MAX_THREADS bounds the block tbSmallScan's shared sums serve (gpu/small.go launches 256 or,
// to compare, up to 512 threads).
#define TB_SMALL_MAX_THREADS 1024

// tbSmallScan makes a[0..m) its exclusive prefix sums in one block (scan.cu's in several launches):
// each thread sums a run of consecutive entries, thread 0 scans the runs' sums in order, and each
// thread writes its run's prefix sums from its start. part is the block's shared scratch.
TB_FN void tbSmallScan(unsigned *a, int m, unsigned *part) {
	int t = threadIdx.x, nt = blockDim.x;
	int run = (m + nt - 1) / nt;
	int lo = min(t * run, m), hi = min(lo + run, m);
	unsigned sum = 0;
	for (int i = lo; i < hi; i++) {
		sum += a[i];
	}
	part[t] = sum;
	__syncthreads();
	if (t == 0) {
		unsigned total = 0;
		for (int k = 0; k < nt; k++) {
			unsigned v = part[k];
			part[k] = total;
			total += v;
		}
	}
	__syncthreads();
	sum = part[t];
	for (int i = lo; i < hi; i++) {
		unsigned v = a[i];
		a[i] = sum;
		sum += v;
	}
	__syncthreads();
}

// tbSmallColours runs f(k) for the entries of each colour of a colouring (order, colourStart) in turn,
// colours 0 to budget-1 and, past TB_GS_COLOURS, the overflow, as the per-colour launches do (gs.go's
// each): a colour's rows share no dynamic body, so the block's threads share them out; the overflow's
// rows run on thread 0 in order. A barrier closes each colour.
template <typename F>
TB_FN void tbSmallColours(const int *order, const int *colourStart, int budget, F f) {
	int t = threadIdx.x, stride = blockDim.x;
	for (int c = 0; c < budget && c < TB_GS_COLOURS; c++) {
		for (int i = colourStart[c] + t; i < colourStart[c + 1]; i += stride) {
			f(order[i]);
		}
		__syncthreads();
	}
	if (budget > TB_GS_COLOURS) {
		if (t == 0) {
			for (int i = colourStart[TB_GS_COLOURS]; i < colourStart[TB_GS_COLOURS + 1]; i++) {
				f(order[i]);
			}
		}
		__syncthreads();
	}
}

// tb_small_substeps runs the ops (nops pairs of a TB_SMALL_* stage and its passes) over the world in
// one block of any size (gpu/small.go's smallThreads): what solverStage.run launches for the same ops,
// phase for phase, and with sleeping on what Backend.runPlan launches at the step's end (sleepStage's
// still and run, jointStage's hold). gs
// selects PGS's passes (the joints' colours, then the manifolds', colours and budgets from gs.go)
// over Jacobi's (every row from the pass's start velocities, then the gather); jointLists says whether
// the gathers add the joints' records (jimp, jstart, jadj), as solverStage.gather does. held, when not
// null, takes the forces of the joints whose island is awake at the step's end (TB_SMALL_STORE); the
// sleep stage (TB_SMALL_SLEEP) reads the narrow phase's contacts (contacts, contactCount, contactCap) and
// the jointed pairs (jointed, nJointed) and keeps sleepStage's arrays (asleep, rest, parent, restMin,
// label, next) and, with slept not null, appends the points of the manifolds whose island fell asleep
// to the sleeping islands' list (Backend.keepSlept's launches: sleptMark the marks and their scan,
// slept, sleptLabel and sleptN the list, sleptCap its room, *sleptNeed the room it needed).
TB_KERNEL void tb_small_substeps(const int *ops, int nops, float4 *pos, float4 *rot, float4 *vel, float4 *omega,
                                 const float4 *invI, float4 *invIW, unsigned *flags, int n,
                                 TbSolverManifold *man, const int *count, int cap, float4 *imp,
                                 const unsigned *start, const int *adj, TbJoint *joints, int nj, float4 *jimp,
                                 const int *jstart, const int *jadj, int jointLists, float *force, int gs,
                                 const int *order, const int *colourStart, int budget, const int *jorder,
                                 const int *jcolourStart, int jbudget, float h, float invH, float gx, float gy,
                                 float gz, float maxPush, int noFriction, float threshold, float jointBias,
                                 float jointMass, float jointImpulse, float limitBias, float limitMass,
                                 float limitImpulse, int *kept, int *bad, float maxSpeed, float *held,
                                 const TbShape *shape, const TbContact *contacts, const unsigned *contactCount,
                                 int contactCap, const unsigned long long *jointed, int nJointed, unsigned *asleep,
                                 float *rest, int *parent, unsigned *restMin, unsigned *label, unsigned *next, float dt,
                                 float sleepSpeed, float sleepTime, unsigned *sleptMark, TbContactOut *slept,
                                 unsigned *sleptLabel, unsigned *sleptN, int sleptCap, unsigned *sleptNeed) {
	__shared__ unsigned part[TB_SMALL_MAX_THREADS];
	int t = threadIdx.x, stride = blockDim.x;
	int nm = tbManifolds(count, cap);
	TbJointSoft soft = {jointBias, jointMass, jointImpulse};
	TbJointSoft limit = {limitBias, limitMass, limitImpulse};
	// moved: the bodies moved since the rows were last refreshed (sim's refreshRows); prepare set the
	// rows from the step's first poses, and solverStage.run refreshes once more before the first pass.
	bool moved = true;
	// refresh brings the contact and joint rows to the current poses, once after each move.
	auto refresh = [&]() {
		if (!moved) {
			return;
		}
		for (int k = t; k < nm; k += stride) {
			tbRefresh(k, man, pos, rot);
		}
		for (int k = t; k < nj; k += stride) {
			jrefresh(joints[k], pos, rot);
		}
		__syncthreads();
		moved = false;
	};
	// A gather with the joints' records runs over every body: a joint between two sleeping bodies is
	// still solved (solverStage.gather).
	auto gather = [&](int withJoints) {
		for (int i = t; i < n; i += stride) {
			if (!withJoints && tbSmallAsleep(flags, i)) {
				continue;
			}
			tbGather(i, pos, vel, omega, invIW, start, adj, imp, jstart, jadj, jimp, withJoints);
		}
		__syncthreads();
	};
	for (int o = 0; o < nops; o++) {
		int stage = ops[2 * o], passes = ops[2 * o + 1];
		switch (stage) {
		case TB_SMALL_VELOCITIES:
			for (int i = t; i < n; i += stride) {
				tbIntegrateVelocity(i, rot, vel, omega, invI, flags, h, gx, gy, gz);
			}
			__syncthreads();
			break;
		case TB_SMALL_WARM:
			refresh();
			for (int k = t; k < nm; k += stride) {
				tbWarmStart(k, man, imp);
			}
			for (int k = t; k < nj; k += stride) {
				jwarm(k, joints, jimp);
			}
			__syncthreads();
			gather(jointLists);
			break;
		case TB_SMALL_SOLVE:
		case TB_SMALL_RELAX: {
			refresh();
			int useBias = stage == TB_SMALL_SOLVE;
			for (int p = 0; p < passes; p++) {
				if (gs) {
					tbSmallColours(jorder, jcolourStart, jbudget,
					               [&](int k) { jgs(k, joints, pos, vel, omega, soft, limit, invH, useBias, force); });
					tbSmallColours(order, colourStart, budget, [&](int k) {
						tbSolveGS(man[k], pos, vel, omega, invH, maxPush, useBias, noFriction);
					});
					continue;
				}
				for (int k = t; k < nm; k += stride) {
					tbJacobi(k, man, vel, omega, imp, invH, maxPush, useBias, noFriction);
				}
				for (int k = t; k < nj; k += stride) {
					jsolve(k, joints, vel, omega, jimp, soft, limit, invH, useBias, force);
				}
				__syncthreads();
				gather(jointLists);
			}
			break;
		}
		case TB_SMALL_POSITIONS:
			for (int i = t; i < n; i += stride) {
				tbIntegratePosition(i, pos, rot, vel, omega, flags, h);
			}
			__syncthreads();
			moved = true;
			break;
		case TB_SMALL_RESTITUTE:
			for (int p = 0; p < passes; p++) {
				if (gs) {
					tbSmallColours(order, colourStart, budget,
					               [&](int k) { tbRestituteGS(man[k], pos, vel, omega, threshold); });
					continue;
				}
				// Jacobi's restitution: joints take no part.
				for (int k = t; k < nm; k += stride) {
					tbRestitute(k, man, vel, omega, imp, threshold);
				}
				__syncthreads();
				gather(0);
			}
			break;
		case TB_SMALL_STORE:
			// Backend.runPlan's launches at StoreImpulses: tb_sleep_still (the sleeping bodies' velocities,
			// which a joint between two of them left, zeroed; each thread's bodies are the ones it checks
			// below), then solverStage.run's tb_integrate_finish, tb_solver_keep,
			// tb_integrate_blowup_reset, tb_integrate_blowup_check, tb_integrate_blowup_done, the last two
			// over the awake bodies.
			for (int i = t; i < n; i += stride) {
				if (tbSmallAsleep(flags, i)) {
					tbSleepStill(i, flags, vel, omega);
					continue;
				}
				tbIntegrateFinish(i, rot, invI, invIW, flags);
			}
			if (t == 0) {
				*kept = nm;
				*bad = n;
			}
			__syncthreads();
			for (int i = t; i < n; i += stride) {
				if (!tbSmallAsleep(flags, i)) {
					tbBlowupCheck(i, pos, rot, vel, omega, flags, maxSpeed, bad);
				}
			}
			__syncthreads();
			if (t == 0 && *bad >= n) {
				*bad = -1;
			}
			if (held != 0) {
				for (int k = t; k < nj; k += stride) {
					tbJointHold(k, joints, flags, force, held);
				}
				__syncthreads();
			}
			break;
		case TB_SMALL_SLEEP:
			// sleepStage.run's launches: tb_sleep_timers and tb_sleep_init, tb_sleep_link_contacts and
			// tb_sleep_link_joints, tb_sleep_roots, tb_sleep_rest_min, tb_sleep_label, tb_sleep_decide.
			for (int i = t; i < n; i += stride) {
				tbSleepTimer(i, vel, omega, shape, flags, asleep, rest, dt, sleepSpeed);
				tbSleepInit(i, parent, restMin);
			}
			__syncthreads();
			for (int k = t; k < contactCap; k += stride) {
				tbSleepLinkContact(k, contacts, contactCount, contactCap, vel, omega, flags, parent, rest);
			}
			for (int k = t; k < nJointed; k += stride) {
				tbSleepLinkJoint(k, jointed, flags, parent);
			}
			__syncthreads();
			for (int i = t; i < n; i += stride) {
				parent[i] = tbSleepFind(parent, i);
			}
			__syncthreads();
			for (int i = t; i < n; i += stride) {
				tbSleepRestMin(i, parent, rest, flags, asleep, restMin);
			}
			__syncthreads();
			for (int i = t; i < n; i += stride) {
				tbSleepLabel(i, parent, restMin, flags, label, next, sleepTime);
			}
			__syncthreads();
			for (int i = t; i < n; i += stride) {
				tbSleepDecide(i, parent, label, flags, asleep, vel, omega);
			}
			__syncthreads();
			if (slept == 0) {
				break;
			}
			// sleptStage.keep's launches: tb_solver_slept_mark, the scan, tb_solver_slept_keep,
			// tb_solver_slept_count, over the step's nm manifolds.
			for (int k = t; k <= nm; k += stride) {
				sleptMark[k] = k < nm && tbSleptManifold(man[k], flags, parent, label, asleep) != 0 ? 1u : 0u;
			}
			__syncthreads();
			tbSmallScan(sleptMark, nm + 1, part);
			for (int p = t; p < 4 * nm; p += stride) {
				tbSleptKeep(p >> 2, p & 3, man, sleptMark, flags, parent, label, asleep, pos, rot, slept, sleptLabel,
				            sleptN, sleptCap);
			}
			__syncthreads();
			if (t == 0) {
				tbSleptCount(nm, sleptMark, sleptN, sleptCap, sleptNeed);
			}
			break;
		}
	}
}
TB_REGISTER_SYNC(tb_small_substeps)
