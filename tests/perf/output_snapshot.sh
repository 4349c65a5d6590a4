#!/usr/bin/env bash
# Snapshot of everything bpfbench prints for the shipped files, to prove that a
# refactoring changed no output:
#   bash tests/perf/output_snapshot.sh build/bpfbench /tmp/before
#   ... change, rebuild ...
#   bash tests/perf/output_snapshot.sh build/bpfbench /tmp/after
#   diff -r /tmp/before /tmp/after
# For every examples/*.bdsl and tests/cases/ok_*.bdsl: check (and check --compile), plan,
# plan --json, emit, --dump=ast, each with its exit code; list and list --json; the kernel
# bench's lists and refusals (`bench`) and ab's; and with RUN=1 (root + BPF) a short run of
# examples/trigger.bdsl, runs in rounds and with a failed expect, `bench` runs and an ab
# control run, whose text and JSON have every number and timestamp masked (their values
# differ run to run; their shape must not).
set -uo pipefail
bin=$(realpath "${1:?usage: output_snapshot.sh BPFBENCH OUTDIR}")
out=${2:?usage: output_snapshot.sh BPFBENCH OUTDIR}
cd "$(dirname "$0")/../.."
mkdir -p "$out"
out=$(realpath "$out")

snap() {  # snap NAME CMD...: stdout, stderr and exit code of one command
  local name=$1; shift
  "$@" >"$out/$name.out" 2>"$out/$name.err"
  echo "$?" >"$out/$name.rc"
}

snap list "$bin" list
snap list-json "$bin" list --json
for f in examples/*.bdsl tests/cases/ok_*.bdsl; do
  n=$(echo "$f" | tr '/' '_')
  snap "$n.check" "$bin" check "$f"
  snap "$n.check-compile" "$bin" check --compile "$f"
  snap "$n.plan" "$bin" plan "$f"
  snap "$n.plan-json" "$bin" plan --json "$f"
  snap "$n.emit" "$bin" emit "$f"
  snap "$n.ast" "$bin" check --dump=ast "$f"
done
# Error rendering: every error case, as check prints it.
for f in tests/cases/err_*.bdsl; do
  snap "$(echo "$f" | tr '/' '_').check" "$bin" check "$f"
done

# The kernel bench's command line and ab: what they list and refuse before any kernel work.
snap bench-list "$bin" bench --list
snap bench-scenarios "$bin" bench xdp-lb --list-scenarios
snap bench-unknown "$bin" bench trig-rawpt
snap bench-refused "$bin" bench -p2 rename-base
snap bench-no-option "$bin" bench --nr_maps 10 trig-rawtp
snap bench-scenario "$bin" bench xdp-lb --scenario tcp-v4-lru-hti
snap ab-usage "$bin" ab examples/trigger.bdsl
snap ab-setting "$bin" ab examples/trigger.bdsl --a producers
snap ab-only "$bin" ab examples/trigger.bdsl --a producers=1 --b producers=2 --only nothing-like-it

# The resource-limit errors quote this machine's free memory and running tasks; template
# paths name the checkout.
sed -i -E -e "s#$(pwd)/#<src>/#g" -e 's/[0-9.]+ GiB MemAvailable/<mem> MemAvailable/' \
  -e 's/[0-9]+ tasks running, a tenth kept free: [0-9]+/<tasks>/' "$out"/*

if [ "${RUN:-0}" = 1 ]; then
  mask() {  # numbers, timestamps, hashes and the host's facts vary between runs
    sed -E -e 's/[0-9a-f]{64}/<sha>/g' -e 's/[0-9]{4}-[0-9]{2}-[0-9]{2}T[0-9:]+Z/<time>/g' \
      -e 's/-?[0-9]+(\.[0-9]+)?([eE][-+]?[0-9]+)?/<n>/g'  -e 's/[( ]+/ /g'
  }
  tmp=$(mktemp -d)
  "$bin" run examples/trigger.bdsl -w 1s -d 1s --json "$tmp/r.json" >"$tmp/run.out" 2>"$tmp/run.err"
  echo "$?" >"$out/run.rc"
  mask <"$tmp/run.out" >"$out/run.out"
  mask <"$tmp/run.err" >"$out/run.err"
  # Sample arrays differ in length with timing: keep the keys and the structure only.
  python3 - "$tmp/r.json" <<'PY' | mask >"$out/run.json"
import json, sys
def shape(v):
    if isinstance(v, dict):
        return {k: shape(x) for k, x in v.items()}
    if isinstance(v, list):
        return [shape(v[0])] if v else []
    if isinstance(v, str):
        return v
    return type(v).__name__
doc = json.load(open(sys.argv[1]))
doc.pop("environment", None)
print(json.dumps(shape(doc), indent=1, sort_keys=True))
PY
  # Rounds, a failed expect, the kernel bench's formats and an ab control run: masked the same way.
  masked() {  # masked NAME CMD...: stdout and stderr masked, the exit code as it is
    local name=$1; shift
    "$@" >"$tmp/$name.out" 2>"$tmp/$name.err"
    echo "$?" >"$out/$name.rc"
    sed -e "s#$tmp/#<tmp>/#g" "$tmp/$name.out" | mask >"$out/$name.out"
    sed -e "s#$tmp/#<tmp>/#g" "$tmp/$name.err" | mask >"$out/$name.err"
  }
  printf 'suite "S" < bench trigger as "{prog}" < prog [base, rawtp]; warmup 0s; duration 1s; > >\n' >"$tmp/r.bdsl"
  printf 'bench trigger as "never" < prog base; warmup 0s; duration 1s; expect hits == 0; >\n' >"$tmp/e.bdsl"
  masked run-rounds "$bin" run "$tmp/r.bdsl" --rounds 2 --calibration off
  masked run-expect "$bin" run "$tmp/e.bdsl" -q --calibration off
  masked bench-rawtp "$bin" bench -w0 -d1 trig-rawtp
  masked bench-quiet "$bin" bench -q -w0 -d1 -p2 trig-rawtp
  masked ab-control "$bin" ab "$tmp/r.bdsl" --control --only base --max-pairs 3 --method turns
  rm -rf "$tmp"
fi
echo "snapshot: $(ls "$out" | wc -l) files in $out"
