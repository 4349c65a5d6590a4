#include "runtime/prog_facts.hpp"

#include <bpf/bpf.h>
#include <bpf/libbpf.h>
#include <linux/bpf.h>

#include <cerrno>
#include <cstring>
#include <optional>
#include <vector>

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

namespace {

// The main function's JIT address (jited_ksyms[0]; subprograms follow) modulo 64; nullopt
// when there is none or the kernel shows 0 (addresses hidden from this process).
std::optional<uint32_t> jit_offset64(int prog_fd, uint32_t nr_ksyms) {
  if (nr_ksyms == 0) return std::nullopt;
  std::vector<__u64> addrs(nr_ksyms);
  bpf_prog_info info{};
  info.nr_jited_ksyms = nr_ksyms;
  info.jited_ksyms = reinterpret_cast<__u64>(addrs.data());
  __u32 len = sizeof(info);
  if (bpf_obj_get_info_by_fd(prog_fd, &info, &len) != 0 || addrs[0] == 0) return std::nullopt;
  return static_cast<uint32_t>(addrs[0] % 64);
}

}  // namespace

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
  f.jit_offset64 = jit_offset64(prog_fd, info.nr_jited_ksyms);
  parse_verifier_stats(verifier_log, f);
  return f;
}

}  // namespace bpfbench
