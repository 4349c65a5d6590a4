// The RunPlan: every sweep point fully resolved, in file order. Input of emit and the runtime.
#pragma once

#include <cstdint>
#include <string>
#include <utility>
#include <vector>

#include "compiler/manifest.hpp"
#include "compiler/source.hpp"

namespace bpfbench {

struct PlanPoint {
  size_t index = 0;          // position in the plan
  size_t bench_index = 0;    // which `bench` statement (file order)
  std::string suite;         // suite title, "" outside a suite
  std::string family;
  std::string label;         // interpolated label, unique within the plan
  std::string program;       // the selected ProgramSpec name
  // Every family param in manifest order, with the value for this point.
  std::vector<std::pair<std::string, ParamValue>> params;
  // Parallel to params: where each value was written in the .bdsl (invalid = default).
  std::vector<SourceRange> param_ranges;

  int64_t warmup_ns = 0;
  int64_t duration_ns = 0;
  int producers = 1;
  int consumers = 1;
  bool affinity = false;
  std::string prod_cpus;  // cpuset text ("0-3,8"), "" = any
  std::string cons_cpus;
  std::vector<std::string> report;  // metrics to print

  SourceRange bench_range;  // the bench statement, for runtime errors

  const ParamValue *param(const std::string &name) const;
};

struct RunPlan {
  std::string file;  // the main .bdsl path
  std::vector<PlanPoint> points;
};

}  // namespace bpfbench
