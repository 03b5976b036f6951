# Tumble's build. `make run` and `make test` are the two commands a fresh Debian machine needs; each
# installs what is missing first (make deps). See README.md.

# System packages. The headless core needs only Go (checked by scripts/deps.sh, not from apt) and a C
# toolchain for cgo and the race detector. The window app (a later issue) needs WINDOW_PKGS for GLFW,
# OpenGL and a virtual display for tests: add them to DEPS_PKGS then, not before.
CORE_PKGS   := gcc libc6-dev
WINDOW_PKGS := pkg-config libgl1-mesa-dev libgl1-mesa-dri libx11-dev libxcursor-dev libxrandr-dev \
               libxinerama-dev libxi-dev libxxf86vm-dev xvfb xauth
DEPS_PKGS   := $(CORE_PKGS)

# One fixed value (Go's own default), so that a CGO_CXXFLAGS in someone's environment cannot change the
# build cache key and force the slow C++ of Dear ImGui to be rebuilt.
export CGO_CXXFLAGS := -O2 -g

# The simulation packages, tested with the race detector; the rest are tested without it.
MODULE   = $(shell go list -m)
SIM_PKGS = ./sim/...
REST_PKGS = $(shell go list ./... | grep -v -e '^$(MODULE)/sim$$' -e '^$(MODULE)/sim/')

CONTRACT_CHECK := ../shared/tools/contract-check.py

.PHONY: build deps test bench run

build: deps
	go build -o bin/sandbox ./cmd/sandbox

deps:
	@scripts/deps.sh $(DEPS_PKGS)

test: deps
	@echo '== gofmt -l'
	@files=$$(gofmt -l .); if [ -n "$$files" ]; then \
		echo "gofmt: these files are not formatted (run gofmt -w on them):"; echo "$$files"; exit 1; fi
	@echo '== go vet'
	go vet ./...
	@echo '== go test -race (simulation)'
	go test -race $(SIM_PKGS)
	@echo '== long tests (30 s stacks and pyramids, rain, chains, a million-body broad phase; skipped under -race)'
	go test -run 'ThirtySeconds|Rained|ThirtyLinkChain|HeavyEndChain' ./sim
	go test -run 'MillionBodies' ./sim/bvh
	@echo '== go test (the rest)'
	$(if $(REST_PKGS),go test $(REST_PKGS),@echo 'no packages outside sim')
	@if [ -f $(CONTRACT_CHECK) ] && command -v python3 >/dev/null 2>&1; then \
		echo '== contract check'; python3 $(CONTRACT_CHECK); \
	else echo '== contract check skipped (no $(CONTRACT_CHECK) or no python3)'; fi

bench: build
	go test -run '^$$' -bench . -benchmem $(SIM_PKGS)
	bin/sandbox bench -scene pyramid20
	bin/sandbox bench -scene pile
	bin/sandbox bench -scene rain -steps 300 -broadphase lbvh
	bin/sandbox bench -scene rain -steps 300 -broadphase sap

run: build
	@if [ -z "$$DISPLAY" ]; then \
		echo 'make run: no display ($$DISPLAY is empty), so no window. The headless commands work:'; \
		echo '  bin/sandbox run -scene stack -steps 600 -trace out.csv   # step a scene, write a trace'; \
		echo '  bin/sandbox bench -scene pile                            # time a step, by stage'; \
		echo '  bin/sandbox scenes                                       # list the preset scenes'; \
		exit 0; \
	fi; \
	exec bin/sandbox
