// The kernel emulator's runtime: the kernel registry, the launch grid, fibers for kernels that call
// __syncthreads, and guarded allocations that catch writes past a buffer's end.
// _longjmp between fiber stacks is what the fibers do: fortify's longjmp check would refuse it.
#undef _FORTIFY_SOURCE
#include "../kernels/tumble.cuh"
#include "emu.h"
#include "layout.h"
#include "sources.h"

#include <cstdio>
#include <cstdlib>
#include <map>
#include <string>
#include <sys/mman.h>
#include <setjmp.h>
#include <ucontext.h>
#include <unistd.h>
#include <vector>

namespace tbemu {

thread_local uint3 thread_idx, block_idx;
thread_local dim3 block_dim, grid_dim;

struct kernel {
	void *fn;
	invoker call;
	std::vector<size_t> sizes;
	bool sync;
};

static std::map<std::string, kernel> &registry() {
	static std::map<std::string, kernel> r;
	return r;
}

void register_kernel(const char *name, void *fn, invoker call, const size_t *sizes, int nparams, bool sync) {
	registry()[name] = kernel{fn, call, std::vector<size_t>(sizes, sizes + nparams), sync};
}

// The structures' layouts (layout.h): size, and the fields' offsets in declaration order.
struct layout {
	size_t size;
	std::vector<field_offset> fields;
};

static std::map<std::string, layout> &layouts() {
	static std::map<std::string, layout> r;
	return r;
}

void register_layout(const char *name, size_t size, const field_offset *fields, int nfields) {
	layouts()[name] = layout{size, std::vector<field_offset>(fields, fields + nfields)};
}

// Fibers: one per thread of the block being run. A fiber is created once (makecontext) and lives
// for the process: its entry loops, running the current kernel for each block it is given. Switches
// between a fiber and the scheduler use _setjmp/_longjmp, which save no signal mask: swapcontext
// makes two system calls per switch, and a block of 256 threads meeting at 16 barriers switches
// thousands of times.
struct fiber {
	ucontext_t ctx; // the first entry only
	char *stack;
	jmp_buf jb; // where the fiber waits: at a barrier, or finished
	bool started, done;
};
static const size_t fiber_stack = 256 * 1024;
static const unsigned max_fibers = 1024;
static thread_local fiber *fibers[max_fibers]; // stable addresses: a ucontext_t points into itself
static thread_local jmp_buf scheduler;
static thread_local int current = -1;
static thread_local const kernel *running;
static thread_local void **running_params;
static thread_local const char *running_name;
static thread_local bool failed;
static thread_local char failure[256];

static void fail(const char *msg) {
	if (!failed) {
		failed = true;
		snprintf(failure, sizeof failure, "%s", msg);
	}
}

// yield returns to the scheduler; the fiber continues from here when the scheduler resumes it.
static void yield() {
	if (!_setjmp(fibers[current]->jb)) {
		_longjmp(scheduler, 1);
	}
}

void syncthreads() {
	if (current < 0) {
		char msg[256];
		snprintf(msg, sizeof msg, "kernel %s calls __syncthreads but is registered with TB_REGISTER, not TB_REGISTER_SYNC",
		         running_name);
		fail(msg);
		return;
	}
	yield();
}

static void fiber_entry() {
	for (;;) {
		running->call(running->fn, running_params);
		fibers[current]->done = true;
		yield(); // resumed for the next block
	}
}

static void make_fiber(fiber *f) {
	getcontext(&f->ctx);
	f->ctx.uc_stack.ss_sp = f->stack;
	f->ctx.uc_stack.ss_size = fiber_stack;
	f->ctx.uc_link = nullptr; // fiber_entry never returns
	makecontext(&f->ctx, fiber_entry, 0);
	f->started = false;
}

static void set_thread(unsigned t) {
	thread_idx.x = t % block_dim.x;
	thread_idx.y = (t / block_dim.x) % block_dim.y;
	thread_idx.z = t / (block_dim.x * block_dim.y);
}

// resume runs fiber i until it next yields.
static void resume(unsigned i) {
	fiber *f = fibers[i];
	current = static_cast<int>(i);
	set_thread(i);
	if (!_setjmp(scheduler)) {
		if (!f->started) {
			f->started = true;
			ucontext_t here; // never resumed: the fiber comes back through _longjmp
			swapcontext(&here, &f->ctx);
		} else {
			_longjmp(f->jb, 1);
		}
	}
}

static void run_block_fibers(unsigned nthreads) {
	for (unsigned i = 0; i < nthreads; i++) {
		if (!fibers[i]) {
			fibers[i] = new fiber();
			fibers[i]->stack = static_cast<char *>(malloc(fiber_stack));
			make_fiber(fibers[i]);
		}
		fibers[i]->done = false;
	}
	for (;;) {
		// Run every live thread up to its next barrier (or its end).
		for (unsigned i = 0; i < nthreads; i++) {
			if (!fibers[i]->done) {
				resume(i);
			}
		}
		current = -1;
		unsigned done = 0;
		for (unsigned i = 0; i < nthreads; i++) {
			done += fibers[i]->done;
		}
		if (done == nthreads) {
			return;
		}
		if (done != 0) {
			char msg[256];
			snprintf(msg, sizeof msg,
			         "kernel %s: %u of %u threads of block %u finished while the others wait at __syncthreads",
			         running_name, done, nthreads, block_idx.x);
			fail(msg);
			// The waiting fibers are stopped mid-kernel: start them afresh next time.
			for (unsigned i = 0; i < nthreads; i++) {
				if (!fibers[i]->done) {
					make_fiber(fibers[i]);
				}
			}
			return;
		}
	}
}

// Guarded allocations: each buffer ends 16-byte aligned right before an inaccessible page, and the
// few bytes between its end and that page hold a canary that tb_check verifies after each launch.
struct allocation {
	char *base;
	size_t mapped;
	char *ptr;
	size_t size;
};
static std::map<uintptr_t, allocation> &allocations() {
	static std::map<uintptr_t, allocation> a;
	return a;
}
static const unsigned char canary = 0xA5;

} // namespace tbemu

using namespace tbemu;

extern "C" {

uintptr_t tb_alloc(size_t size) {
	size_t page = static_cast<size_t>(sysconf(_SC_PAGESIZE));
	size_t body = (size + 15) / 16 * 16;
	size_t pages = (body + page - 1) / page * page;
	if (pages == 0) {
		pages = page;
	}
	size_t mapped = pages + page;
	void *base = mmap(nullptr, mapped, PROT_READ | PROT_WRITE, MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
	if (base == MAP_FAILED) {
		return 0;
	}
	char *b = static_cast<char *>(base);
	mprotect(b + pages, page, PROT_NONE);
	char *ptr = b + pages - body;
	memset(ptr + size, canary, body - size);
	allocations()[reinterpret_cast<uintptr_t>(ptr)] = allocation{b, mapped, ptr, size};
	return reinterpret_cast<uintptr_t>(ptr);
}

void tb_free(uintptr_t p) {
	auto it = allocations().find(p);
	if (it == allocations().end()) {
		return;
	}
	munmap(it->second.base, it->second.mapped);
	allocations().erase(it);
}

int tb_check(char *err, int errlen) {
	for (auto &kv : allocations()) {
		allocation &a = kv.second;
		size_t body = (a.size + 15) / 16 * 16;
		for (size_t i = a.size; i < body; i++) {
			if (static_cast<unsigned char>(a.ptr[i]) != canary) {
				snprintf(err, errlen, "write past the end of a %zu-byte buffer (byte %zu)", a.size, i);
				return 1;
			}
		}
	}
	return 0;
}

// reverse_order runs the blocks of a launch, and the threads of a block without barriers, last first
// (tb_set_reverse): a test that a kernel's result does not depend on the order its threads run in.
static bool reverse_order = false;

void tb_set_reverse(int on) { reverse_order = on != 0; }

int tb_launch(const char *name, unsigned grid, unsigned block, void **params, const size_t *sizes, int nparams,
              char *err, int errlen) {
	auto it = registry().find(name);
	if (it == registry().end()) {
		snprintf(err, errlen, "no kernel named %s", name);
		return 1;
	}
	const kernel &k = it->second;
	if (static_cast<int>(k.sizes.size()) != nparams) {
		snprintf(err, errlen, "kernel %s takes %zu parameters, got %d", name, k.sizes.size(), nparams);
		return 1;
	}
	for (int i = 0; i < nparams; i++) {
		if (k.sizes[i] != sizes[i]) {
			snprintf(err, errlen, "kernel %s: parameter %d is %zu bytes, got %zu", name, i, k.sizes[i], sizes[i]);
			return 1;
		}
	}
	if (block == 0 || block > 1024) {
		snprintf(err, errlen, "kernel %s: block of %u threads (1..1024)", name, block);
		return 1;
	}
	failed = false;
	running = &k;
	running_params = params;
	running_name = name;
	grid_dim = dim3{grid, 1, 1};
	block_dim = dim3{block, 1, 1};
	for (unsigned bi = 0; bi < grid && !failed; bi++) {
		unsigned b = reverse_order ? grid - 1 - bi : bi;
		block_idx = uint3{b, 0, 0};
		if (k.sync) {
			run_block_fibers(block);
			continue;
		}
		current = -1;
		for (unsigned ti = 0; ti < block && !failed; ti++) {
			unsigned t = reverse_order ? block - 1 - ti : ti;
			thread_idx = uint3{t, 0, 0};
			k.call(k.fn, params);
		}
	}
	running = nullptr;
	if (failed) {
		snprintf(err, errlen, "%s", failure);
		return 1;
	}
	if (tb_check(err, errlen)) {
		char msg[256];
		snprintf(msg, sizeof msg, "kernel %s: %s", name, err);
		snprintf(err, errlen, "%s", msg);
		return 1;
	}
	return 0;
}

int tb_has_kernel(const char *name) { return registry().count(name) != 0; }

int tb_kernel_params(const char *name, size_t *sizes, int max) {
	auto k = registry().find(name);
	if (k == registry().end()) {
		return -1;
	}
	int n = (int)k->second.sizes.size();
	for (int i = 0; i < n && i < max; i++) {
		sizes[i] = k->second.sizes[i];
	}
	return n;
}

size_t tb_sizeof(const char *name) {
	auto l = layouts().find(name);
	return l == layouts().end() ? 0 : l->second.size;
}

int tb_fields(const char *name) {
	auto l = layouts().find(name);
	return l == layouts().end() ? -1 : (int)l->second.fields.size();
}

long tb_offsetof(const char *name, const char *field) {
	auto l = layouts().find(name);
	if (l == layouts().end()) {
		return -1;
	}
	for (const field_offset &f : l->second.fields) {
		if (std::string(f.name) == field) {
			return (long)f.offset;
		}
	}
	return -1;
}

const char *tb_sources(void) { return TB_SOURCES_SHA256; }

} // extern "C"
