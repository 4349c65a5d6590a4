// Metric specs for tests that summarize samples without a manifest.
#pragma once

#include <cstdint>
#include <random>
#include <string>

#include "compiler/family/manifest.hpp"
#include "results/point_result.hpp"

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

// Ten one-second samples of hits around `mean` M/s with relative noise `rel_sd`, summarized.
inline PointResult synthetic_hits(double mean, double rel_sd, unsigned seed) {
  std::mt19937 rng(seed);
  std::normal_distribution<double> d(mean, mean * rel_sd);
  PointResult r;
  r.report = {"hits"};
  for (size_t i = 0; i < 10; ++i) {
    Sample s;
    s.duration_s = 1.0;
    s.deltas["hits"] = static_cast<uint64_t>(d(rng) * 1e6);
    r.samples.push_back(s);
  }
  r.summary = summarize(r.samples, {counter_metric("hits", "hits", "events")}, 1, r.report);
  return r;
}

}  // namespace bpfbench::test
