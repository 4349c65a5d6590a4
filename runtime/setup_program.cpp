#include "runtime/setup_program.hpp"

#include <bpf/bpf.h>
#include <bpf/libbpf.h>

#include <cerrno>
#include <cstring>

namespace bpfbench {

std::string prepare_setup_program(const SetupActionSpec &a, const BpfObject &obj) {
  const std::string &name = a.args.at("program");
  bpf_program *prog = obj.program(name);
  const std::string what = kind_name(a.action);
  if (!prog) return what + ": no program '" + name + "' in the object";
  if (bpf_program__set_autoload(prog, true) != 0) return what + ": cannot load program '" + name + "'";
  return "";
}

std::string run_setup_program(const SetupActionSpec &a, BpfObject &obj, uint64_t expect, SelfCheck &check, bool &ran) {
  ran = false;
  const std::string &name = a.args.at("program");
  int fd = obj.program_fd(name);
  if (fd < 0) return "run_program: program '" + name + "' is not loaded";
  LIBBPF_OPTS(bpf_test_run_opts, opts);
  if (bpf_prog_test_run_opts(fd, &opts) != 0)
    return "run_program '" + name + "': BPF_PROG_TEST_RUN failed: " + errno_text(errno);
  ran = true;
  const auto got = static_cast<int32_t>(opts.retval);
  check = SelfCheck{"run_program", static_cast<double>(expect), static_cast<double>(got),
                    got >= 0 && static_cast<uint64_t>(got) == expect, "program '" + name + "' return value"};
  if (check.ok) return "";
  std::string value = std::to_string(got);
  if (got < 0 && got > -4096) value += " (" + std::string(strerrorname_np(-got) ? strerrorname_np(-got) : "?") + ")";
  check.detail += ": returned " + value + ", expected " + std::to_string(expect);
  return "run_program '" + name + "' returned " + value + ", expected " + std::to_string(expect);
}

}  // namespace bpfbench
