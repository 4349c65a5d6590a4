// Metric specs for tests that summarize samples without a manifest.
#pragma once

#include <string>

#include "compiler/manifest.hpp"

namespace bpfbench::test {

inline MetricSource source(MetricSourceKind kind, std::string operand = "", std::string denominator = "") {
  MetricSource s;
  s.kind = kind;
  s.operand = std::move(operand);
  s.denominator = std::move(denominator);
  return s;
}

// The rules (reported, better, throughput, total_ops) keep their defaults.
inline MetricSpec metric(std::string name, MetricSource src, std::string unit = "M/s") {
  MetricSpec m;
  m.name = std::move(name);
  m.source = std::move(src);
  m.unit = std::move(unit);
  return m;
}

inline MetricSpec counter_metric(std::string name, std::string var, std::string unit = "M/s") {
  return metric(std::move(name), source(MetricSourceKind::Counter, std::move(var)), std::move(unit));
}

}  // namespace bpfbench::test
