#!/usr/bin/env bash
# deps.sh PKG... : make sure Go and the given Debian packages are present, installing the missing
# packages with apt-get (as root, or through sudo). Idempotent: when everything is there it only runs
# dpkg-query, and touches neither the network nor apt. The Makefile's deps target calls it.
set -euo pipefail

# Go is not taken from apt: Debian's golang package is older than the go line of go.mod.
if ! command -v go >/dev/null 2>&1; then
	want=$(sed -n 's/^go //p' "$(dirname "$0")/../go.mod" 2>/dev/null || true)
	want=${want:-1.26.0}
	arch=$(dpkg --print-architecture 2>/dev/null || echo amd64)
	cat >&2 <<EOF
deps: Go is not installed (go.mod wants go $want).
  Debian's golang package is too old; install the official release instead, for example:
    curl -fsSLO https://go.dev/dl/go$want.linux-$arch.tar.gz
    sudo rm -rf /usr/local/go && sudo tar -C /usr/local -xzf go$want.linux-$arch.tar.gz
    export PATH=\$PATH:/usr/local/go/bin
  (see https://go.dev/doc/install). A Go of 1.21 or later also works: it fetches the toolchain that
  go.mod asks for by itself (GOTOOLCHAIN=auto, the default).
EOF
	exit 1
fi

# present: the package is installed, or (for a tool such as gcc) a command of that name is on PATH,
# however it got there.
present() {
	command -v "$1" >/dev/null 2>&1 ||
		dpkg-query -W -f='${Status}' "$1" 2>/dev/null | grep -q 'install ok installed'
}

missing=()
for p in "$@"; do
	present "$p" || missing+=("$p")
done
[ ${#missing[@]} -eq 0 ] && exit 0

if ! command -v apt-get >/dev/null 2>&1; then
	echo "deps: missing ${missing[*]}, and there is no apt-get here: install them by hand." >&2
	exit 1
fi
if [ "$(id -u)" -eq 0 ]; then
	sudo=()
elif command -v sudo >/dev/null 2>&1; then
	sudo=(sudo)
else
	echo "deps: missing ${missing[*]}; run as root: apt-get install ${missing[*]}" >&2
	exit 1
fi
echo "deps: installing ${missing[*]}"
export DEBIAN_FRONTEND=noninteractive
# DEPS_NONFREE=1: the packages come from Debian's contrib and non-free components (the CUDA toolkit).
src=/etc/apt/sources.list.d/debian-nonfree.sources
if [ -n "${DEPS_NONFREE:-}" ] && [ ! -f "$src" ] && [ -f /etc/apt/sources.list.d/debian.sources ]; then
	sed -e 's/^Components: main$/Components: contrib non-free/' /etc/apt/sources.list.d/debian.sources |
		"${sudo[@]}" tee "$src" >/dev/null
fi
"${sudo[@]}" apt-get update -qq
"${sudo[@]}" apt-get install -y -qq --no-install-recommends "${missing[@]}"
