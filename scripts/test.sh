#!/usr/bin/env bash
# README command 2 (and what CI runs): install, build with -Werror, run every test.
set -euo pipefail
cd "$(dirname "$0")/.."
# Every step's wall clock and CPU seconds (scripts/ci-steps.sh), printed before the last line.
CI_T0=$(date +%s.%N)
CI_STEPS_DIR=$PWD/build/ci-steps
export CI_T0 CI_STEPS_DIR
rm -rf "$CI_STEPS_DIR"
mkdir -p "$CI_STEPS_DIR"
ci_steps=$PWD/scripts/ci-steps.sh
step() { bash "$ci_steps" run "$@"; }
# And each object's CPU seconds (a compiler launcher), in both build trees; not where the
# caller has a launcher of its own (ccache).
if [ -z "${CMAKE_CXX_COMPILER_LAUNCHER:-}" ]; then
  export CMAKE_CXX_COMPILER_LAUNCHER=$PWD/scripts/ci-object-time.sh
fi
# With the sanitizer step on, every Catch2 test case it can run under ASan+UBSan (all but
# those tagged [no-asan]) is compiled and run there only, not also in this build: here the
# test binary holds only the [no-asan] cases (BPFBENCH_UNIT_TESTS=noasan). The C++ of the
# test files is still compiled with -Werror, by clang in the sanitizer tree.
units=noasan
[ "${BPFBENCH_HARDENING:-1}" != 0 ] || units=all
step build env BPFBENCH_WERROR=ON BPFBENCH_UNIT_TESTS=$units bash scripts/build.sh

# The sanitizer tree (below) builds in the background while the ctest passes run: those
# passes leave about one CPU of two idle (one producer thread; measured on this 2-CPU VM:
# 45-60% idle through the second pass). Once built, the same background job runs the
# sanitizer step's front-end test cases (test-sanitize.sh frontend: no kernel, no root,
# nothing measured); the runtime cases wait for the ctest passes (below: they share the
# kernel with them). It runs at SCHED_IDLE, so it takes only the CPU time the tests leave
# unused and a test thread that wakes preempts it at once; no test checks a speed. Its own
# process group (set -m; not setsid: a new session is a new scheduler autogroup, which gets
# an equal share of the CPU whatever its tasks' policy), killed if this script ends first.
bg_pids=()
stop_background() { for p in "${bg_pids[@]}"; do kill -- -"$p" 2>/dev/null || true; done; }
trap stop_background EXIT
trap 'stop_background; exit 130' INT
trap 'stop_background; exit 143' TERM
# First, alone on the machine: the runtime cases with a wall-clock deadline (label
# runtime-deadline, tests/CMakeLists.txt: a stop within a second), before anything starts
# in the background.
set +e
(cd build && step deadline ctest --output-on-failure --timeout 600 -j1 -L '^runtime-deadline$' 2>&1 | tee ctest.log
  exit "${PIPESTATUS[0]}")
rc0=$?
set -e
san_pid=
if [ "${BPFBENCH_HARDENING:-1}" != 0 ]; then
  # The sanitizer step's old logs and reports go now, not when `frontend` starts: by then
  # `rest` may be writing its own (SANITIZE_CLEANED=1).
  rm -rf build/sanitize-build.rc build-asan/sanitizer-reports build-asan/sanitize-*.log build-asan/sanitize-frontend.rc
  set -m
  chrt --idle 0 bash -c 'bash scripts/ci-steps.sh run asan-build bash scripts/sanitize-build.sh >build/sanitize-build.log 2>&1
    rc=$?
    echo "$rc" >build/sanitize-build.rc
    [ "$rc" -ne 0 ] || SANITIZE_CLEANED=1 exec bash scripts/ci-steps.sh run asan-frontend bash scripts/test-sanitize.sh frontend >build/sanitize-frontend.out 2>&1' &
  san_pid=$!
  bg_pids+=("$san_pid")
  set +m
fi
cd build
set +e
# Label `frontend` (tests/CMakeLists.txt: no root, no BPF, nothing measured) two at a
# time; everything else, the runtime tests that measure and the qemu boots, one at a time.
step ctest-frontend ctest --output-on-failure --timeout 600 -j2 -L frontend 2>&1 | tee -a ctest.log
rc=${PIPESTATUS[0]}
# With the sanitizer step on, the qemu boots that touch nothing of the host's kernel (label
# vm-guest) run later, beside its runtime cases (below).
rest='^(frontend|runtime-deadline)$'
[ "${BPFBENCH_HARDENING:-1}" = 0 ] || rest='^(frontend|runtime-deadline|vm-guest)$'
step ctest-serial ctest --output-on-failure --timeout 600 -j1 -LE "$rest" 2>&1 | tee -a ctest.log
rc2=${PIPESTATUS[0]}
[ "$rc" -ne 0 ] || rc=$rc2
[ "$rc" -ne 0 ] || rc=$rc0
set -e
# One plain closing line; skipped tests say why in ctest.log ("Skipped" + the reason printed).
# ctest writes "<name> ....***Failed" (no space before the stars).
ctest_counts() {  # LOG: "passed failed skipped" of the ctest output in LOG
  echo "$(grep -cE 'Test +#[0-9]+: .* Passed' "$1" || true)" \
    "$(grep -cE 'Test +#[0-9]+: .*\*\*\*(Failed|Exception|Timeout|Not Run)' "$1" || true)" \
    "$(grep -cE 'Test +#[0-9]+: .*\*\*\*Skipped' "$1" || true)"
}
read -r passed failed skipped <<<"$(ctest_counts ctest.log)"

# Hardening: the unit tests under ASan+UBSan (scripts/test-sanitize.sh: every Catch2 test
# case but the [no-asan] ones the pass above ran; its last lines name those, and why), then
# a libFuzzer run of the front end and the results-file reader (a fixed number of executions
# each, below), both from one clang-19 tree (build-asan/). The ASan run's Catch2 totals and
# the fuzz run (one test) join the counts. BPFBENCH_HARDENING=0 leaves both out (counted as skipped) and builds and runs every
# Catch2 test case in the passes above.
extra_skips=()
if [ "${BPFBENCH_HARDENING:-1}" = 0 ]; then
  skipped=$((skipped + 2))
  extra_skips+=("sanitizer unit tests: left out by BPFBENCH_HARDENING=0" "fuzz run: left out by BPFBENCH_HARDENING=0")
else
  set +e
  t0=$SECONDS
  # The background build's result shows in the step below: when it failed, that step
  # runs the same ninja (finishing anything left, or failing with the compiler's message).
  while [ ! -s sanitize-build.rc ] && kill -0 "$san_pid" 2>/dev/null; do sleep 1; done
  bg_rc=$(cat sanitize-build.rc 2>/dev/null || echo 1)
  tail -n 1 sanitize-build.log
  echo "test.sh: the background sanitizer build ended $((SECONDS - t0)) s after the ctest passes (exit ${bg_rc})"
  # The fuzz step runs beside the sanitizer step, at nice 19: the runtime test cases there
  # run one at a time and leave about one CPU of two idle once the front-end queue is done
  # (measured in a CI run here: ~200 s at 48-52 % idle). A fixed number of executions per
  # target (those two targets' counts in 40 s and 20 s in the last CI runs before the
  # change, when they ran alone), not a time: the same fuzzing however much CPU it gets,
  # at most 400 s each. Nice 19, not SCHED_IDLE: libFuzzer's 10 s per-input timeout is wall
  # clock, and a task at SCHED_IDLE can wait that long while two producer threads run.
  # Only when the background build succeeded (its targets are there: fuzz.sh runs no ninja
  # of its own beside the sanitizer step's); otherwise after it, as before.
  # fuzz_floors (the --floor-from reader): ~4 s of executions at its rate here (7400/s).
  # fuzz_manifest (the family.json reader): 6000 executions, 5-10 s here (1132/s alone, 750/s
  # at nice 19 beside four other builds).
  export FUZZ_RUNS="fuzz_frontend:${BPFBENCH_FUZZ_RUNS_FRONTEND:-48000} fuzz_results:${BPFBENCH_FUZZ_RUNS_RESULTS:-105000} fuzz_floors:${BPFBENCH_FUZZ_RUNS_FLOORS:-30000} fuzz_manifest:${BPFBENCH_FUZZ_RUNS_MANIFEST:-6000}"
  fuzz_cap=400
  fuzz_pid=
  # The qemu boots of label vm-guest run beside the sanitizer step too, at nice 19, one at
  # a time: the guests' kernels are not the host's, and the host side of those tests loads
  # no BPF program, so they cannot disturb the runtime cases' checks of the host's BPF
  # objects (the two boots that also probe the host ran in the ctest pass).
  set -m
  nice -n 19 bash "$ci_steps" run vm-guest ctest --output-on-failure --timeout 600 -j1 -L '^vm-guest$' >vm-guest.log 2>&1 &
  vm_pid=$!
  bg_pids+=("$vm_pid")
  set +m
  if [ "$bg_rc" -eq 0 ]; then
    set -m
    FUZZ_NO_BUILD=1 nice -n 19 bash "$ci_steps" run fuzz bash ../scripts/fuzz.sh "$fuzz_cap" >fuzz.out 2>&1 &
    fuzz_pid=$!
    bg_pids+=("$fuzz_pid")
    set +m
    # The runtime cases; then it waits for the background front-end cases and counts both.
    SANITIZE_FRONTEND_PID=$san_pid step asan-runtime bash ../scripts/test-sanitize.sh rest 2>&1 | tee sanitize.out
    san_rc=${PIPESTATUS[0]}
    cat sanitize-frontend.out 2>/dev/null
  else
    wait "$san_pid"
    step asan-all bash ../scripts/test-sanitize.sh 2>&1 | tee sanitize.out
    san_rc=${PIPESTATUS[0]}
  fi
  t1=$SECONDS
  if [ -n "$fuzz_pid" ]; then
    wait "$fuzz_pid"
    fuzz_rc=$?
    cat fuzz.out
    echo "test.sh: the fuzz step ran beside the sanitizer step and ended $((SECONDS - t1)) s after it"
  else
    step fuzz bash ../scripts/fuzz.sh "$fuzz_cap" 2>&1 | tee fuzz.out
    fuzz_rc=${PIPESTATUS[0]}
  fi
  t2=$SECONDS
  wait "$vm_pid"
  vm_rc=$?
  cat vm-guest.log
  cat vm-guest.log >>ctest.log
  read -r vp vf vs <<<"$(ctest_counts vm-guest.log)"
  passed=$((passed + vp)) failed=$((failed + vf)) skipped=$((skipped + vs))
  echo "test.sh: the vm-guest boots ran beside the sanitizer step and ended $((SECONDS - t2)) s after the fuzz step"
  [ "$rc" -ne 0 ] || rc=$vm_rc
  set -e
  echo "test.sh: sanitizer step $((t1 - t0)) s (exit ${san_rc}), fuzz step done $((t2 - t1)) s after it (exit ${fuzz_rc})"
  san=$(sed -nE 's/^sanitize: ([0-9]+) passed, ([0-9]+) failed, ([0-9]+) skipped$/\1 \2 \3/p' sanitize.out | tail -1)
  if [ -n "$san" ]; then
    read -r sp sf ss <<<"$san"
    passed=$((passed + sp)) failed=$((failed + sf)) skipped=$((skipped + ss))
    while IFS= read -r line; do extra_skips+=("$line"); done < <(sed -n 's/^sanitize: skipped: //p' sanitize.out)
    noroot=$(grep -c 'skipped: runtime tests need root' ../build-asan/sanitize.log 2>/dev/null || true)
    [ "${noroot:-0}" -eq 0 ] || extra_skips+=("under ASan: ${noroot} runtime test cases need root and BPF")
    # The sanitizer reports count as a failure even when no test case failed.
    if [ "$san_rc" -ne 0 ] && [ "$sf" -eq 0 ]; then failed=$((failed + 1)); fi
  else
    failed=$((failed + 1))  # it did not get as far as running the tests (build failed)
  fi
  if [ "$fuzz_rc" -eq 0 ]; then passed=$((passed + 1)); else failed=$((failed + 1)); fi
  if [ "$rc" -eq 0 ] && { [ "$san_rc" -ne 0 ] || [ "$fuzz_rc" -ne 0 ]; }; then rc=1; fi
fi
echo
bash "$ci_steps" report
for tree in build build-asan; do
  [ ! -d "../$tree" ] || bash "$ci_steps" objects "$(cd "../$tree" && pwd)"
done
echo
if [ "$skipped" -gt 0 ]; then
  echo "skipped tests and why:"
  grep -E '\*\*\*Skipped' ctest.log | sed 's/^/  /' || true
  for r in "${extra_skips[@]}"; do echo "  $r"; done
fi
echo "tests: ${passed} passed, ${failed} failed, ${skipped} skipped"
exit "$rc"
