// Results as tables for other tools: CSV (one row per point and metric) and Markdown.
#pragma once

#include <string>

#include "results/results.hpp"

namespace bpfbench {

// Columns: suite,label,family,program,params,status,metric,unit,n,mean,stddev,median,min,
// max,cv,ci95,ci95_rel,outliers,reason. Skipped/failed points get one row with no metric.
std::string results_to_csv(const ResultSet &rs);

// A header with the environment, then per suite a table of each point's primary metric:
// mean ± 95% CI, CV, samples, notes (adaptive outcome, warnings, skip/failure reasons).
std::string results_to_markdown(const ResultSet &rs);

// "k=v k2=v2" from a params object (strings unquoted).
std::string params_text(const nlohmann::json &params);

}  // namespace bpfbench
