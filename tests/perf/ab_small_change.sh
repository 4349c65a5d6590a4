#!/bin/bash
# A known ~3 % change in a ~30 ns program, through interleaved `bpfbench ab` (K loads a
# side under the dispatcher): is it detected, and how close is the estimated ratio to the
# true one? (docs/measurements/2026-12-07-interleaved-ab.md)
#
# The program is rawtp-kfunc whose body is a chain of dependent 64-bit multiplies (an empty
# asm keeps clang from folding them): A has 12, B has 14, CAL has 212. Past the first ~6
# (which the CPU overlaps with the rest of the event: 2 and 3 multiplies cost the same,
# 32.7 and 33.0 ns in the kernel here) each multiply costs the same ~0.9 ns, so B's extra
# cost is a 100th of CAL's. Two ways to know it, neither from the A-B comparison itself:
#  - in the kernel: `run --prog-stats` of A and CAL alone, ROUNDS times alternated: c = (CAL
#    - A) / 200 ns per multiply (run-time stats count only the program's own time, so other
#    work on the machine changes them little);
#  - from a large ratio: `ab` of A against CAL (the same dispatcher, producer and counting
#    as A against B) reads r = A/CAL in events per second; with one multiply costing
#    (1/r - 1)/200 of A's event, the true B/A is 1 / (1 + 2 (1/r - 1)/200).
# Then POINT_FILES ab runs (4 identical points each) of A against B, and as many of A
# against A.
#
#   sudo tests/perf/ab_small_change.sh OUT_DIR [ROUNDS] [POINT_FILES] [BPFBENCH]
set -euo pipefail
root=$(cd "$(dirname "$0")/../.." && pwd)
out=${1:?usage: ab_small_change.sh OUT_DIR [ROUNDS] [POINT_FILES] [BPFBENCH]}
rounds=${2:-5}
files=${3:-5}
bpfbench=${4:-$root/build/bpfbench}
mkdir -p "$out"
d=$(mktemp -d)
trap 'rm -rf "$d"' EXIT

chain_file() {  # MULTIPLIES FILE POINTS
  {
    echo "defaults < affinity; warmup 1s; duration 3s; >"
    for r in $(seq 1 "$3"); do
      cat <<B
bench trigger as "r$r" < prog rawtp-kfunc; batch_iters 100; report hits;
  code globals { __u64 bb_acc_sink; }
  code body {
    __u64 x = *(volatile __u64 *)&bb_acc_sink;
#pragma clang loop unroll(full)
    for (int i = 0; i < $1; i++) {
      x *= 0x9E3779B97F4A7C15ull;
      asm volatile("" : "+r"(x));
    }
    bb_acc_sink = x;
  }
>
B
    done
  } >"$2"
}
chain_file 12 "$d/a1.bdsl" 1
chain_file 212 "$d/cal1.bdsl" 1
chain_file 12 "$d/a.bdsl" 4
chain_file 14 "$d/b.bdsl" 4
chain_file 212 "$d/cal.bdsl" 4

for r in $(seq 1 "$rounds"); do
  for p in a1 cal1; do
    "$bpfbench" run "$d/$p.bdsl" -q --prog-stats --json "$out/run-$p-$r.json" >/dev/null 2>"$out/run-$p-$r.err" ||
      echo "run $p failed: $(tail -1 "$out/run-$p-$r.err")"
  done
done
"$bpfbench" ab "$d/a.bdsl" "$d/cal.bdsl" --format json >"$out/cal.json" 2>"$out/cal.err" || true
for i in $(seq 1 "$files"); do
  for pair in ab aa; do
    second=$d/b.bdsl
    [ "$pair" = ab ] || second=$d/a.bdsl
    t0=$(date +%s.%N)
    "$bpfbench" ab "$d/a.bdsl" "$second" --format json >"$out/$pair-$i.json" 2>"$out/$pair-$i.err" || true
    echo "$pair $i $(echo "$(date +%s.%N) - $t0" | bc) s $(uptime | sed 's/.*load average: //')" | tee -a "$out/times.txt"
  done
done

python3 - "$out" <<'PY'
import glob, json, statistics, sys
out = sys.argv[1]
ns = {"a1": [], "cal1": []}
for p in ns:
    for f in sorted(glob.glob(f"{out}/run-{p}-*.json")):
        st = json.load(open(f))["points"][0]["stats"]
        if "prog_ns" in st:
            ns[p].append(st["prog_ns"]["mean"])
if ns["a1"] and ns["cal1"]:
    a, cal = statistics.median(ns["a1"]), statistics.median(ns["cal1"])
    print(f"in the kernel (--prog-stats, alone): A {a:.1f} ns/run ({min(ns['a1']):.1f}-{max(ns['a1']):.1f}), "
          f"CAL {cal:.1f} ns/run ({min(ns['cal1']):.1f}-{max(ns['cal1']):.1f}); one multiply {(cal - a) / 200:.3f} ns")
try:
    rc = statistics.median(p["ratio"] for p in json.load(open(f"{out}/cal.json"))["points"] if p.get("ratio"))
    print(f"ab A vs CAL: CAL/A {rc:.4f} in events per second; so the true B/A is {1 / (1 + 2 * (1 / rc - 1) / 200):.4f}")
except (OSError, ValueError, KeyError, json.JSONDecodeError) as e:
    print(f"ab A vs CAL: no ratio ({e})")
for pair in ("ab", "aa"):
    ratios, verdicts, half, floor = [], [], [], []
    for f in sorted(glob.glob(f"{out}/{pair}-*.json")):
        try:
            j = json.load(open(f))
        except json.JSONDecodeError:
            print(f"{f}: no JSON")
            continue
        for pt in j["points"]:
            if pt.get("ratio") is None:
                continue
            ratios.append(pt["ratio"])
            verdicts.append(pt.get("verdict"))
            half.append(pt["half_width_pct"])
            floor.append(pt["floor_pct"])
    if not ratios:
        print(f"{pair}: no points")
        continue
    changed = sum(v in ("faster", "slower") for v in verdicts)
    print(f"{pair}: {len(ratios)} points, called changed {changed}, verdicts "
          f"{ {v: verdicts.count(v) for v in set(verdicts)} }, median B/A {statistics.median(ratios):.4f} "
          f"(range {min(ratios):.4f}-{max(ratios):.4f}), median CI half-width {statistics.median(half):.2f} %, "
          f"median floor {statistics.median(floor):.2f} %")
PY
