#!/usr/bin/env bash
# `cmake --install BUILD --prefix P`, then the installed binary run from elsewhere, as a
# user would, with the source and build trees out of its reach: it must find its families
# in P/share/bpfbench/templates from its own path, never through a path compiled in.
# Usage: test_prefix.sh BUILD_DIR
set -euo pipefail
build=$(realpath "$1")
src=$(realpath "$(dirname "$0")/../..")
work=$(mktemp -d /tmp/bpfbench-prefix-XXXXXX)
trap 'rm -rf "$work"' EXIT
fail() { echo "test_prefix: FAIL: $*" >&2; exit 1; }

cmake --install "$build" --prefix "$work/p" >/dev/null
# A copied prefix: nothing in it may point back at the first one or the trees.
cp -a "$work/p" "$work/q"
rm -rf "$work/p"
q=$work/q
for f in bin/bpfbench share/bpfbench/templates/include/bpfbench_shared.h \
  share/bpfbench/templates/trigger/family.json share/doc/bpfbench/examples/trigger.bdsl \
  share/doc/bpfbench/README.md share/man/man1/bpfbench.1 share/bash-completion/completions/bpfbench; do
  [ -f "$q/$f" ] || fail "$f is not installed"
done

cd "$work"
# Every family comes from the copied prefix: none from the source tree.
list=$(env -u BPFBENCH_TEMPLATE_PATH "$q/bin/bpfbench" list --json)
dirs=$(printf '%s\n' "$list" | sed -n 's/^ *"dir": "\(.*\)",*$/\1/p')
[ -n "$dirs" ] || fail "list --json shows no family"
while read -r d; do
  case $d in "$q"/share/bpfbench/templates/*) ;; *) fail "family dir $d is not in the installed prefix" ;; esac
done <<<"$dirs"

# Every shipped example compiles (a fresh object cache: really compiled) with the source and
# build trees hidden in a private mount namespace, when we may make one, and clang's own
# headers hidden too: the package only Recommends libclang-common-19-dev (cmake/install.cmake).
check_all() {
  local f
  for f in "$q"/share/doc/bpfbench/examples/*.bdsl; do
    XDG_CACHE_HOME=$work/cache env -u BPFBENCH_TEMPLATE_PATH "$q/bin/bpfbench" check --compile "$f" || return 1
  done
}
if unshare -m true 2>/dev/null; then
  export -f check_all
  export q work
  unshare -m bash -c "mount -t tmpfs none '$build' && mount -t tmpfs none '$src' &&
    mount -t tmpfs none /usr/lib/llvm-19/lib/clang && check_all" ||
    fail "check --compile of the installed examples fails with the trees and clang's headers hidden"
else
  check_all || fail "check --compile of the installed examples fails"
fi

# The completion: commands, options, choices, and family names from the installed binary's
# `list --json` at completion time.
complete_words() {
  PATH=$q/bin:$PATH bash -c 'source "$1"; shift; COMP_WORDS=("$@"); COMP_CWORD=$(($# - 1)); _bpfbench
    echo "${COMPREPLY[*]}"' sh "$q/share/bash-completion/completions/bpfbench" "$@"
}
[ "$(complete_words bpfbench ch)" = check ] || fail "completion of 'ch': $(complete_words bpfbench ch)"
[ "$(complete_words bpfbench run --on)" = --only ] || fail "completion of 'run --on'"
[ "$(complete_words bpfbench check --dump '')" = "ast plan c" ] || fail "completion of 'check --dump'"
[ "$(complete_words bpfbench emit --bench ring)" = ringbuf ] || fail "completion of 'emit --bench ring'"
# --only: the labels of the file on the line (before or after the option; ab: A's), from
# its `plan --json`; nothing before a file is typed.
ex=$q/share/doc/bpfbench/examples
[ "$(complete_words bpfbench run "$ex/trigger.bdsl" --only kretprobe-m)" = "kretprobe-multi kretprobe-multi-all" ] ||
  fail "completion of 'run trigger.bdsl --only kretprobe-m': $(complete_words bpfbench run "$ex/trigger.bdsl" --only kretprobe-m)"
complete_at() {  # INDEX WORDS...: the cursor on word INDEX, not the last
  PATH=$q/bin:$PATH bash -c 'source "$1"; COMP_CWORD=$2; shift 2; COMP_WORDS=("$@"); _bpfbench
    echo "${COMPREPLY[*]}"' sh "$q/share/bash-completion/completions/bpfbench" "$@"
}
[ "$(complete_at 3 bpfbench ab --only rawtp-kfunc-b10 "$ex/trigger.bdsl")" = "rawtp-kfunc-b10 rawtp-kfunc-b100 rawtp-kfunc-b1000" ] ||
  fail "completion of 'ab --only rawtp-kfunc-b10 trigger.bdsl': $(complete_at 3 bpfbench ab --only rawtp-kfunc-b10 "$ex/trigger.bdsl")"
[ -z "$(complete_words bpfbench plan --only '')" ] || fail "completion of --only without a file offers words"
# bench NAME: the kernel bench's names (`bench --list`); its options after a dash.
[ "$(complete_words bpfbench bench trig-rawt)" = trig-rawtp ] || fail "completion of 'bench trig-rawt'"
[ "$(complete_words bpfbench bench --cmp-s)" = --cmp-str-len ] || fail "completion of 'bench --cmp-s'"
# .bdsl files (and folders) for the positionals of ab, run and check.
for cmd in ab run check; do
  [ "$(complete_words bpfbench "$cmd" "$ex/trig")" = "$ex/trigger.bdsl" ] ||
    fail "completion of '$cmd $ex/trig': $(complete_words bpfbench "$cmd" "$ex/trig")"
done

# $BPFBENCH_TEMPLATE_PATH adds to the installed families.
mkdir -p "$work/extra/mine"
sed 's/"family": *"trigger"/"family": "mine"/' "$q/share/bpfbench/templates/trigger/family.json" \
  >"$work/extra/mine/family.json"
cp "$q/share/bpfbench/templates/trigger/prog.bpf.c" "$work/extra/mine/"
# The whole output first: `| grep -q` may stop reading early, and under pipefail the
# writer's EPIPE would fail the pipeline.
listed=$(BPFBENCH_TEMPLATE_PATH=$work/extra "$q/bin/bpfbench" list)
grep -q '^mine ' <<<"$listed" || fail "a family on \$BPFBENCH_TEMPLATE_PATH is not listed"
echo "test_prefix: ok ($(find "$q" -type f | wc -l) files installed)"
