// Between the two halves of reading a results file: results_stream.cpp parses the text in
// pieces and hands over each point as it completes; results_read.cpp checks the values.
#pragma once

#include <optional>
#include <set>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "results/results.hpp"

namespace bpfbench {

// The points of a file, checked one by one as they arrive (each point's JSON is dropped
// after), the first bad one's error, and the baselines the plan's points name.
struct StreamedPoints {
  std::vector<ResultPoint> points;
  std::string error_path, error_message;  // the first bad point's: "points[3].label", "missing"
  std::set<size_t> baselines;             // plan.points[i].index where is_baseline (older files)
  // points[i]; `nsamples`: its "samples" were counted, not kept.
  void add_point(const nlohmann::json &j, size_t i, std::optional<size_t> nsamples);
  void add_plan_point(const nlohmann::json &j);
};

// The rest of the file (`top`: its "points" and the plan's "points" left empty) with the
// points read before: the same checks, in the same order, as results_from_json.
Result<ResultSet> results_from_parts(const nlohmann::json &top, StreamedPoints &&points);

}  // namespace bpfbench
