// Results as tables for other tools: CSV (one row per point and metric) and Markdown.
#pragma once

#include <string>

#include "results/results.hpp"

namespace bpfbench {

// Columns: suite,label,family,program,params,status,metric,unit,n,mean,stddev,median,min,
// max,cv,ci95,ci95_rel,outlier_samples,reason. One row per metric of the point's stats, the
// reported ones first in report order (a baseline's `_adj` right after its metric);
// outlier_samples are sample indices from 0. Skipped/failed points get one row with no metric.
std::string results_to_csv(const ResultSet &rs);

// A header with the environment, then per suite a table with a row per reported metric of
// each point: mean ± 95% CI, CV, samples, notes. The first row of a point holds its notes
// (status, adaptive outcome, baseline, warnings); every row says its outliers in words
// ("outlier samples: #0, #3 (of #0–#9)", "outliers: none").
std::string results_to_markdown(const ResultSet &rs);

// "k=v k2=v2" from a params object (strings unquoted).
std::string params_text(const nlohmann::json &params);

}  // namespace bpfbench
