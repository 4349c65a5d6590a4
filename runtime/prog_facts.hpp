// Verifier and JIT facts of loaded programs: bpf_prog_info sizes and verified_insns, and
// the verifier's stats line (peak states, verification time) from a log_level 4 log.
#pragma once

#include <map>
#include <memory>
#include <string>
#include <vector>

#include "util/error.hpp"
#include "results/prog_info.hpp"
#include "runtime/bpf_object.hpp"

namespace bpfbench {

// Per-program log buffers for the verifier's stats only (log_level 4: a few lines, so a
// fixed buffer is enough and the load costs nothing extra). Armed before load; the
// buffers must outlive it. A load that fails with them armed has only the stats in its
// log, not the verifier's complaint: the caller loads again unarmed (runtime/point_load.cpp).
class VerifierStatsLog {
 public:
  // Sets log level 4 and a buffer on each of `functions` present in `obj`.
  void arm(BpfObject &obj, const std::vector<std::string> &functions);
  // The log the verifier wrote for `function` ("" when not armed).
  std::string log(const std::string &function) const;
  bool armed() const { return !bufs_.empty(); }

 private:
  static constexpr size_t kLogSize = 16 * 1024;
  std::map<std::string, std::unique_ptr<char[]>> bufs_;
};

// bpf_prog_info of a loaded program (id, verified_insns, xlated and JITed sizes) and, when
// `verifier_log` holds the stats line, peak/total states and the verification time.
Result<ProgFacts> read_prog_facts(int prog_fd, const std::string &name, const std::string &verifier_log);

}  // namespace bpfbench
