// Runtime test (root + BPF): the strncmp family compares the kernel bench's bytes. Its
// `str` holds cmp_str_len - 1 'a's and then '`', one below target's 'a', so both compares
// stop at the last of cmp_str_len bytes (until 2026-12-05 they ran one byte further, to
// str's NUL). The open-coded loop's result says where it stopped: '`' - 'a' = -1
// there, NUL - 'a' = -97 one byte later.
#include <catch2/catch.hpp>

#include <unistd.h>

#include "run_process.hpp"
#include "temp_dir.hpp"

namespace {

// A no-helper point that counts a compare only when its result is `want`.
std::string counting(int len, int want) {
  return "bench strncmp as \"len" + std::to_string(len) + "\" < prog no-helper; cmp_str_len " + std::to_string(len) +
         "; warmup 0s; duration 1s;\n  code body { if (ret != " + std::to_string(want) +
         ") return; }\n  expect hits > 0;\n>\n";
}

}  // namespace

TEST_CASE("strncmp: the compare stops at the last of cmp_str_len bytes, as the kernel bench's",
          "[runtime][families][cli]") {
  if (geteuid() != 0) {
    WARN("skipped: runtime tests need root and BPF");
    return;
  }
  bpfbench::test::TempDir dir;
  auto r = bpfbench::test::run_process(
      {BPFBENCH_BINARY, "run", "-q", dir.write("stop.bdsl", counting(1, -1) + counting(32, -1) + counting(4095, -1))},
      120);
  INFO(r.out << r.err);
  CHECK(r.exit_code == 0);
  // The control: the NUL one byte further is never reached, so counting its result gets
  // no hits and the expectation fails the run.
  auto nul = bpfbench::test::run_process({BPFBENCH_BINARY, "run", "-q", dir.write("nul.bdsl", counting(32, -97))}, 120);
  INFO(nul.out << nul.err);
  CHECK(nul.exit_code != 0);
  CHECK((nul.out + nul.err).find("hits > 0") != std::string::npos);
}
