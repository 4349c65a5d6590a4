#include "runtime/setup_program.hpp"

#include <bpf/bpf.h>
#include <bpf/libbpf.h>

#include <cerrno>
#include <cstring>

#include "runtime/packet_builder.hpp"

namespace bpfbench {
namespace {

// Room for what a program may add in front (XDP headroom is 256 bytes) and behind.
constexpr size_t kOutputSlack = 512;

std::string value_text(int32_t got) {
  std::string value = std::to_string(got);
  if (got < 0 && got > -4096) value += " (" + std::string(strerrorname_np(-got) ? strerrorname_np(-got) : "?") + ")";
  return value;
}

}  // namespace

Result<void> prepare_setup_program(const SetupActionSpec &a, const BpfObject &obj) {
  const std::string &name = a.args.at("program");
  bpf_program *prog = obj.program(name);
  const std::string what = kind_name(a.action);
  if (!prog) return Error(what + ": no program '" + name + "' in the object");
  if (bpf_program__set_autoload(prog, true) != 0) return Error(what + ": cannot load program '" + name + "'");
  return {};
}

Result<> run_setup_program(const SetupActionSpec &a, BpfObject &obj, const SetupRun &run,
                           std::vector<SelfCheck> &checks) {
  const std::string &name = a.args.at("program");
  int fd = obj.program_fd(name);
  if (fd < 0) return Error("run_program: program '" + name + "' is not loaded");
  std::vector<uint8_t> in = run.data_in, out(run.data_in.empty() ? 0 : run.data_in.size() + kOutputSlack);
  LIBBPF_OPTS(bpf_test_run_opts, opts);
  if (!in.empty()) {
    opts.data_in = in.data();
    opts.data_size_in = static_cast<uint32_t>(in.size());
    opts.data_out = out.data();
    opts.data_size_out = static_cast<uint32_t>(out.size());
  }
  if (bpf_prog_test_run_opts(fd, &opts) != 0)
    return Error("run_program '" + name + "': BPF_PROG_TEST_RUN failed: " + errno_text(errno));
  const auto got = static_cast<int32_t>(opts.retval);
  SelfCheck value{"run_program", static_cast<double>(run.expect), static_cast<double>(got),
                  got >= 0 && static_cast<uint64_t>(got) == run.expect, "program '" + name + "' return value"};
  if (!value.ok) value.detail += ": returned " + value_text(got) + ", expected " + std::to_string(run.expect);
  checks.push_back(value);
  if (!value.ok)
    return Error("run_program '" + name + "' returned " + value_text(got) + ", expected " + std::to_string(run.expect));
  if (!run.expected_out) return {};
  out.resize(opts.data_size_out);
  const std::string diff = packet_diff(out, *run.expected_out);
  checks.push_back(SelfCheck{"run_program_output", static_cast<double>(run.expected_out->size()),
                             static_cast<double>(out.size()), diff.empty(),
                             "program '" + name + "' output packet" + (diff.empty() ? "" : ": " + diff)});
  if (!diff.empty())
    return Error("run_program '" + name + "': the output packet differs from the expected one: " + diff);
  return {};
}

}  // namespace bpfbench
