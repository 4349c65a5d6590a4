// `bpfbench plot RESULTS.json [B.json] -o FILE.svg|png [--metric NAME]`: gnuplot, when it is installed.
#include <fmt/format.h>
#include <sys/stat.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstdio>
#include <cstdlib>
#include <sstream>

#include "cli/results_cmds.hpp"
#include "util/atomic_file.hpp"
#include "util/escape.hpp"
#include "util/process_owner.hpp"
#include "results/plot.hpp"
#include "results/plot_hist.hpp"

namespace bpfbench::cli {

namespace {

// The sweep charts, then the latency histograms' own (alone with --metric latency_hist).
std::vector<PlotChart> all_charts(const std::vector<const ResultSet *> &sets, const std::vector<std::string> &names,
                                  const std::string &metric) {
  std::vector<PlotChart> charts;
  if (metric != kLatencyHistMetric) charts = plot_charts(sets, names, metric);
  if (metric.empty() || metric == kLatencyHistMetric)
    for (auto &c : latency_charts(sets, names)) charts.push_back(std::move(c));
  return charts;
}

// gnuplot is optional: find it on $PATH instead of failing at exec time.
std::string find_gnuplot() {
  const char *path = std::getenv("PATH");
  std::stringstream ss(path ? path : "/usr/bin:/bin");
  std::string dir;
  while (std::getline(ss, dir, ':')) {
    std::string cand = (dir.empty() ? "." : dir) + "/gnuplot";
    if (::access(cand.c_str(), X_OK) == 0) return cand;
  }
  return "";
}

bool ends_with(const std::string &s, const std::string &suffix) {
  return s.size() >= suffix.size() && s.compare(s.size() - suffix.size(), suffix.size(), suffix) == 0;
}

// Runs gnuplot on `script`; its wait status, or -1 when it could not be forked.
int run_gnuplot(const std::string &gnuplot, const std::string &script) {
  const pid_t parent = ::getpid();
  pid_t pid = ::fork();
  if (pid < 0) return -1;
  if (pid == 0) {
    die_with_parent(parent);  // a killed bpfbench leaves no gnuplot behind
    ::execl(gnuplot.c_str(), "gnuplot", script.c_str(), static_cast<char *>(nullptr));
    ::_exit(127);
  }
  int status = 0;
  while (::waitpid(pid, &status, 0) < 0 && errno == EINTR) {}
  return status;
}

}  // namespace

int cmd_plot(const PlotArgs &a) {
  if (!ends_with(a.output, ".svg") && !ends_with(a.output, ".png")) {
    fmt::print(stderr, "bpfbench: error: plot output must end in .svg or .png: {}\n", a.output);
    return kExitBadInput;
  }
  // The name reaches gnuplot as a '…' string without control characters: one that holds
  // some would be written under another name than the one renamed afterwards.
  if (printable_text(a.output) != a.output) {
    fmt::print(stderr, "bpfbench: error: plot output name has control characters or invalid UTF-8: {}\n",
               printable_text(a.output));
    return kExitBadInput;
  }
  if (std::string why = check_output_paths({{"-o", a.output}}, a.inputs); !why.empty()) {
    fmt::print(stderr, "bpfbench: error: {}\n", why);
    return kExitBadInput;
  }
  std::vector<ResultSet> sets;
  for (const auto &in : a.inputs) {
    std::string err;
    auto rs = load_results(in, err);
    if (!rs) {
      fmt::print(stderr, "bpfbench: error: {}\n", err);
      return kExitBadInput;
    }
    sets.push_back(std::move(*rs));
  }
  std::vector<const ResultSet *> ptrs;
  for (const auto &s : sets) ptrs.push_back(&s);
  if (!a.metric.empty()) {
    std::vector<std::string> names = plot_metric_names(ptrs);
    if (has_latency_hist(ptrs)) names.push_back(kLatencyHistMetric);
    if (std::find(names.begin(), names.end(), a.metric) == names.end()) {
      fmt::print(stderr, "bpfbench: error: unknown metric '{}' for --metric (the results have: {})\n",
                 printable_text(a.metric),
                 names.empty() ? "no metrics" : printable_text(fmt::format("{}", fmt::join(names, ", "))));
      return kExitBadInput;
    }
  }
  std::string gnuplot = find_gnuplot();
  if (gnuplot.empty()) {
    fmt::print(stderr, "bpfbench: error: plotting needs gnuplot, which is not installed "
                       "(Debian/Ubuntu: apt-get install gnuplot-nox)\n");
    return kExitBadInput;
  }
  std::vector<std::string> names = sets.size() > 1 ? std::vector<std::string>{"A", "B"} : std::vector<std::string>{""};
  std::vector<PlotChart> charts = all_charts(ptrs, names, a.metric);
  if (charts.empty()) {
    fmt::print(stderr, "bpfbench: error: nothing to plot (no point with numbers)\n");
    return kExitBadInput;
  }
  // gnuplot writes into a temporary file beside the target; the rename makes the plot
  // appear whole. Both temporary files are removed on every way out (TempOutput).
  TempOutput plot(a.output, ends_with(a.output, ".png") ? ".png" : ".svg");
  TempOutput script(a.output + ".gp");
  std::string why = !plot.error().empty() ? plot.error() : script.error();
  if (why.empty()) why = script.write(gnuplot_script(charts, plot.path()));
  if (!why.empty()) {
    fmt::print(stderr, "bpfbench: error: {}\n", why);
    return kExitBadInput;
  }
  int status = run_gnuplot(gnuplot, script.path());
  if (status < 0 || !WIFEXITED(status) || WEXITSTATUS(status) != 0) {
    fmt::print(stderr, "bpfbench: error: gnuplot failed (status {})\n", status);
    return kExitBadInput;
  }
  if (std::string err = plot.commit(); !err.empty()) {
    fmt::print(stderr, "bpfbench: error: {}\n", err);
    return kExitBadInput;
  }
  fmt::print("wrote {} ({} chart{})\n", a.output, charts.size(), charts.size() == 1 ? "" : "s");
  return kExitOk;
}

}  // namespace bpfbench::cli
