#!/usr/bin/env bash
# Installs every Debian package bpfbench needs to build, test and run. Idempotent.
set -euo pipefail

packages=(
  # build
  cmake g++ pkg-config ninja-build make
  # BPF runtime
  libbpf-dev bpftool linux-libc-dev libelf-dev zlib1g-dev
  # sys/sdt.h: the USDT probes in the bpfbench binary (uprobes family, usdt-* programs)
  systemtap-sdt-dev
  # in-process compiler (pinned to 19 in CMakeLists.txt)
  clang-19 llvm-19-dev libclang-19-dev libclang-cpp19-dev libclang-common-19-dev
  # libFuzzer and the sanitizer runtimes for clang-19 (scripts/fuzz.sh)
  libclang-rt-19-dev
  # libraries
  tao-pegtl-dev libfmt-dev catch2 libcli11-dev nlohmann-json3-dev libkainjow-mustache-dev
  # guest kernels under qemu (`--kernel`, tests/vm): qemu + qboot, static busybox for the
  # initramfs, xz/zstd to unpack the kernels and their modules
  qemu-system-x86 busybox-static xz-utils zstd
  # optional at run time (`bpfbench plot`); installed so the plot tests run in CI
  gnuplot-nox
  # optional at run time (`bpfbench run --profile`: perf record/script); installed so the
  # profile test runs in CI
  linux-perf
  # the Debian package (scripts/build-deb.sh: dpkg-shlibdeps) and its test (man -w, python3
  # for the man page test)
  dpkg-dev man-db python3
)

if [ "$(id -u)" -ne 0 ]; then
  echo "install-deps.sh: run as root (apt-get needs it)" >&2
  exit 2
fi

missing=()
for p in "${packages[@]}"; do
  dpkg-query -W -f='${Status}' "$p" 2>/dev/null | grep -q 'install ok installed' || missing+=("$p")
done

if [ "${#missing[@]}" -eq 0 ]; then
  echo "install-deps.sh: all ${#packages[@]} packages already installed"
  exit 0
fi

echo "install-deps.sh: installing ${missing[*]}"
export DEBIAN_FRONTEND=noninteractive
apt-get update -qq
apt-get install -y -qq --no-install-recommends "${missing[@]}"
