#!/bin/bash
# What interleaved ab's dispatcher costs per event and how much it dilutes a ratio
# (docs/measurements/2026-12-07-interleaved-ab.md): a ~30 ns program (rawtp-kfunc, empty
# body) and a ~800 ns one (200 bpf_get_prandom_u32() calls), each run alone (`run
# --prog-stats`: in-kernel ns per run, hits per second) and under the dispatcher with K = 4
# (`ab X X --prog-stats`: the dispatcher's in-kernel ns per run, which holds the tail-called
# load, and events per producer CPU second); then a known small change of the ~30 ns
# program (one more load-add-store of a global) alone, ROUNDS times each, and through ab.
#
#   sudo tests/perf/ab_dispatch_cost.sh OUT_DIR [ROUNDS] [BPFBENCH]
set -euo pipefail
root=$(cd "$(dirname "$0")/../.." && pwd)
out=${1:?usage: ab_dispatch_cost.sh OUT_DIR [ROUNDS] [BPFBENCH]}
rounds=${2:-4}
bpfbench=${3:-$root/build/bpfbench}
mkdir -p "$out"
d=$(mktemp -d)
trap 'rm -rf "$d"' EXIT

point() {  # NAME BODY FILE (one label for all: ab matches points by label)
  cat >"$3" <<B
defaults < affinity; warmup 1s; duration 5s; >
bench trigger as "p" < prog rawtp-kfunc; batch_iters 100; report hits;
  code globals { __u64 bb_acc_sink; }
  code body {
$2
  }
>
B
}
point p30 "    *(volatile __u64 *)&bb_acc_sink += 1;" "$d/p30.bdsl"
point p30b "    *(volatile __u64 *)&bb_acc_sink += 1;
    *(volatile __u64 *)&bb_acc_sink += 1;" "$d/p30b.bdsl"
point p800 "    __u64 acc = 0;
#pragma clang loop unroll(disable)
    for (int i = 0; i < 200; i++)
      acc += bpf_get_prandom_u32();
    bb_acc_sink = acc;" "$d/p800.bdsl"

for r in $(seq 1 "$rounds"); do
  for p in p30 p30b p800; do
    "$bpfbench" run "$d/$p.bdsl" --prog-stats -q --json "$out/run-$p-$r.json" >/dev/null 2>&1 || echo "run $p failed"
  done
  for p in p30 p800; do
    "$bpfbench" ab "$d/$p.bdsl" "$d/$p.bdsl" --prog-stats --format json >"$out/ab-$p-$r.json" 2>/dev/null || true
  done
  "$bpfbench" ab "$d/p30.bdsl" "$d/p30b.bdsl" --prog-stats --format json >"$out/ab-p30-p30b-$r.json" 2>/dev/null || true
  "$bpfbench" ab "$d/p30.bdsl" "$d/p30b.bdsl" --format json >"$out/ab-p30-p30b-nostats-$r.json" 2>/dev/null || true
done
python3 - "$out" <<'PY'
import glob, json, statistics, sys
out = sys.argv[1]
def med(v): return statistics.median(v) if v else float("nan")
alone = {}
for f in glob.glob(f"{out}/run-*.json"):
    p = f.split("run-")[1].rsplit("-", 1)[0]
    j = json.load(open(f))
    pt = j["points"][0]
    alone.setdefault(p, {"ns": [], "hits": []})
    alone[p]["hits"].append(pt["stats"]["hits"]["mean"])
    if "prog_ns" in pt["stats"]:
        alone[p]["ns"].append(pt["stats"]["prog_ns"]["mean"])
under = {}
for f in glob.glob(f"{out}/ab-p30-*.json") + glob.glob(f"{out}/ab-p800-*.json"):
    name = f.split("ab-")[1].rsplit("-", 1)[0]
    try:
        j = json.load(open(f))
    except json.JSONDecodeError:
        continue
    for pt in j["points"]:
        x = pt.get("interleaved")
        if not x: continue
        u = under.setdefault(name, {"a_ns": [], "b_ns": [], "a": [], "ratio": [], "prog_ratio": []})
        u["ratio"].append(pt["ratio"])
        if x.get("prog_ns_ratio"): u["prog_ratio"].append(x["prog_ns_ratio"])
        for un in x["units"]:
            if un["a_prog_ns"]: u["a_ns"].append(un["a_prog_ns"])
            if un["b_prog_ns"]: u["b_ns"].append(un["b_prog_ns"])
            u["a"].append(un["a"])
for p, v in sorted(alone.items()):
    print(f"alone {p}: in-kernel {med(v['ns']):.1f} ns/run, {1000/med(v['hits']):.1f} ns/event ({len(v['hits'])} runs)")
for n, v in sorted(under.items()):
    print(f"ab {n}: dispatcher+load in-kernel A {med(v['a_ns']):.1f} B {med(v['b_ns']):.1f} ns/run, "
          f"{1e9/med(v['a']):.1f} ns/event of producer CPU, B/A events {med(v['ratio']):.4f}, "
          f"in-kernel B/A {med(v['prog_ratio']):.4f}")
PY
