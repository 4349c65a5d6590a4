#include "runtime/prog_facts.hpp"

#include <bpf/bpf.h>
#include <bpf/libbpf.h>
#include <linux/bpf.h>

#include <cerrno>
#include <cstring>

namespace bpfbench {

void VerifierStatsLog::arm(BpfObject &obj, const std::vector<std::string> &functions) {
  for (const auto &f : functions) {
    bpf_program *prog = obj.program(f);
    if (!prog || bufs_.count(f)) continue;
    auto buf = std::make_unique<char[]>(kLogSize);
    buf[0] = '\0';
    // BPF_LOG_STATS: only the "processed N insns ..." and "verification time" lines.
    if (bpf_program__set_log_level(prog, 4) != 0 || bpf_program__set_log_buf(prog, buf.get(), kLogSize) != 0) continue;
    bufs_.emplace(f, std::move(buf));
  }
}

std::string VerifierStatsLog::log(const std::string &function) const {
  auto it = bufs_.find(function);
  if (it == bufs_.end()) return "";
  return std::string(it->second.get(), strnlen(it->second.get(), kLogSize));
}

Result<ProgFacts> read_prog_facts(int prog_fd, const std::string &name, const std::string &verifier_log) {
  bpf_prog_info info{};
  __u32 len = sizeof(info);
  if (bpf_obj_get_info_by_fd(prog_fd, &info, &len) != 0)
    return Error("bpf_obj_get_info_by_fd of '" + name + "' failed: " + errno_text(errno));
  ProgFacts f;
  f.name = name;
  f.id = info.id;
  f.verified_insns = info.verified_insns;
  f.xlated_len = info.xlated_prog_len;
  f.jited_len = info.jited_prog_len;
  parse_verifier_stats(verifier_log, f);
  return f;
}

}  // namespace bpfbench
