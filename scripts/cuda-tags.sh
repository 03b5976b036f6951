#!/usr/bin/env bash
# cuda-tags.sh: prints "cuda" when this machine can run the cuda build (nvidia-smi lists a GPU and
# cuda.h is found), and nothing otherwise. A cuda-tagged binary exits at start-up on a machine without
# an NVIDIA driver, so make run builds with the tag only where it can run.
if command -v nvidia-smi >/dev/null 2>&1 && nvidia-smi -L 2>/dev/null | grep -q '^GPU' &&
	{ [ -f /usr/include/cuda.h ] || [ -f /usr/local/cuda/include/cuda.h ]; }; then
	echo cuda
fi
