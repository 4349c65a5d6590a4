#!/usr/bin/env bash
# Builds everything the sanitizer step (scripts/test-sanitize.sh) and the fuzz step
# (scripts/fuzz.sh) run, in their shared tree build-asan/ (scripts/sanitize-tree.sh).
# scripts/test.sh starts it in the background while its ctest passes run; the two steps
# run the same ninja again themselves, so each still works alone.
set -euo pipefail
cd "$(dirname "$0")/.."
t0=$SECONDS
bash scripts/sanitize-tree.sh
ninja -C build-asan bpfbench bpfbench_unit_tests fuzz_frontend fuzz_results fuzz_floors fuzz_manifest
echo "sanitize-build: built in $((SECONDS - t0)) s"
