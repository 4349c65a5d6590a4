#!/usr/bin/env bash
# Installs the Debian packages (if missing) and builds bpfbench into build/.
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/install-deps.sh
cmake -S . -B build -G Ninja -DCMAKE_BUILD_TYPE=RelWithDebInfo -DBPFBENCH_WERROR="${BPFBENCH_WERROR:-OFF}" >/dev/null
ninja -C build
