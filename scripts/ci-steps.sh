#!/usr/bin/env bash
# The CPU and wall clock of scripts/test.sh's steps: what each one costs, not a guess.
#   ci-steps.sh run NAME CMD...   runs CMD (its exit code is this script's) and records, in
#                                 $CI_STEPS_DIR/NAME, its start (seconds after $CI_T0), its
#                                 wall clock and the user and system CPU seconds of CMD and
#                                 every process it waited for (bash's `times`: a compiler
#                                 under ninja, a test under ctest, a child of a test)
#   ci-steps.sh report            prints one line per recorded step, in start order
#   ci-steps.sh objects DIR       the CPU seconds of the objects compiled in build tree DIR
#                                 (scripts/ci-object-time.sh wrote them): the sum, the top 8
# Steps run side by side (scripts/test.sh's background jobs), so their walls overlap; their
# CPU seconds add up. Nothing a step leaves running after it ends is counted.
set -uo pipefail
dir=${CI_STEPS_DIR:?}
t0=${CI_T0:?}
case ${1:-} in
run)
  name=$2
  shift 2
  # `times`' second line: this shell's waited-for children, "XmY.YYYs XmY.YYYs", before and
  # after: a process that exec'd this script (bash -c runs its last command so) keeps the
  # times of the children it waited for before. No pipe: a pipe's subshell would report its
  # own (empty) children.
  times >"$dir/$name.tms0"
  start=$(date +%s.%N)
  "$@"
  rc=$?
  end=$(date +%s.%N)
  times >"$dir/$name.tms"
  read -r cu cs < <({ sed -n 2p "$dir/$name.tms0"; sed -n 2p "$dir/$name.tms"; } |
    sed -E 's/([0-9]+)m([0-9.]+)s/\1 \2/g' | awk '{u = $1 * 60 + $2 - u; s = $3 * 60 + $4 - s} END {printf "%.1f %.1f\n", u, s}')
  echo "$name $(awk -v s="$start" -v e="$end" -v t="$t0" 'BEGIN {printf "%.0f %.1f", s - t, e - s}') $cu $cs" >"$dir/$name"
  exit "$rc"
  ;;
report)
  echo "CI steps (start: seconds after the script started; wall, user and system CPU seconds):"
  printf '  %-16s %6s %7s %7s %7s\n' step start wall user sys
  for f in "$dir"/*; do [[ $f == *.tms || $f == *.tms0 || ! -f $f ]] || cat "$f"; done | sort -k2 -n |
    awk '{printf "  %-16s %6d %7.1f %7.1f %7.1f\n", $1, $2, $3, $4, $5; u += $4; s += $5}
      END {printf "  %-16s %6s %7s %7.1f %7.1f\n", "sum of steps", "", "", u, s}'
  ;;
objects)
  find "$2" -name '*.o.cpu' -exec awk '{printf "%.1f %s\n", $1 + $2, FILENAME}' {} + | sort -rn >"$dir/objects.tmp"
  awk -v d="$2" '{s += $1} END {printf "objects compiled in %s: %d, %.1f CPU seconds; the most:\n", d, NR, s}' "$dir/objects.tmp"
  head -8 "$dir/objects.tmp" | sed -E "s|$2/||; s|\.cpu$||; s|CMakeFiles/||; s|^|  |"
  rm -f "$dir/objects.tmp"
  ;;
*)
  echo "usage: $0 run NAME CMD... | report | objects DIR" >&2
  exit 2
  ;;
esac
