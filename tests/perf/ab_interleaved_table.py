#!/usr/bin/env python3
"""The table of tests/perf/ab_interleaved.sh runs: per configuration and load, the points,
how many were called faster/slower, the median B/A, CI half-width and floor, and the median
time per point."""
import glob
import json
import os
import statistics
import sys


def main(dirs):
    rows = {}
    for d in dirs:
        for f in sorted(glob.glob(os.path.join(d, "*.json"))):
            name, tag, _ = os.path.basename(f)[:-5].split("-")
            try:
                j = json.load(open(f))
            except (json.JSONDecodeError, OSError):
                rows.setdefault((name, tag), []).append(None)
                continue
            for p in j["points"]:
                rows.setdefault((name, tag), []).append(p)
    print(f"{'config':<9} {'load':<6} {'points':>6} {'called':>7} {'median B/A':>10} {'min':>7} {'max':>7} "
          f"{'±CI med':>8} {'floor med':>9} {'s/point':>8} {'method':<11}")
    for (name, tag), ps in sorted(rows.items()):
        ok = [p for p in ps if p and "ratio" in p]
        called = sum(1 for p in ok if p["verdict"] in ("faster", "slower"))
        ratios = [p["ratio"] for p in ok]
        half = [p["half_width_pct"] for p in ok]
        floor = [p["floor_pct"] for p in ok]
        secs = [p["interleaved"]["elapsed_s"] for p in ok if "interleaved" in p]
        methods = sorted({p.get("method", "?") for p in ok})
        med = lambda v: statistics.median(v) if v else float("nan")
        print(f"{name:<9} {tag:<6} {len(ps):>6} {called:>7} {med(ratios):>10.4f} {min(ratios, default=0):>7.4f} "
              f"{max(ratios, default=0):>7.4f} {med(half):>7.2f}% {med(floor):>8.2f}% {med(secs):>8.1f} "
              f"{','.join(methods):<11}")


if __name__ == "__main__":
    main(sys.argv[1:])
