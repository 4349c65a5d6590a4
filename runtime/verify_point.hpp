// `check --verify`, and `run` / `ab` before their first measurement: each point's programs
// loaded into the verifier as run_point loads them (its .rodata, map sizes, autoload and
// setup programs), nothing attached and no setup action run, then unloaded. A refusal
// costs the seconds of the loads, not the minutes of the points measured before it.
#pragma once

#include <cstdint>
#include <map>
#include <string>
#include <vector>

#include "compiler/family/manifest.hpp"
#include "compiler/bdsl/plan.hpp"
#include "runtime/probe.hpp"
#include "runtime/verifier_log.hpp"

namespace bpfbench {

struct PointCheck {
  enum class Status {
    Verified,    // every program loaded
    NoPrograms,  // the point loads none (trigger's base)
    Skipped,     // a kernel feature it requires is missing here: `run` skips it too
    Refused,     // a program or a map could not be loaded
  };
  Status status = Status::Verified;
  std::string reason;           // Skipped: the feature and why; Refused: one line (BpfError::summary)
  std::string program;          // Refused by the verifier: the program's C function
  std::string log;              // Refused by the verifier: its whole log ("" for other refusals)
  VerifierComplaint complaint;  // read from `log`
  // Not loaded again: the same object with the same settings as the point `same_as`.
  std::optional<size_t> same_as;

  bool by_verifier() const { return status == Status::Refused && !log.empty(); }
};

// Loads points one at a time; a point whose object and load settings (its .rodata and
// map-size params, producers, program) equal an earlier one's gets that one's answer.
class PointVerifier {
 public:
  explicit PointVerifier(FeatureProber &prober) : prober_(prober) {}

  // `id` names the point among all those verified (plan index, or an ab side's offset).
  PointCheck check(size_t id, const PlanPoint &p, const FamilyManifest &f, const std::vector<uint8_t> &object);

 private:
  FeatureProber &prober_;
  std::map<std::string, std::pair<size_t, PointCheck>> done_;  // load key -> first point, its answer
};

// One point, loaded now (no dedup). Exposed for tests.
PointCheck verify_point(const PlanPoint &p, const FamilyManifest &f, const std::vector<uint8_t> &object,
                        FeatureProber &prober);

// Where a refusal is told: the point's place in its .bdsl ("file.bdsl:4:3"), its label, the
// ab side ("" for check and run), and the file the complaint's source line is in, as shown
// (a path when the caller could tell which of its files the kernel's base name meant).
struct RefusalPlace {
  std::string location;
  std::string label;
  std::string side;
  std::string source_file;
};

// The whole log kept (its path) or why not.
struct KeptLog {
  std::string path;
  std::string error;
};

// What `check --verify`, `run` and `ab` print for a refused point, escaped for a terminal:
//   LOC: error: bench 'LABEL'[ in B]: the verifier refused program 'F': ERROR LINE
//   SRC:LINE: note: at instruction INSN
//       SOURCE TEXT
//   note: the verifier's whole log (N lines): PATH         (or: was not kept: WHY)
// or, for a load that failed outside the verifier (a map too big), one line:
//   LOC: error: bench 'LABEL'[ in B] failed: REASON
std::string format_refusal(const RefusalPlace &where, const PointCheck &c, const KeptLog &log);

}  // namespace bpfbench
