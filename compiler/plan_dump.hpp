// `bpfbench plan`: the RunPlan as text and as JSON.
#pragma once

#include <nlohmann/json.hpp>
#include <string>

#include "compiler/plan.hpp"
#include "compiler/source.hpp"

namespace bpfbench {

std::string plan_to_text(const RunPlan &plan);
nlohmann::json plan_to_json(const RunPlan &plan, const SourceManager &sm);
nlohmann::json point_to_json(const PlanPoint &p, const SourceManager &sm);
std::string format_duration_ns(int64_t ns);  // "1s", "500ms", "1.5s"

}  // namespace bpfbench
