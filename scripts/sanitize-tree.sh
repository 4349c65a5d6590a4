#!/usr/bin/env bash
# Configures build-asan/: the one clang-19 tree the sanitizer run (scripts/test-sanitize.sh)
# and the fuzz run (scripts/fuzz.sh) share. Every object gets ASan+UBSan; the libraries the
# fuzz targets link get libFuzzer's coverage hooks too (fuzzer-no-link, CMakeLists.txt);
# only the fuzz targets link libFuzzer itself. One tree
# instead of two saves the second build of the libraries both runs use (clean clones here:
# the fuzz step took 272 s with a tree of its own, 51 s sharing this one).
#   -O1 with line tables only (OSS-Fuzz's choice) for the libraries and bpfbench: the fuzz
#   targets run them at a useful rate and stacks still symbolize. The test objects are
#   built at -O0 (tests/CMakeLists.txt): they are most of the tree's code and least of its
#   run time.
#   Unity builds (batches of 16 files, as scripts/build.sh): this tree's build took 298 s
#   (522 s of CPU) with batches of 8 and 195 s (332 s) with 16, here; most of an object's
#   time is the optimizer and code generation of the header templates its files share.
set -euo pipefail
cd "$(dirname "$0")/.."
cmake -S . -B build-asan -G Ninja -DCMAKE_BUILD_TYPE=RelWithDebInfo \
  -DCMAKE_C_FLAGS_RELWITHDEBINFO="-O1 -gline-tables-only" \
  -DCMAKE_CXX_FLAGS_RELWITHDEBINFO="-O1 -gline-tables-only" \
  -DCMAKE_C_COMPILER=clang-19 -DCMAKE_CXX_COMPILER=clang++-19 \
  -DCMAKE_UNITY_BUILD=ON -DCMAKE_UNITY_BUILD_BATCH_SIZE=16 \
  -DBPFBENCH_SANITIZE=ON -DBPFBENCH_FUZZ=ON -DBPFBENCH_WERROR=ON >/dev/null
