#include "cli/suite_tables.hpp"

#include <fmt/format.h>

#include <algorithm>

namespace bpfbench::cli {

SuiteTables::SuiteTables(const std::vector<const PlanPoint *> &points) {
  for (const PlanPoint *p : points) {
    if (!members_.count(p->suite)) suites_.push_back(p->suite);
    members_[p->suite].push_back(p->index);
  }
}

void SuiteTables::add(const PlanPoint &p, std::string row) {
  rows_[p.index] = std::move(row);
  const auto &m = members_[p.suite];
  if (std::all_of(m.begin(), m.end(), [&](size_t i) { return rows_.count(i) > 0; })) print(p.suite);
}

void SuiteTables::flush() {
  for (const auto &s : suites_) print(s);
}

void SuiteTables::print(const std::string &suite) {
  if (suite.empty() || !printed_.insert(suite).second) return;
  std::vector<std::string> lines;
  for (size_t i : members_[suite])
    if (auto it = rows_.find(i); it != rows_.end() && !it->second.empty()) lines.push_back(it->second);
  if (lines.empty()) return;
  fmt::print("\n==== {} ====\n", suite);
  for (const auto &l : lines) fmt::print("{}\n", l);
  fmt::print("\n");
}

}  // namespace bpfbench::cli
