#include "runtime/prog_dump.hpp"

#include <bpf/bpf.h>
#include <linux/bpf.h>
#include <unistd.h>

#include <fmt/format.h>

#include "util/limited_child.hpp"
#include "runtime/bpf_object.hpp"
#include "runtime/prog_facts.hpp"
#include "runtime/prog_stats.hpp"
#include "runtime/run_point.hpp"

namespace bpfbench {

namespace {

// bpftool's output or why there is none.
Result<std::string> run_bpftool(const std::string &bpftool, const std::string &kind, uint32_t id) {
  if (access(bpftool.c_str(), X_OK) != 0) return Error("cannot run " + bpftool + ": " + errno_text(errno));
  const std::string ids = std::to_string(id);
  auto body = [&](int fd) {
    dup2(fd, STDOUT_FILENO);
    dup2(fd, STDERR_FILENO);
    execl(bpftool.c_str(), "bpftool", "prog", "dump", kind.c_str(), "id", ids.c_str(), static_cast<char *>(nullptr));
    _exit(127);
  };
  ChildLimits limits;
  limits.memory_bytes = 512ull << 20;
  limits.cpu_seconds = 20;
  limits.wall_seconds = 30;
  ChildEnd end = run_limited_child(body, limits, nullptr, 64u << 20);
  if (end.how == ChildEnd::How::Exited && end.code == 0) return end.output;
  std::string why = end.how == ChildEnd::How::Exited       ? "exit code " + std::to_string(end.code)
                    : end.how == ChildEnd::How::NotStarted ? end.error
                                                           : "killed";
  return Error("bpftool prog dump " + kind + " id " + ids + " failed (" + why + ")" +
               (end.output.empty() ? "" : ": " + end.output.substr(0, end.output.find('\n'))));
}

// The JITed bytes from bpf_prog_info, 16 a line with their offset: what a bpftool built
// without a disassembler (Debian's: "No libbfd support") cannot show.
Result<std::string> jited_bytes(int prog_fd) {
  bpf_prog_info info{};
  __u32 len = sizeof(info);
  if (bpf_obj_get_info_by_fd(prog_fd, &info, &len) != 0) return Error("bpf_obj_get_info_by_fd: " + errno_text(errno));
  std::vector<unsigned char> code(info.jited_prog_len);
  bpf_prog_info again{};
  again.jited_prog_len = info.jited_prog_len;
  again.jited_prog_insns = reinterpret_cast<__u64>(code.data());
  len = sizeof(again);
  if (bpf_obj_get_info_by_fd(prog_fd, &again, &len) != 0) return Error("bpf_obj_get_info_by_fd: " + errno_text(errno));
  std::string out;
  for (size_t i = 0; i < code.size(); i += 16) {
    out += fmt::format("{:6x}:", i);
    for (size_t k = i; k < std::min(code.size(), i + 16); ++k) out += fmt::format(" {:02x}", code[k]);
    out += "\n";
  }
  return out;
}

}  // namespace

Result<std::string> dump_loaded_program(const PlanPoint &p, const FamilyManifest &f, const std::vector<uint8_t> &object,
                                        const std::string &kind, const std::string &bpftool) {
  const ProgramSpec *prog = f.program(p.program.empty() ? f.default_program : p.program);
  if (!prog) return Error("family '" + f.name + "' has no program '" + p.program + "'");
  const std::vector<std::string> functions = loaded_functions(*prog);
  const std::string shown = prog->function.empty() ? test_run_driver(f, *prog) : prog->function;
  if (shown.empty() || object.empty()) return Error("point '" + p.label + "' loads no BPF program");
  BpfObject obj;
  BB_TRY(obj.open(object, object_name_for(f)));
  BB_TRY(configure_object(obj, p, f, functions));
  BB_TRY(obj.load());
  auto counters = read_prog_counters(obj.program_fd(shown));
  if (!counters) return counters.error();
  auto out = run_bpftool(bpftool, kind, counters->id);
  const std::string head = "// " + shown + " (id " + std::to_string(counters->id) + "), ";
  if (!out && kind == "jited" && out.error().message.find("No libbfd support") != std::string::npos) {
    auto bytes = jited_bytes(obj.program_fd(shown));
    if (!bytes) return bytes.error();
    return head + "JITed bytes (" + bpftool + " has no disassembler: No libbfd support)\n" + *bytes;
  }
  if (!out) return out.error();
  return "// " + shown + " (id " + std::to_string(counters->id) + "), bpftool prog dump " + kind + "\n" + *out;
}

Result<std::vector<ProgFacts>> load_prog_facts(const PlanPoint &p, const FamilyManifest &f,
                                               const std::vector<uint8_t> &object) {
  const ProgramSpec *prog = f.program(p.program.empty() ? f.default_program : p.program);
  if (!prog) return Error("family '" + f.name + "' has no program '" + p.program + "'");
  const std::vector<std::string> functions = loaded_functions(*prog);
  std::vector<ProgFacts> facts;
  if (functions.empty() || object.empty()) return facts;
  BpfObject obj;
  VerifierStatsLog vlog;  // outlives the load
  auto load = [&](bool stats_log) -> Result<> {
    BB_TRY(obj.open(object, object_name_for(f)));
    BB_TRY(configure_object(obj, p, f, functions));
    if (stats_log) vlog.arm(obj, functions);
    return obj.load();
  };
  if (Result<> loaded = load(true); !loaded) {
    if (!loaded.error().bpf || loaded.error().bpf->phase != BpfPhase::Load) return loaded.error();
    obj.reset();
    vlog = VerifierStatsLog{};
    BB_TRY(load(false));
  }
  for (const auto &fn : functions) {
    const int fd = obj.program_fd(fn);
    if (fd < 0) continue;
    auto one = read_prog_facts(fd, fn, vlog.log(fn));
    if (!one) return one.error();
    facts.push_back(*one);
  }
  return facts;
}

}  // namespace bpfbench
