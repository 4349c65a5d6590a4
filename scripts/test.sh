#!/usr/bin/env bash
# README command 2 (and what CI runs): install, build with -Werror, run every test.
set -euo pipefail
cd "$(dirname "$0")/.."
BPFBENCH_WERROR=ON bash scripts/build.sh
cd build
set +e
ctest --output-on-failure --timeout 600 -j1 2>&1 | tee ctest.log
rc=${PIPESTATUS[0]}
set -e
# One plain closing line; skipped tests say why in ctest.log ("Skipped" + the reason printed).
passed=$(grep -cE 'Test +#[0-9]+: .* Passed' ctest.log || true)
failed=$(grep -cE 'Test +#[0-9]+: .* (\*\*\*Failed|Failed|\*\*\*Exception|\*\*\*Timeout)' ctest.log || true)
skipped=$(grep -cE 'Test +#[0-9]+: .* \*\*\*Skipped' ctest.log || true)
echo
if [ "$skipped" -gt 0 ]; then
  echo "skipped tests and why:"
  grep -E '\*\*\*Skipped' ctest.log | sed 's/^/  /'
fi
echo "tests: ${passed} passed, ${failed} failed, ${skipped} skipped"
exit "$rc"
