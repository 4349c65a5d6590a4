// Runtime tests (root + BPF): what the syscall producer's getpgid() passes the kernel is the
// `getpgid_arg` param, seen from a BPF program on the syscall's tracepoint, not whatever a
// register happens to hold (which made `base` 24 % faster than the kernel bench's
// trig-syscall-count).
#include <catch2/catch.hpp>

#include <unistd.h>

#include "run_process.hpp"
#include "temp_dir.hpp"

namespace {

// A trigger `tp` bench that counts a getpgid() only when its pid argument (offset 16 of the
// sys_enter_getpgid record) is `want`; `expect` fails the run when one is not counted.
std::string bench_counting(const std::string &label, const std::string &arg, const std::string &want) {
  return "bench trigger as \"" + label + "\" < prog tp; warmup 0s; duration 1s;" + arg +
         "\n  code body { __s64 pid = *(__s64 *)((char *)ctx + 16);\n"
         "    if (pid != (" +
         want +
         ")) return; }\n"
         "  expect hits > 0;\n>\n";
}

}  // namespace

TEST_CASE("getpgid_arg: -1 or the producer's own tid reaches the kernel", "[runtime][trigger][cli]") {
  if (geteuid() != 0) {
    WARN("skipped: runtime tests need root and BPF");
    return;
  }
  bpfbench::test::TempDir dir;
  const std::string own_tid = "(__s64)(__u32)bpf_get_current_pid_tgid()";
  std::string text = bench_counting("invalid", " getpgid_arg invalid;", "-1") +
                     bench_counting("self", " getpgid_arg self;", own_tid) +
                     bench_counting("default", "", own_tid);  // the trigger family's default
  auto r = bpfbench::test::run_process({BPFBENCH_BINARY, "run", "-q", dir.write("arg.bdsl", text)}, 120);
  INFO(r.out << r.err);
  CHECK(r.exit_code == 0);
  CHECK((r.out + r.err).find("FAILED") == std::string::npos);
  // The control: counting on a value it is not gets no hits, and the expectation says so.
  auto wrong = bpfbench::test::run_process(
      {BPFBENCH_BINARY, "run", "-q", dir.write("wrong.bdsl", bench_counting("wrong", " getpgid_arg self;", "-1"))},
      120);
  INFO(wrong.out << wrong.err);
  CHECK(wrong.exit_code != 0);
  CHECK((wrong.out + wrong.err).find("FAILED: expect hits > 0") != std::string::npos);
}
