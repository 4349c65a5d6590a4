#include "runtime/setup_prog_run.hpp"

#include <bpf/bpf.h>

#include <cerrno>
#include <cstdint>

namespace bpfbench {

std::vector<std::string> setup_programs(const std::vector<SetupActionSpec> &actions) {
  std::vector<std::string> out;
  for (const auto &a : actions)
    if (a.action == SetupActionKind::ProgRun) out.push_back(a.args.at("program"));
  return out;
}

std::string run_setup_program(BpfObject &obj, const std::string &function) {
  const std::string what = "prog_run '" + function + "': ";
  int fd = obj.program_fd(function);
  if (fd < 0) return what + "no such program loaded (a function of the template with a SEC)";
  LIBBPF_OPTS(bpf_test_run_opts, opts);
  if (bpf_prog_test_run_opts(fd, &opts) != 0) return what + "BPF_PROG_TEST_RUN failed: " + errno_text(errno);
  const auto ret = static_cast<int32_t>(opts.retval);
  if (ret == 0) return "";
  std::string out = what + "returned " + std::to_string(ret);
  if (ret < 0 && ret > -4096) out += ": " + errno_text(-ret);
  return out;
}

}  // namespace bpfbench
