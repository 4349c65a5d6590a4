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
  bool nonnegative = true;   // every y >= 0: the y axis starts at 0
  std::vector<PlotSeries> series;
};

// Charts per suite (per family outside suites) over the sets' measured points, baseline
// points left out (their numbers are their main points' `_adj` metrics): one chart of
// `metric`, or with "" one per metric the points report. x = the numeric param that varies
// most; one series per combination of every other varying param, `prog` included
// ("prog=tp batch=10"), and per result set when several are given; y = the metric's mean
// with its 95% CI. Points without a value of the metric are not drawn.
std::vector<PlotChart> plot_charts(const std::vector<const ResultSet *> &sets,
                                   const std::vector<std::string> &set_names, const std::string &metric = "");

// Every metric a non-baseline point of the sets holds, sorted (for "unknown metric").
std::vector<std::string> plot_metric_names(const std::vector<const ResultSet *> &sets);

// A gnuplot script that draws every chart into `output` (.svg or .png, by extension).
std::string gnuplot_script(const std::vector<PlotChart> &charts, const std::string &output);

}  // namespace bpfbench
