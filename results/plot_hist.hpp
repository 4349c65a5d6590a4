// Latency histogram charts for `bpfbench plot` (--metric latency_hist, or with every
// chart): one per point that kept a histogram, the share of timed operations per log2
// bucket, a series per results file. Drawn by gnuplot_script like the sweep charts.
#pragma once

#include <string>
#include <vector>

#include "results/plot.hpp"

namespace bpfbench {

inline constexpr const char *kLatencyHistMetric = "latency_hist";

std::vector<PlotChart> latency_charts(const std::vector<const ResultSet *> &sets,
                                      const std::vector<std::string> &set_names);
// Whether any non-baseline point of the sets has a histogram.
bool has_latency_hist(const std::vector<const ResultSet *> &sets);

}  // namespace bpfbench
