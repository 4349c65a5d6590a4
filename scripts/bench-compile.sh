#!/usr/bin/env bash
# Measures compile_bpf: cold (cache off, forked clang) and cached median times.
# Usage: scripts/bench-compile.sh [--runs N] [--vmlinux] [program.bpf.c]
#   --vmlinux: the precompiled vmlinux.h instead (cold, cached, compiles with and without it)
#   BUILD_DIR=<cmake build dir> (default: build) is used when it has the
#   bpfbench_compile_bench target; otherwise the tool is built directly with g++.
set -euo pipefail

root="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
build="${BUILD_DIR:-$root/build}"
runs=15
args=()
while [[ $# -gt 0 ]]; do
  case "$1" in
    --runs) runs="$2"; shift 2 ;;
    -h|--help) sed -n '2,6p' "$0"; exit 0 ;;
    *) args+=("$1"); shift ;;
  esac
done
if (( runs < 10 )); then
  echo "bench-compile: --runs must be >= 10 for a meaningful median" >&2
  exit 2
fi

tool=""
if [[ -f "$build/build.ninja" || -f "$build/Makefile" ]] &&
   cmake --build "$build" --target bpfbench_compile_bench >/dev/null 2>&1; then
  tool="$(find "$build" -name bpfbench_compile_bench -type f -perm -u+x | head -n1)"
fi
if [[ -z "$tool" ]]; then
  # Fallback: the compile stage needs only its own sources and LLVM/clang 19.
  out="$(mktemp -d /tmp/bpfbench-bench-compile-XXXXXX)"
  trap 'rm -rf "$out"' EXIT
  llvm=/usr/lib/llvm-19
  echo "bench-compile: building the tool with g++ (no bpfbench_compile_bench target in $build)" >&2
  g++ -std=c++20 -O2 -I"$root" -isystem "$llvm/include" \
    -DBPFBENCH_CLANG_RESOURCE_DIR="\"$llvm/lib/clang/19\"" \
    "$root/tests/perf/compile_bench.cpp" "$root/compiler/bpf/clang_compile.cpp" \
    "$root/compiler/bpf/object_cache.cpp" \
    -L"$llvm/lib" -Wl,-rpath,"$llvm/lib" -lclang-cpp -lLLVM -o "$out/compile_bench"
  tool="$out/compile_bench"
fi

"$tool" --runs "$runs" "${args[@]}"
