// `bpfbench plan`: the RunPlan as text and as JSON.
#pragma once

#include <functional>
#include <nlohmann/json.hpp>
#include <string>

#include "compiler/bdsl/plan.hpp"
#include "compiler/bdsl/source.hpp"
#include "compiler/family/units.hpp"  // format_duration_ns

namespace bpfbench {

// Where the streaming writers put their text, piece by piece (stdout, a string).
using PlanSink = std::function<void(const std::string &)>;

// What a caller adds per point (`plan --facts`: the loaded programs' facts): members of
// the point's JSON object, text after the point's line ("" for none).
struct PlanExtras {
  std::function<void(const PlanPoint &, nlohmann::json &)> json;
  std::function<std::string(const PlanPoint &)> text;
};

std::string plan_to_text(const RunPlan &plan);
// plan_to_text / plan_to_json(...).dump(2) byte for byte, written point by point, so a
// plan of a million points needs no second copy of itself as text or as a JSON tree.
void write_plan_text(const RunPlan &plan, const PlanSink &out, const PlanExtras &extras = {});
void write_plan_json(const RunPlan &plan, const SourceManager &sm, const PlanSink &out, const PlanExtras &extras = {});
nlohmann::json plan_to_json(const RunPlan &plan, const SourceManager &sm);
// Which point this is, as the plan and results files both name it: index, label, suite,
// family, program, params (numbers and words) and is_baseline (only when true). The
// callers add their own members (nlohmann::json keeps an object's keys sorted, so where
// they are added does not change the text).
nlohmann::json point_identity_json(const PlanPoint &p);
nlohmann::json point_to_json(const PlanPoint &p, const SourceManager &sm);
// One line naming a point: its index in the file's plan (`file_index`, as `bpfbench plan
// FILE` and `emit --point` number it) and label, its bench (index, family, where it is
// written) and the values that decide its program: `point 3 'btf-4' of bench 1 task_fields
// (t.bdsl:4:1): prog=btf fields=4`. Labels and values printable (a label may hold any text).
std::string point_title(const PlanPoint &p, const SourceManager &sm);

}  // namespace bpfbench
