// Sweep charts from result files, as a gnuplot script (bpfbench plot runs gnuplot on it).
#pragma once

#include <string>
#include <vector>

#include "results/results.hpp"

namespace bpfbench {

struct PlotSeries {
  std::string title;                 // the variant ("prog=tp"), plus " (A)"/" (B)" when overlaying
  std::vector<std::string> xlabels;  // categorical charts: one per point
  std::vector<double> x, y, err;     // err = 95% CI half-width
};

struct PlotChart {
  std::string title, xlabel, ylabel;
  bool categorical = false;  // x is point order with labels (no numeric swept param)
  bool logx = false;         // geometric sweeps
  std::vector<PlotSeries> series;
};

// One chart per suite (per family outside suites) over the sets' ok points: x = the
// numeric param that varies most, one series per combination of the other varying params
// (and per result set when several are given); y = the primary metric.
std::vector<PlotChart> plot_charts(const std::vector<const ResultSet *> &sets,
                                   const std::vector<std::string> &set_names);

// A gnuplot script that draws every chart into `output` (.svg or .png, by extension).
std::string gnuplot_script(const std::vector<PlotChart> &charts, const std::string &output);

}  // namespace bpfbench
