#!/usr/bin/env bash
# Builds the libFuzzer targets with clang-19 (build-asan/, the tree the sanitizer run
# shares: scripts/sanitize-tree.sh) and fuzzes them for SECONDS
# (default 60) in all, each on a copy of its seed corpus: the front end (.bdsl text) two
# thirds of the time, the results-file reader with compare/plot (JSON) one third, and
# beside it the `ab --floor-from` reader (a control run's JSON) one third; the family.json
# reader (fuzz_manifest) when named in FUZZ_TARGETS or FUZZ_RUNS.
# Exits non-zero on any crash, leak, timeout or out-of-memory, printing the reproducer;
# otherwise prints each run's stats.
#   scripts/fuzz.sh [SECONDS]
#   FUZZ_TARGETS=fuzz_results scripts/fuzz.sh 600   # one target, all the time
#   FUZZ_TARGETS=fuzz_manifest scripts/fuzz.sh 600  # the family.json reader
#   FUZZ_CORPUS=dir scripts/fuzz.sh 600   # grow a corpus that outlives the run (one target)
#   build-asan/tests/fuzz/fuzz_frontend CRASH_FILE   # replay a reproducer
#   FUZZ_RUNS="fuzz_frontend:48000 fuzz_results:100000" scripts/fuzz.sh 300
#     a fixed number of executions per target instead of a share of the time, SECONDS
#     then each target's cap: the same fuzzing however much CPU the run gets (scripts/test.sh
#     runs it beside the sanitizer step's runtime tests, at nice 19)
#   FUZZ_NO_BUILD=1: the caller built the targets (no ninja here)
set -euo pipefail
cd "$(dirname "$0")/.."

secs="${1:-60}"
if ! [[ "$secs" =~ ^[0-9]+$ ]] || [ "$secs" -eq 0 ]; then
  echo "usage: scripts/fuzz.sh [SECONDS]" >&2
  exit 2
fi
build=build-asan
bash scripts/sanitize-tree.sh
# FUZZ_CORPUS alone keeps its old meaning: the front end's corpus.
default_targets="fuzz_frontend fuzz_results fuzz_floors"
[ -n "${FUZZ_CORPUS:-}" ] && default_targets=fuzz_frontend
# FUZZ_RUNS names its targets: those run (fuzz_manifest among them).
[ -n "${FUZZ_RUNS:-}" ] && [ -z "${FUZZ_TARGETS:-}" ] && default_targets=$(printf '%s\n' ${FUZZ_RUNS} | sed 's/:.*//' | tr '\n' ' ')
targets=(${FUZZ_TARGETS:-$default_targets})
if [ -n "${FUZZ_CORPUS:-}" ] && [ "${#targets[@]}" -ne 1 ]; then
  echo "fuzz.sh: FUZZ_CORPUS needs one target (FUZZ_TARGETS=fuzz_frontend, fuzz_results, fuzz_floors or fuzz_manifest)" >&2
  exit 2
fi
# Only the fuzz targets and what they link: the rest of the tree is not fuzzed.
[ -n "${FUZZ_NO_BUILD:-}" ] || ninja -C "$build" "${targets[@]}"
# FUZZ_RUNS: "target:N ..." (each target listed, N > 0).
declare -A runs=()
for tr in ${FUZZ_RUNS:-}; do
  if ! [[ "$tr" =~ ^(fuzz_frontend|fuzz_results|fuzz_floors|fuzz_manifest):([1-9][0-9]*)$ ]]; then
    echo "fuzz.sh: FUZZ_RUNS entry '$tr' is not TARGET:N (fuzz_frontend, fuzz_results, fuzz_floors or fuzz_manifest, N > 0)" >&2
    exit 2
  fi
  runs[${BASH_REMATCH[1]}]=${BASH_REMATCH[2]}
done
if [ -n "${FUZZ_RUNS:-}" ]; then
  for target in "${targets[@]}"; do
    [ -n "${runs[$target]:-}" ] || { echo "fuzz.sh: FUZZ_RUNS has no count for $target" >&2; exit 2; }
  done
fi

export ASAN_OPTIONS="detect_leaks=1:abort_on_error=1:symbolize=1"
export UBSAN_OPTIONS="print_stacktrace=1:halt_on_error=1"
work=$(mktemp -d /tmp/bpfbench-fuzz.XXXXXX)

# fuzz TARGET SECONDS CORPUS DICT: one libFuzzer run; on a finding prints it and exits 1.
fuzz() {
  local target=$1 t=$2 corpus=$3 dict=$4 log="$work/$1.log" n=${runs[$1]:--1} what
  mkdir -p "$work/artifacts-$target"
  what="for ${t}s"
  [ "$n" = -1 ] || what="for $n executions (at most ${t}s)"
  echo "fuzz.sh: fuzzing $target $what (corpus $corpus, log $log)"
  local t0=$SECONDS
  set +e
  TMPDIR="$work" "$build/tests/fuzz/$target" \
    -max_total_time="$t" -runs="$n" -timeout=10 -rss_limit_mb=2048 -max_len=65536 \
    -dict="$dict" -artifact_prefix="$work/artifacts-$target/" -print_final_stats=1 \
    "$corpus" >"$log" 2>&1
  local rc=$?
  set -e
  local execs files bytes cov rate
  execs=$(sed -n 's/^stat::number_of_executed_units: *//p' "$log" | tail -1)
  files=$(find "$corpus" -type f | wc -l)
  bytes=$(du -sb "$corpus" | cut -f1)
  if [ "$rc" -ne 0 ]; then
    # libFuzzer's report: the sanitizer's stack and "Test unit written to <file>".
    grep -E 'ERROR|SUMMARY|==[0-9]+==|#[0-9]+ 0x|Test unit written|timeout|out-of-memory|fuzz_(results|floors|manifest):' "$log" | head -60
    for a in "$work/artifacts-$target"/*; do
      [ -e "$a" ] || continue
      echo "fuzz.sh: reproducer: $a (replay: $build/tests/fuzz/$target $a)"
      # CI keeps no files: show the input itself (base64 restores the exact bytes).
      echo "fuzz.sh: its $(wc -c <"$a") bytes, base64:"
      head -c 4096 "$a" | base64
    done
    echo "fuzz.sh: $target FAILED (exit $rc) after ${execs:-?} executions; full log: $log"
    exit 1
  fi
  # The last status line: "#N DONE cov: C ft: F corp: ..." (edges covered, features).
  cov=$(sed -nE 's/^#[0-9]+[[:space:]]+DONE[[:space:]]+cov: ([0-9]+) ft: ([0-9]+).*/cov \1, ft \2/p' "$log" | tail -1)
  rate=$(sed -n 's/^stat::average_exec_per_sec: *//p' "$log" | tail -1)
  echo "fuzz.sh: $target ok: ${execs:-?} executions in $((SECONDS - t0))s (${rate:-?}/s), ${cov:-cov ?}, corpus ${files} files (${bytes} bytes)"
  if [ "$n" != -1 ] && [ "${execs:-0}" -lt "$n" ]; then
    echo "fuzz.sh: $target ran out of its ${t}s before its $n executions"
  fi
}

# The front end. Seeds: every test case and example (prefixed: names repeat across folders).
seed_frontend() {
  local corpus=$1
  for f in tests/cases/*.bdsl; do cp "$f" "$corpus/cases-$(basename "$f")"; done
  for f in tests/cases/inc/*.bdsl; do cp "$f" "$corpus/inc-$(basename "$f")"; done
  for f in examples/*.bdsl; do cp "$f" "$corpus/examples-$(basename "$f")"; done
}

# The dictionary: the language's words plus every shipped family's names (they change
# more often than the language does).
dict_frontend="$work/bdsl.dict"
cp tests/fuzz/bdsl.dict "$dict_frontend"
{
  set +o pipefail  # a family set without enums has no "choices": not an error
  grep -ohE '"(name|family)": *"[^"]+"' bpf_templates/*/family.json | sed -E 's/.*: *"([^"]+)"$/\1/'
  grep -ohE '"choices": *\[[^]]*\]' bpf_templates/*/family.json | grep -oE '"[^"]+"' | grep -v '^"choices"$' | tr -d '"'
  true
} | sort -u | grep -E '^[A-Za-z0-9_-]+$' | sed 's/.*/"&"/' >>"$dict_frontend"

# The family.json reader. Seeds: the shipped manifests and the test fixtures' (good and
# bad). Dictionary: its own words plus every key and string of the shipped manifests.
seed_manifest() {
  local corpus=$1 f
  for f in bpf_templates/*/family.json tests/fixtures/families/*/family.json tests/fixtures/manifests/*/family.json; do
    cp "$f" "$corpus/$(basename "$(dirname "$f")")-$(basename "$(dirname "$(dirname "$f")")").json"
  done
}
dict_manifest="$work/manifest.dict"
cp tests/fuzz/manifest.dict "$dict_manifest"
{
  set +o pipefail
  grep -ohE '"[A-Za-z0-9_:?/.-]{1,40}"' bpf_templates/*/family.json
  true
} | sort -u | sed 's/"/\\"/g; s/.*/"&"/' >>"$dict_manifest"

# The split keeps the step's fuzzing time: two thirds front end, one third each JSON
# reader (results files, floor files). With FUZZ_RUNS there is no split: each target runs
# to its count, SECONDS its cap. The targets run side by side, each a single process, so
# the step takes the front end's share of wall clock, not the sum (the floor reader's
# count in CI is a few seconds' worth).
pids=()
for target in "${targets[@]}"; do
  if [ "${#targets[@]}" -eq 1 ] || [ -n "${FUZZ_RUNS:-}" ]; then t=$secs
  elif [ "$target" = fuzz_frontend ]; then t=$(( secs - secs / 3 ))
  else t=$(( secs / 3 > 0 ? secs / 3 : 1 )); fi
  corpus="${FUZZ_CORPUS:-$work/corpus-$target}"
  mkdir -p "$corpus"
  case $target in
    fuzz_frontend) seed_frontend "$corpus"; fuzz fuzz_frontend "$t" "$corpus" "$dict_frontend" >"$work/$target.out" 2>&1 & ;;
    # Seeds: small results files of real runs (tests/fuzz/corpus_results/README.md).
    fuzz_results) cp tests/fuzz/corpus_results/*.json "$corpus/"; fuzz fuzz_results "$t" "$corpus" tests/fuzz/results.dict >"$work/$target.out" 2>&1 & ;;
    fuzz_manifest) seed_manifest "$corpus"; fuzz fuzz_manifest "$t" "$corpus" "$dict_manifest" >"$work/$target.out" 2>&1 & ;;
    # Seeds: a real control run's JSON (tests/fuzz/corpus_floors/README.md).
    fuzz_floors) cp tests/fuzz/corpus_floors/*.json "$corpus/"; fuzz fuzz_floors "$t" "$corpus" tests/fuzz/floors.dict >"$work/$target.out" 2>&1 & ;;
    *) echo "fuzz.sh: unknown target $target" >&2; exit 2 ;;
  esac
  pids+=($!)
done
# Each run's report in target order; any finding fails the step.
failed=0
for i in "${!targets[@]}"; do
  wait "${pids[$i]}" || failed=1
  cat "$work/${targets[$i]}.out"
done
[ "$failed" -eq 0 ] || exit 1
rm -rf "$work"
