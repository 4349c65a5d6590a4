# Shared by the fidelity checks (compare_*.sh): build a hand-written libbpf baseline, then
# run bpfbench and the baseline in alternating pairs and print the medians.
# Sourced after `set -euo pipefail`; the caller sets root, bpfbench, pairs, dur.

work=$(mktemp -d /tmp/bpfbench-perf.XXXXXX)
trap 'rm -rf "$work"' EXIT

# build_baseline NAME: tests/perf/NAME.bpf.c and NAME.c -> $work/baseline{,.bpf.o}
build_baseline() {
  clang-19 -target bpf -O2 -g -D__TARGET_ARCH_x86 -I/usr/include/x86_64-linux-gnu \
    -c "$root/tests/perf/$1.bpf.c" -o "$work/baseline.bpf.o"
  cc -O2 -g -o "$work/baseline" "$root/tests/perf/$1.c" -lbpf -lpthread -lm
}

hits_of() { grep -o 'Summary: hits *[0-9.]*' | awk '{print $3}' | tail -n1; }
median() { printf "%s\n" "$@" | sort -g | awk '{v[NR]=$1} END {print (NR%2 ? v[(NR+1)/2] : (v[NR/2]+v[NR/2+1])/2)}'; }

header() { printf "%-14s %10s %10s %8s   (medians over %d pairs, %ds each)\n" variant bpfbench baseline ratio "$pairs" "$dur"; }

# pair_runs NAME BDSL_TEXT BASELINE_MODE: $pairs alternating runs, one line of medians.
pair_runs() {
  local name=$1 text=$2 mode=$3 a b i
  local -a ours=() theirs=() ratios=()
  printf '%s\n' "$text" >"$work/one.bdsl"
  for ((i = 0; i < pairs; i++)); do
    a=$("$bpfbench" run "$work/one.bdsl" -q 2>/dev/null | hits_of)
    b=$("$work/baseline" "$work/baseline.bpf.o" "$mode" 1 "$dur" | hits_of)
    ours+=("$a"); theirs+=("$b")
    ratios+=("$(awk -v a="$a" -v b="$b" 'BEGIN { printf "%.4f", (b > 0 ? a / b : 0) }')")
  done
  printf "%-14s %10.3f %10.3f %8.3f\n" "$name" "$(median "${ours[@]}")" "$(median "${theirs[@]}")" "$(median "${ratios[@]}")"
}
