#!/usr/bin/env bash
# Builds the Debian package bpfbench_<version>_<arch>.deb with CPack (cmake/install.cmake):
# /usr/bin/bpfbench, the families in /usr/share/bpfbench/templates, examples and docs in
# /usr/share/doc/bpfbench, the man page and the bash completion. Depends: is the shared
# libraries dpkg-shlibdeps finds plus the headers the in-process compile reads at run time.
# Usage: scripts/build-deb.sh [BUILD_DIR [OUT_DIR]]   (defaults: build, BUILD_DIR)
# Prints the path of the package.
set -euo pipefail
cd "$(dirname "$0")/.."
build=${1:-build}
out=$(realpath -m "${2:-$build}")
if ! command -v dpkg-shlibdeps >/dev/null; then
  echo "build-deb.sh: dpkg-shlibdeps is missing (scripts/install-deps.sh installs dpkg-dev)" >&2
  exit 2
fi
if [ ! -f "$build/CMakeCache.txt" ]; then
  cmake -S . -B "$build" -G Ninja -DCMAKE_BUILD_TYPE=RelWithDebInfo >/dev/null
fi
cmake --build "$build" --target bpfbench bpfbench_docs >/dev/null
mkdir -p "$out"
# cpack writes its staging tree (_CPack_Packages) under -B too: keep it out of OUT_DIR's listing.
cpack -G DEB --config "$build/CPackConfig.cmake" -B "$out/.cpack" >"$out/.cpack.log" 2>&1 || {
  cat "$out/.cpack.log" >&2
  exit 1
}
deb=$(ls "$out"/.cpack/bpfbench_*.deb)
mv -f "$deb" "$out/"
rm -rf "$out/.cpack" "$out/.cpack.log"
echo "$out/$(basename "$deb")"
