#!/usr/bin/env bash
# Builds the libFuzzer front-end target with clang-19 (build-fuzz/) and fuzzes it for
# SECONDS (default 60) on a copy of the seed corpus. Exits non-zero on any crash, leak,
# timeout or out-of-memory, printing the reproducer; otherwise prints the run's stats.
#   scripts/fuzz.sh [SECONDS]
#   FUZZ_CORPUS=dir scripts/fuzz.sh 600   # grow a corpus that outlives the run
#   build-fuzz/tests/fuzz/fuzz_frontend CRASH_FILE   # replay a reproducer
set -euo pipefail
cd "$(dirname "$0")/.."

secs="${1:-60}"
if ! [[ "$secs" =~ ^[0-9]+$ ]] || [ "$secs" -eq 0 ]; then
  echo "usage: scripts/fuzz.sh [SECONDS]" >&2
  exit 2
fi
build=build-fuzz

# -O1 with line tables only (OSS-Fuzz's choice): fast to build, stacks still symbolize.
cmake -S . -B "$build" -G Ninja -DCMAKE_BUILD_TYPE=RelWithDebInfo \
  -DCMAKE_C_FLAGS_RELWITHDEBINFO="-O1 -gline-tables-only" \
  -DCMAKE_CXX_FLAGS_RELWITHDEBINFO="-O1 -gline-tables-only" \
  -DCMAKE_C_COMPILER=clang-19 -DCMAKE_CXX_COMPILER=clang++-19 -DBPFBENCH_FUZZ=ON >/dev/null
# Only the fuzz target and what it links: the rest of the tree is not fuzzed.
ninja -C "$build" fuzz_frontend

work=$(mktemp -d /tmp/bpfbench-fuzz.XXXXXX)
corpus="${FUZZ_CORPUS:-$work/corpus}"
mkdir -p "$corpus" "$work/artifacts"
# Seeds: every test case and example (prefixed: names repeat across folders).
for f in tests/cases/*.bdsl; do cp "$f" "$corpus/cases-$(basename "$f")"; done
for f in tests/cases/inc/*.bdsl; do cp "$f" "$corpus/inc-$(basename "$f")"; done
for f in examples/*.bdsl; do cp "$f" "$corpus/examples-$(basename "$f")"; done

# The dictionary: the language's words plus every shipped family's names (they change
# more often than the language does).
dict="$work/bdsl.dict"
cp tests/fuzz/bdsl.dict "$dict"
{
  set +o pipefail  # a family set without enums has no "choices": not an error
  grep -ohE '"(name|family)": *"[^"]+"' bpf_templates/*/family.json | sed -E 's/.*: *"([^"]+)"$/\1/'
  grep -ohE '"choices": *\[[^]]*\]' bpf_templates/*/family.json | grep -oE '"[^"]+"' | grep -v '^"choices"$' | tr -d '"'
  true
} | sort -u | grep -E '^[A-Za-z0-9_-]+$' | sed 's/.*/"&"/' >>"$dict"

export ASAN_OPTIONS="detect_leaks=1:abort_on_error=1:symbolize=1"
export UBSAN_OPTIONS="print_stacktrace=1:halt_on_error=1"
echo "fuzz.sh: fuzzing the front end for ${secs}s (corpus $corpus, log $work/fuzz.log)"
set +e
"$build/tests/fuzz/fuzz_frontend" \
  -max_total_time="$secs" -timeout=10 -rss_limit_mb=2048 -max_len=65536 \
  -dict="$dict" -artifact_prefix="$work/artifacts/" -print_final_stats=1 \
  "$corpus" >"$work/fuzz.log" 2>&1
rc=$?
set -e

execs=$(sed -n 's/^stat::number_of_executed_units: *//p' "$work/fuzz.log" | tail -1)
files=$(find "$corpus" -type f | wc -l)
bytes=$(du -sb "$corpus" | cut -f1)
if [ "$rc" -ne 0 ]; then
  # libFuzzer's report: the sanitizer's stack and "Test unit written to <file>".
  grep -E 'ERROR|SUMMARY|==[0-9]+==|#[0-9]+ 0x|Test unit written|timeout|out-of-memory' "$work/fuzz.log" | head -60
  for a in "$work"/artifacts/*; do
    [ -e "$a" ] || continue
    echo "fuzz.sh: reproducer: $a (replay: $build/tests/fuzz/fuzz_frontend $a)"
    # CI keeps no files: show the input itself (base64 restores the exact bytes).
    echo "fuzz.sh: its $(wc -c <"$a") bytes, base64:"
    head -c 4096 "$a" | base64
  done
  echo "fuzz.sh: FAILED (exit $rc) after ${execs:-?} executions; full log: $work/fuzz.log"
  exit 1
fi
# The last status line: "#N DONE cov: C ft: F corp: ..." (edges covered, features).
cov=$(sed -nE 's/^#[0-9]+[[:space:]]+DONE[[:space:]]+cov: ([0-9]+) ft: ([0-9]+).*/cov \1, ft \2/p' "$work/fuzz.log" | tail -1)
rate=$(sed -n 's/^stat::average_exec_per_sec: *//p' "$work/fuzz.log" | tail -1)
echo "fuzz.sh: ok: ${execs:-?} executions in ${secs}s (${rate:-?}/s), ${cov:-cov ?}, corpus ${files} files (${bytes} bytes)"
rm -rf "$work"
