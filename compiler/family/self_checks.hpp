// Run-time self-checks (family.json `self_checks`): read and checked once with the manifest,
// resolved per point to the sources the runtime counts (runtime/self_checks.hpp compares).
#pragma once

#include <string>
#include <vector>

#include <nlohmann/json_fwd.hpp>

#include "compiler/family/manifest.hpp"
#include "compiler/family/manifest_fields.hpp"
#include "compiler/bdsl/plan.hpp"

namespace bpfbench {

// Reads `self_checks` of `root` into f.self_checks, after the programs, metrics and hooks
// (a check names them); problems become diagnostics at their place in the manifest.
void read_self_checks(ManifestFields &mf, const nlohmann::json &root, FamilyManifest &f);

// A check as one point runs it: each term is the source it counts for the point's program.
struct ResolvedSelfCheck {
  const SelfCheckSpec *spec = nullptr;
  std::vector<MetricSource> expected, observed;
};

// The source a term counts for `prog` (a metric's: the program's override, else the family's).
MetricSource term_source(const SelfCheckTerm &t, const FamilyManifest &f, const ProgramSpec &prog);

// The checks that apply to point `p` of program `prog`: those that list the program (or
// list none), unless the point's inline code fills one of their `unless_code` hooks, and
// unless both sides count the same sources (a count compared with itself says nothing:
// trigger/base reports its producer as hits).
std::vector<ResolvedSelfCheck> self_checks_for(const FamilyManifest &f, const ProgramSpec &prog, const PlanPoint &p);

}  // namespace bpfbench
