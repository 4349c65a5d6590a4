// `bpfbench plot RESULTS.json [B.json] -o FILE.svg|png [--metric NAME]`: gnuplot, when it is installed.
#include <fmt/format.h>

#include <cstdio>

#include "cli/results_cmds.hpp"
#include "session/plot_file.hpp"

namespace bpfbench::cli {

int cmd_plot(const PlotArgs &a) {
  Result<size_t> charts = write_plot({a.inputs, a.output, a.metric});
  if (!charts) {
    fmt::print(stderr, "bpfbench: error: {}\n", charts.error().message);
    return kExitBadInput;
  }
  fmt::print("wrote {} ({} chart{})\n", a.output, *charts, *charts == 1 ? "" : "s");
  return kExitOk;
}

}  // namespace bpfbench::cli
