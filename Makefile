# Tumble's build. `make run` and `make test` are the two commands a fresh Debian machine needs; each
# installs what is missing first (make deps). See README.md.

# System packages. The headless core needs only Go (checked by scripts/deps.sh, not from apt) and a C
# toolchain for cgo and the race detector. The window app needs WINDOW_PKGS for GLFW, OpenGL (Mesa's
# llvmpipe where there is no GPU), EGL for headless rendering without X (libegl1 is glvnd's loader,
# opened at run time; libegl-mesa0 Mesa's surfaceless and software-device EGL) and a virtual display
# (Xvfb) for its tests and screenshots.
CORE_PKGS   := gcc g++ libc6-dev
WINDOW_PKGS := pkg-config libgl1-mesa-dev libgl1-mesa-dri libegl1 libegl-mesa0 libx11-dev libxcursor-dev \
               libxrandr-dev libxinerama-dev libxi-dev libxxf86vm-dev xvfb xauth xdotool
DEPS_PKGS   := $(CORE_PKGS) $(WINDOW_PKGS)

# One fixed value (Go's own default), so that a CGO_CXXFLAGS in someone's environment cannot change the
# build cache key and force the slow C++ of Dear ImGui to be rebuilt.
export CGO_CXXFLAGS := -O2 -g

# The simulation packages, tested with the race detector; the rest are tested without it.
MODULE   = $(shell go list -m)
SIM_PKGS = ./sim/...
REST_PKGS = $(shell go list ./... | grep -v -e '^$(MODULE)/sim$$' -e '^$(MODULE)/sim/')

CONTRACT_CHECK := ../shared/tools/contract-check.py

# A virtual display for the window tests and the screenshots: one Xvfb for the whole command, stopped
# when it ends. TUMBLE_REQUIRE_DISPLAY makes the window tests fail, not skip, if it does not work.
XVFB := xvfb-run -a -s '-screen 0 1280x800x24'

.PHONY: bench-heightfield gpu-stability gpu-sleep-cost build deps cuda-deps generate kernels test bench bench-go soak soak-estimate fuzz run screenshots perf plots

# Go's SIMD experiment: PGS's contact pass sixteen or eight manifolds at a time (sim/wide16_simd.go, AVX-512; sim/wide_simd.go, AVX2), bit for
# bit the scalar pass's results. make build SIMD= builds without it.
SIMD ?= GOEXPERIMENT=simd

# The cuda build where it can run (a GPU and the toolkit: scripts/cuda-tags.sh), the plain one elsewhere.
TAGS = $(shell scripts/cuda-tags.sh)

build: deps
	@echo 'build: $(if $(TAGS),the cuda build (-tags cuda),the CPU build (no NVIDIA GPU or CUDA toolkit here))'
	$(SIMD) go build $(if $(TAGS),-tags $(TAGS)) -o bin/sandbox ./cmd/sandbox

deps:
	@scripts/deps.sh $(DEPS_PKGS)

# The CUDA toolkit (nvcc, cuda.h, cudaGL.h, libcuda to link against), for make kernels and for compiling
# the cuda build in make test; Debian's CUDA 11.8 from non-free when missing.
cuda-deps:
	@scripts/cuda-deps.sh

# Generate the Go side of the kernels' interface from gpu/kernels (struct mirrors, typed launch wrappers,
# the emulator's layout registrations; committed; TestGeneratedIsCurrent says when stale). Needs only Go.
generate:
	go run ./gpu/internal/kerngen
	go run ./sim/internal/lanegen -dir sim

# Compile gpu/kernels/*.cu to the PTX that gpu/ embeds (committed; TestPTXIsCurrent says when stale),
# then generate as above (scripts/kernels.sh runs both).
kernels: cuda-deps
	scripts/kernels.sh

test: deps cuda-deps
	@echo '== gofmt -l'
	@files=$$(gofmt -l .); if [ -n "$$files" ]; then \
		echo "gofmt: these files are not formatted (run gofmt -w on them):"; echo "$$files"; exit 1; fi
	@echo '== go vet'
	go vet ./...
	@echo '== the cuda build: vet, and compile the binary and test binaries (they run only on a GPU machine)'
	go vet -tags cuda ./gpu/... ./cmd/...
	go build -tags cuda -o /dev/null ./cmd/sandbox
	go test -tags cuda -count=1 -exec /bin/true ./gpu/... ./cmd/...
	@echo '== go test -race (simulation)'
	go test -race $(SIM_PKGS)
	@echo '== long tests (30 s stacks and pyramids, rain, chains, a million-body broad phase; skipped under -race)'
	go test -run 'ThirtySeconds|Rained|ThirtyLinkChain|HeavyEndChain|StepAfterRestore' ./sim
	go test -run 'MillionBodies' ./sim/broad/bvh
	@echo '== the wide passes (GOEXPERIMENT=simd): vet, the simulation tests through them, and their tests under -race'
	GOEXPERIMENT=simd go vet ./sim/...
	GOEXPERIMENT=simd go test -count=1 -timeout 30m ./sim/...
	GOEXPERIMENT=simd go test -race -count=1 -run 'Wide|Gyro|Joint|State|Atan2|Helpers|Workers|GrainsChange' ./sim
	@echo '== the wide passes run no legacy SSE instruction in their 256-bit code (scripts/check-sse.sh: on Intel each costs over a hundred cycles)'
	GOEXPERIMENT=simd go build -o bin/sandbox-sse-check ./cmd/sandbox
	scripts/check-sse.sh bin/sandbox-sse-check
	@echo '== sub-steps by island as bench and the window show them, and bench -lanes (they run only with the wide passes)'
	GOEXPERIMENT=simd go test -count=1 -run 'BenchGrainsAndIslands|TestLanes' ./cmd/sandbox
	TUMBLE_REQUIRE_DISPLAY=1 $(XVFB) env GOEXPERIMENT=simd go test -count=1 -run 'IslandsStatsLine' ./ui
	@echo '== go test (the rest; the window tests under Xvfb)'
	$(if $(REST_PKGS),TUMBLE_REQUIRE_DISPLAY=1 $(XVFB) go test -timeout 40m $(REST_PKGS),@echo 'no packages outside sim')
	@if [ -f $(CONTRACT_CHECK) ] && command -v python3 >/dev/null 2>&1; then \
		echo '== contract check'; python3 $(CONTRACT_CHECK); \
	else echo '== contract check skipped (no $(CONTRACT_CHECK) or no python3)'; fi

# make bench: Tumble's CPU step against Jolt on the same scene files, side by side (scripts/bench-jolt.sh;
# the Jolt columns need ../shared/tools/peers/jolt-runner), then against Box3D's own runner and Jolt on
# Box3D's three benchmark scenes, interleaved over 5 rounds with each run's CPU share
# (scripts/bench-box3d.sh; the Box3D columns need ../shared/tools/peers/box3d), then the step split by
# stage. make bench-go runs the Go benchmarks of the simulation packages (longer: the 1M-box broad phase).
bench: build
	scripts/bench-jolt.sh bin/sandbox $(JOLT)
	scripts/bench-box3d.sh bin/sandbox $(BOX3D) $(JOLT)
	bin/sandbox bench -scene pyramid20 -workers 1
	bin/sandbox bench -scene rain -steps 120 -warmup 60

JOLT ?= ../shared/tools/peers/jolt-runner
BOX3D ?= ../shared/tools/peers/box3d/bin/benchmark

# make plots: the scaling plots in docs/perf (scripts/sweep.py): ms/step against boxes (880 to
# 101,695, Box3D's many_pyramids at other sizes) and against workers, Tumble's CPU step beside Jolt
# and Box3D (their runners in ../shared/tools/peers); minutes on 2 quiet cores.
plots: build
	python3 scripts/sweep.py --sandbox bin/sandbox --jolt $(JOLT) --box3d $(BOX3D) --out docs/perf

bench-go:
	go test -run '^$$' -bench . -benchmem $(SIM_PKGS)

# make soak: the long runs (scripts/soak.sh; docs/PERF.md's "Long runs"): every preset of up to 1,000
# bodies under every solver for SOAK_STEPS steps, and the piles (rain, pile) under their default solver
# for SOAK_PILE_STEPS, SOAK_JOBS at a time (default: one per core, each on one worker, the costliest
# first); each reports its memory early and at the end, any blow-up and its slowest step. In full about
# 4.2 hours of CPU on the loaded development machine (about 3.7 quiet), its longest run (the pyramid
# under XPBD) about 34 minutes: about 1.05 hours of wall time on 4 cores, 1.85-2.1 on 2, so on 2 cores
# no margin under 2 hours (make soak-estimate; docs/PERF.md); make soak SOAK_STEPS=1000
# SOAK_PILE_STEPS=200 is a shorter version; SOAK_SCENES, SOAK_SOLVERS, SOAK_PILES (space-separated)
# and SOAK_FLAGS (sandbox soak's flags), on this command line or in the environment, narrow it.
SOAK_STEPS ?= 100000
SOAK_PILE_STEPS ?= 10000
SOAK_JOBS ?= $(shell nproc)
soak: build
	SOAK_JOBS=$(SOAK_JOBS) scripts/soak.sh bin/sandbox $(SOAK_STEPS) $(SOAK_PILE_STEPS)

# make soak-estimate: how long make soak takes on this machine, without running it (scripts/soak-estimate.sh):
# every run of the soak at 1,000 and 3,000 steps (the piles at 200 and 600), one at a time on one worker,
# each run's full cost extrapolated from the difference, then the total CPU time and the wall time on
# 1, 2, 4 and 8 jobs: 12 minutes of CPU on the development machine.
soak-estimate: build
	scripts/soak-estimate.sh bin/sandbox 1000 3000

# make fuzz: the step's fuzz test (sim/fuzz_step_test.go) with random worlds for FUZZTIME; a crasher
# goes to sim/testdata/fuzz/FuzzStep, whose files make test runs as ordinary cases.
FUZZTIME ?= 10m
fuzz:
	$(SIMD) go test -run '^$$' -fuzz '^FuzzStep$$' -fuzztime $(FUZZTIME) -fuzzminimizetime 10s -timeout 0 ./sim
# make bench-heightfield: 1,000 bodies on a 1024 x 1024 height field against the same on a plane, in
# alternating rounds, timed by thread CPU time (about two minutes); fails past 2x.
bench-heightfield:
	TUMBLE_FIELD_BENCH=1 GOEXPERIMENT=simd go test -count=1 -v -run 'TestHeightFieldSpeedAgainstPlane' ./sim/

# make gpu-stability: the CPU default's stability tests (30 s column and pyramid, 100:1 stack, the
# ragdoll's joint gaps) on the emulated CUDA backend's PGS at 36 passes a step, each beside the CPU's
# run and ending in its bits (minutes: the emulator runs the kernels one thread at a time).
gpu-stability:
	TUMBLE_GPU_STABILITY=1 go test -count=1 -v -timeout 60m -run 'TestEmulatedPGS(TwentyBox|TwentyRow|HeavyOnLight|RagdollJointGaps)' ./gpu/

# make gpu-sleep-cost: what a step of pile100k, mostly asleep after the CPU stepped it 122 times under
# Jacobi, asks of the emulated CUDA backend (threads, launches, bytes), against the same pile awake
# (minutes; TUMBLE_SLEEP_COST_SCENE and TUMBLE_SLEEP_COST_STEPS pick another preset or scene file and moment).
gpu-sleep-cost:
	TUMBLE_SLEEP_COST=1 $(SIMD) go test -count=1 -v -timeout 60m -run 'TestEmulatedPilePartlyAsleepCost' ./gpu/

# make run SCENE=mixed opens another preset or a scene file.
SCENE ?= pyramid
run: build
	@if [ -z "$$DISPLAY" ]; then \
		echo 'make run: no display ($$DISPLAY is empty), so no window. The headless commands work:'; \
		echo '  bin/sandbox run -scene stack -steps 600 -trace out.csv   # step a scene, write a trace'; \
		echo '  bin/sandbox bench -scene pile                            # time a step, by stage'; \
		echo '  bin/sandbox scenes                                       # list the preset scenes'; \
		echo "  bin/sandbox -scene $(SCENE) -frames 120 -screenshot out.png   # a screenshot, through EGL (no display needed)"; \
		exit 0; \
	fi; \
	exec bin/sandbox -scene $(SCENE)

# The window's frame times for docs/PERF.md: 1,000 and 10,000 boxes under llvmpipe.
perf: build
	$(XVFB) scripts/perf.sh bin/sandbox out

# The check of rest for the joint presets, Tumble beside Jolt (docs/REST.md); minutes per solver.
SOLVERS ?= pgs jacobi xpbd rigid
.PHONY: settle
settle: build
	SOLVERS="$(SOLVERS)" JOLT=$(JOLT) scripts/settle.sh bin/sandbox 60

# The ragdoll pile's rest under Jacobi, XPBD and the rigid solver (scenes: TestRagdollPileComesToRest
# runs the default solver in make test); a few minutes.
.PHONY: rest
rest:
	TUMBLE_REST=1 $(SIMD) go test -count=1 -timeout 30m -v -run 'TestRagdollPileComesToRestUnderEverySolver' ./scenes

# Regenerate docs/screenshots/ (every preset, the panel, and the tools driven by input) under a virtual display.
screenshots: build
	$(XVFB) scripts/screenshots.sh bin/sandbox docs/screenshots
	scripts/window-shots.sh docs/screenshots
