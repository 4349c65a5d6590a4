#!/usr/bin/env bash
# A compiler launcher (CMAKE_CXX_COMPILER_LAUNCHER, set by scripts/test.sh): runs the
# compile as given and writes its CPU seconds, "user sys", next to the object (OBJECT.cpu),
# so scripts/ci-steps.sh can say which objects a build's CPU went to.
out=
prev=
for a in "$@"; do
  [ "$prev" = -o ] && out=$a
  prev=$a
done
"$@"
rc=$?
if [ -n "$out" ]; then
  # `times` into a file, not a pipe: a pipe's subshell would report its own children.
  times >"$out.tms"
  sed -n 2p "$out.tms" | sed -E 's/([0-9]+)m([0-9.]+)s/\1 \2/g' |
    awk '{printf "%.1f %.1f\n", $1 * 60 + $2, $3 * 60 + $4}' >"$out.cpu"
  rm -f "$out.tms"
fi
exit "$rc"
