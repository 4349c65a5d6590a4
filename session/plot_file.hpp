// `bpfbench plot`: one or two results files drawn by gnuplot into one .svg or .png.
#pragma once

#include <cstddef>
#include <string>
#include <vector>

#include "util/error.hpp"

namespace bpfbench {

struct PlotRequest {
  std::vector<std::string> inputs;  // one, or two to overlay (A, B)
  std::string output;               // ends in .svg or .png
  std::string metric;               // "" = one chart per reported metric
};

// The number of charts written to `output`, or why none were: a bad output name, an
// unreadable results file, a metric the results do not have, nothing to plot, no gnuplot
// installed, gnuplot failed. The file appears whole or not at all.
Result<size_t> write_plot(const PlotRequest &r);

}  // namespace bpfbench
