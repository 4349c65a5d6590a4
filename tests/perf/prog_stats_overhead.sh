#!/bin/bash
# What BPF run-time stats cost: trigger tp and rawtp run with and without them in
# alternating pairs (order flipped every pair), then per program the median of the
# per-pair hits ratios on/off, their range, and the median prog_ns with the stats on.
#   sudo tests/perf/prog_stats_overhead.sh [bpfbench] [pairs] [seconds]
# Run it on a quiet machine: under load the pairs are dominated by scheduling
# (docs/measurements/2026-12-01-prog-stats-cost.md).
set -euo pipefail
B=${1:-build/bpfbench}
N=${2:-5}
D=${3:-3}
F=$(dirname "$0")/../../examples/trigger.bdsl
OUT=$(mktemp -d)
trap 'rm -rf "$OUT"' EXIT
for i in $(seq 1 "$N"); do
  if ((i % 2)); then order="on off"; else order="off on"; fi
  for m in $order; do
    extra=()
    [ "$m" = on ] && extra=(--prog-stats)
    "$B" run "$F" --only tp --only rawtp -w1s -d"${D}s" -q "${extra[@]}" --json "$OUT/p${i}_$m.json" >/dev/null
  done
done
python3 - "$OUT" "$N" <<'PY'
import json, statistics, sys
out, n = sys.argv[1], int(sys.argv[2])
ratios, ns = {}, {}
for i in range(1, n + 1):
    on, off = (json.load(open(f"{out}/p{i}_{m}.json"))["points"] for m in ("on", "off"))
    for a, b in zip(on, off):
        ratios.setdefault(a["label"], []).append(a["stats"]["hits"]["mean"] / b["stats"]["hits"]["mean"])
        if "prog_ns" in a["stats"]:
            ns.setdefault(a["label"], []).append(a["stats"]["prog_ns"]["mean"])
for label, r in ratios.items():
    print(f"{label}: {len(r)} pairs, hits on/off median {statistics.median(r):.3f} "
          f"(range {min(r):.3f}-{max(r):.3f}), prog_ns median {statistics.median(ns.get(label, [0])):.1f}")
PY
