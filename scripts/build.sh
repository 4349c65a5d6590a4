#!/usr/bin/env bash
# Installs the Debian packages (if missing) and builds bpfbench into build/.
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/install-deps.sh
# -O2 with line tables only (-g1): backtraces, perf and gdb keep file:line, and the build
# takes ~23% less CPU than with full -g (cli/kernel_cmd.cpp 19.6 s -> 15.1 s, gcc 12).
cmake -S . -B build -G Ninja -DCMAKE_BUILD_TYPE=RelWithDebInfo -DBPFBENCH_WERROR="${BPFBENCH_WERROR:-OFF}" \
  -DCMAKE_C_FLAGS_RELWITHDEBINFO="-O2 -g1 -DNDEBUG" -DCMAKE_CXX_FLAGS_RELWITHDEBINFO="-O2 -g1 -DNDEBUG" >/dev/null
ninja -C build
