#!/usr/bin/env bash
# README command 1: install, build, and run the default example (short durations).
set -euo pipefail
cd "$(dirname "$0")/.."
bash scripts/build.sh
exec ./build/bpfbench run examples/trigger.bdsl -w 1s -d 2s
