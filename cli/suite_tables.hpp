// `bpfbench run`: each suite's table, like the kernel's run_bench_*.sh scripts print them.
#pragma once

#include <map>
#include <set>
#include <string>
#include <vector>

#include "compiler/bdsl/plan.hpp"

namespace bpfbench::cli {

// Prints a suite's table once every point of the suite has its final row.
class SuiteTables {
 public:
  explicit SuiteTables(const std::vector<const PlanPoint *> &points);
  // The point's final row ("" = none, e.g. a baseline).
  void add(const PlanPoint &p, std::string row);
  // At the end: the suites a stop left unfinished, with the rows they have.
  void flush();

 private:
  void print(const std::string &suite);

  std::vector<std::string> suites_;  // in plan order
  std::map<std::string, std::vector<size_t>> members_;
  std::map<size_t, std::string> rows_;
  std::set<std::string> printed_;
};

}  // namespace bpfbench::cli
