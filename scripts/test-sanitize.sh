#!/usr/bin/env bash
# Builds bpfbench and its unit tests with ASan+UBSan (clang-19, build-asan/) and runs the unit
# test binary under them: unit, .bdsl case and compile tests, the CLI tests (they run
# build-asan's bpfbench) and the runtime tests, except those listed in `not_run` below.
# The forked clang child runs under the sanitizers as well. Any sanitizer report, from
# any of these processes, fails the run.
# Last line: "sanitize: N passed, N failed, N skipped" (Catch2 test cases).
set -euo pipefail
cd "$(dirname "$0")/.."
build=build-asan

# -O0 -g1 (line tables only): builds fastest, and the run is mostly bounded by
# wall-clock benchmarks, so unoptimized code costs it little. clang-19 (installed anyway:
# the fuzz step and the in-process compile use it) rather than gcc 12: the same
# -fsanitize=address,undefined, at about half gcc's CPU per file at -O0 (test_escape.cpp
# 10.3 s -> 5.1 s, cli/main.cpp 14.6 s -> 7.8 s, clang_compile.cpp 10.6 s -> 9.1 s);
# gcc's warnings are checked with -Werror by the normal build. Only the two targets the
# run needs.
cmake -S . -B "$build" -G Ninja -DCMAKE_BUILD_TYPE=RelWithDebInfo \
  -DCMAKE_C_FLAGS_RELWITHDEBINFO="-O0 -g1" -DCMAKE_CXX_FLAGS_RELWITHDEBINFO="-O0 -g1" \
  -DCMAKE_C_COMPILER=clang-19 -DCMAKE_CXX_COMPILER=clang++-19 \
  -DBPFBENCH_SANITIZE=ON -DBPFBENCH_WERROR=ON >/dev/null
ninja -C "$build" bpfbench bpfbench_unit_tests

# Test cases left out here, each with why (Catch2 test specs; a trailing '*' is a
# wildcard, ',' would mean "or"). Every other runtime test runs under ASan: the whole
# run took ~185 s in a clean clone here, the benchmark-like tests included.
not_run=(
  "[soak]|a 60 s bounded-time leak test that runs in the normal ctest pass; under ASan its RSS check would measure ASan's quarantine, and LSan covers its code paths in the other runtime tests"
  "a macro bomb ends at the compile child's memory limit*|the compile child's RLIMIT_AS is what it tests, and under ASan the child's allocator reports its own out-of-memory first (measured: the child ended writing an ASan report, signal 25, not at the limit message); the limit is tested in the normal ctest pass"
  "a macro bomb in inline code ends at the compile's memory limit*|the same RLIMIT_AS test through the binary (under ASan it ran to the 120 s wall-clock limit)"
  "an address-space limit too low for 1024 producer threads*|ASan cannot start under a 3 GiB RLIMIT_AS: it reserves ~15 TiB of address space for its shadow memory (measured: 'ReserveShadowMemoryRange failed')"
  "plan --json of 100000 points streams in bounded memory*|its bound is 400 MB of RSS for the normal build; ASan's shadow and quarantine took 826 MB (measured)"
  "a SIGINT while 1024 uprobe producers start stops within a second|a 1.5 s wall-clock deadline for stopping 1024 threads; ASan's bpfbench missed it in the one run measured here; the stop path itself runs under ASan in the other signal tests"
  "signals during a point with forked tasks*|its exit deadline is 1 s of wall clock, and ASan's bpfbench took 1.02-1.15 s to stop and reap its 300 forked tasks in 3 of 30 trials here (5 runs of 6); the signal paths run under ASan in the 20 trials of 'signals at random phases'"
)
# Reports go to files: the clang child's stderr is /dev/null and the CLI tests capture
# their child's stderr, so a report printed there could be lost. abort_on_error and
# halt_on_error end the process at the first report, so it fails the test that caused it.
reports_dir="$PWD/$build/sanitizer-reports"
rm -rf "$reports_dir"
mkdir -p "$reports_dir"
export ASAN_OPTIONS="detect_leaks=1:abort_on_error=1:symbolize=1:log_path=$reports_dir/asan"
export UBSAN_OPTIONS="print_stacktrace=1:halt_on_error=1:log_path=$reports_dir/ubsan"
# A cache of compiled objects of its own, empty: every compile of the run happens in the
# forked clang child under the sanitizers instead of being served from ~/.cache.
XDG_CACHE_HOME=$(mktemp -d /tmp/bpfbench-asan-cache.XXXXXX)
export XDG_CACHE_HOME
trap 'rm -rf "$XDG_CACHE_HOME"' EXIT

spec=()
for entry in "${not_run[@]}"; do spec+=("~${entry%%|*}"); done
log="$build/sanitize.log"
set +e
"$build/tests/bpfbench_unit_tests" --durations yes "${spec[@]}" 2>&1 | tee "$log"
rc=${PIPESTATUS[0]}
set -e

# Catch2 2.x totals: "All tests passed (A assertions in N test cases)" or
# "test cases: N | P passed | F failed". A sanitizer abort prints neither.
total=$(sed -nE 's/^All tests passed \([0-9]+ assertions? in ([0-9]+) test cases?\).*/\1/p' "$log" | tail -1)
if [ -n "$total" ]; then
  passed=$total failed=0
else
  passed=$(sed -nE 's/^test cases: *[0-9]+ \| *([0-9]+) passed.*/\1/p' "$log" | tail -1)
  failed=$(sed -nE 's/^test cases: .*\| *([0-9]+) failed.*/\1/p' "$log" | tail -1)
  passed=${passed:-0} failed=${failed:-0}
fi
if [ "$rc" -ne 0 ] && [ "$failed" -eq 0 ]; then
  failed=1  # the binary died (sanitizer abort or crash) before Catch2 could count
fi
# Runtime tests without root return early with a "skipped:" warning (Catch2 2 has no SKIP).
skipped=$(grep -c 'skipped: ' "$log" || true)
passed=$((passed > skipped ? passed - skipped : 0))
for entry in "${not_run[@]}"; do
  n=$("$build/tests/bpfbench_unit_tests" --list-test-names-only "${entry%%|*}" | grep -c . || true)
  echo "sanitize: skipped: ${n} test case(s) not run under ASan: ${entry%%|*} (${entry#*|})"
  skipped=$((skipped + n))
done
# One file per process that reported (asan.<pid>, ubsan.<pid>), plus any report that
# reached the log anyway (a process that reset its options).
reports=$(find "$reports_dir" -type f | wc -l)
reports=$((reports + $(grep -cE '^==[0-9]+==ERROR|runtime error:' "$log" || true)))
for f in "$reports_dir"/*; do
  [ -e "$f" ] || continue
  echo "sanitize: report $f:"
  head -80 "$f"
done
echo "sanitize: sanitizer reports: ${reports}, exit code ${rc}"
echo "sanitize: ${passed} passed, ${failed} failed, ${skipped} skipped"
[ "$rc" -eq 0 ] && [ "$reports" -eq 0 ]
