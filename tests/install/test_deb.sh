#!/usr/bin/env bash
# The Debian package as a user gets it: build it (scripts/build-deb.sh), check its Depends,
# install it with apt-get (every dependency is already on a machine that builds bpfbench,
# so nothing is downloaded), run the installed bpfbench from /tmp (check, a 1 s run of a
# shipped example, the man page, the completion), purge it and check that nothing it
# installed is left; and that docs/install.md states its file count and Depends. The
# install needs root and a machine without bpfbench installed: it skips (77) otherwise,
# after the package checks, rather than replace someone's copy.
# Usage: test_deb.sh BUILD_DIR
set -euo pipefail
build=$(realpath "$1")
src=$(realpath "$(dirname "$0")/../..")
skip() { echo "test_deb: SKIP: $*"; exit 77; }
fail() { echo "test_deb: FAIL: $*" >&2; exit 1; }
command -v dpkg-deb >/dev/null || skip "not a Debian system"

work=$(mktemp -d /tmp/bpfbench-deb-XXXXXX)
chmod 755 "$work"  # apt's _apt user reads the .deb
installed=0
cleanup() {
  if [ "$installed" = 1 ]; then apt-get purge -y -qq bpfbench >/dev/null 2>&1 || true; fi
  rm -rf "$work"
}
trap cleanup EXIT
apt_opts=(-y -qq -o DPkg::Lock::Timeout=120 --no-install-recommends)

start=$(date +%s)
deb=$(bash "$src/scripts/build-deb.sh" "$build" "$work")
echo "test_deb: built $(basename "$deb") ($(stat -c %s "$deb") bytes) in $(($(date +%s) - start)) s"

# Depends: the libraries of the binary and the headers its compile reads.
depends=$(dpkg-deb -f "$deb" Depends)
echo "test_deb: Depends: $depends"
names=" $(sed 's/ ([^)]*)//g; s/,//g' <<<"$depends") "
for p in libbpf1 libclang-cpp19 libllvm19 libfmt9 libstdc++6 libc6 libgcc-s1 linux-libc-dev libbpf-dev; do
  [[ $names == *" $p "* ]] || fail "Depends has no $p"
done
[ "$(dpkg-deb -f "$deb" Recommends)" = libclang-common-19-dev ] || fail "Recommends: $(dpkg-deb -f "$deb" Recommends)"

# docs/install.md states the package's file count and its Depends: line (as built on
# Debian 12): the page says what the package is, or this fails.
doc=$src/docs/install.md
nfiles=$(dpkg-deb -c "$deb" | grep -c '^-')
doc_files=$(sed -n 's/^It installs \([0-9]*\) files into .*/\1/p' "$doc")
[ "$doc_files" = "$nfiles" ] ||
  fail "docs/install.md says the package installs ${doc_files:-?} files; it holds $nfiles: update the page"
doc_depends=$(sed -n 's/^    Depends: //p' "$doc")
if [ "$(cut -d. -f1 /etc/debian_version 2>/dev/null)" = 12 ]; then
  [ "$doc_depends" = "$depends" ] ||
    fail "docs/install.md's Depends: line is '$doc_depends'; the package's is '$depends': update the page"
else  # another release: other library versions, the same packages
  [ "$(sed 's/ ([^)]*)//g' <<<"$doc_depends")" = "$(sed 's/ ([^)]*)//g' <<<"$depends")" ] ||
    fail "docs/install.md's Depends: names other packages than '$depends': update the page"
fi
echo "test_deb: docs/install.md's facts hold ($nfiles files, the Depends: line)"

# Installing it: root, on a machine without bpfbench.
[ "$(id -u)" -eq 0 ] || skip "needs root (apt-get install)"
command -v apt-get >/dev/null || skip "not a Debian system"
if dpkg-query -W -f='${Status}' bpfbench 2>/dev/null | grep -q ' installed'; then
  skip "a bpfbench package is installed already; not replacing it"
fi
[ ! -e /usr/bin/bpfbench ] || skip "/usr/bin/bpfbench exists (not from a package); not replacing it"

# What existed before, of what the package holds: those may stay after the purge.
mapfile -t paths < <(dpkg-deb -c "$deb" | awk '{print $6}' | sed 's|^\./|/|; s|/$||' | grep -v '^/\?$')
declare -A existed
for p in "${paths[@]}"; do [ -e "$p" ] && existed[$p]=1; done

DEBIAN_FRONTEND=noninteractive apt-get install "${apt_opts[@]}" "$deb" >"$work/apt.log" 2>&1 ||
  { cat "$work/apt.log" >&2; fail "apt-get install of the package failed"; }
installed=1
mapfile -t listed < <(dpkg -L bpfbench)
echo "test_deb: dpkg -L lists ${#listed[@]} paths"

cd "$(mktemp -d "$work/user-XXXXXX")"
export XDG_CACHE_HOME=$PWD/cache  # compiled here, not taken from a cache of the build tree
[ "$(command -v bpfbench)" = /usr/bin/bpfbench ] || fail "bpfbench on PATH is $(command -v bpfbench), not /usr/bin/bpfbench"
bpfbench --version
example=/usr/share/doc/bpfbench/examples/trigger.bdsl
# With the source and build trees hidden, when a private mount namespace can be made.
hide=()
if unshare -m true 2>/dev/null; then
  hide=(unshare -m sh -c 'mount -t tmpfs none "$1" && mount -t tmpfs none "$2" && shift 2 && exec "$@"' sh "$build" "$src")
fi
list=$("${hide[@]}" bpfbench list --json) || fail "bpfbench list --json"
dirs=$(sed -n 's/^ *"dir": "\(.*\)",*$/\1/p' <<<"$list")
[ -n "$dirs" ] || fail "bpfbench list --json shows no family"
if grep -v '^/usr/share/bpfbench/templates/' <<<"$dirs"; then fail "families found outside /usr/share/bpfbench/templates"; fi
"${hide[@]}" bpfbench check --compile "$example" || fail "bpfbench check --compile $example"
mount | grep -q tracefs || mount -t tracefs nodev /sys/kernel/tracing || true
"${hide[@]}" bpfbench run -w 0 -d 1s -q --only base --json "$work/r.json" "$example" ||
  fail "bpfbench run of $example"
grep -q '"hits"' "$work/r.json" || fail "the run's results have no hits"
[ "$(man -w bpfbench)" = /usr/share/man/man1/bpfbench.1 ] || fail "man -w bpfbench: $(man -w bpfbench 2>&1)"
page=$(COLUMNS=80 man bpfbench 2>&1) || fail "man bpfbench: $page"
grep -q 'BPFBENCH_TEMPLATE_PATH' <<<"$page" || fail "man bpfbench does not render the page"
words=$(bash -c 'source /usr/share/bash-completion/completions/bpfbench
  COMP_WORDS=(bpfbench emit --bench tr); COMP_CWORD=3; _bpfbench; echo "${COMPREPLY[*]}"')
[ "$words" = trigger ] || fail "completion of 'emit --bench tr' gives '$words', not 'trigger'"

apt-get purge "${apt_opts[@]}" bpfbench >"$work/apt.log" 2>&1 || { cat "$work/apt.log" >&2; fail "purge"; }
installed=0
for p in "${listed[@]}"; do
  [ -n "${existed[$p]:-}" ] && continue
  [ ! -e "$p" ] || fail "$p is left after the purge"
done
dpkg-query -W bpfbench >/dev/null 2>&1 && fail "dpkg still knows bpfbench after the purge"
echo "test_deb: ok in $(($(date +%s) - start)) s"
