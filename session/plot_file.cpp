#include "session/plot_file.hpp"

#include <fmt/format.h>
#include <sys/wait.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstdlib>
#include <sstream>

#include "util/atomic_file.hpp"
#include "util/escape.hpp"
#include "util/process_owner.hpp"
#include "results/plot.hpp"
#include "results/plot_hist.hpp"
#include "results/results.hpp"

namespace bpfbench {
namespace {

Result<void> check_output(const PlotRequest &r) {
  if (!r.output.ends_with(".svg") && !r.output.ends_with(".png"))
    return Error(fmt::format("plot output must end in .svg or .png: {}", r.output));
  // The name reaches gnuplot as a '…' string without control characters: one that holds
  // some would be written under another name than the one renamed afterwards.
  if (printable_text(r.output) != r.output)
    return Error(fmt::format("plot output name has control characters or invalid UTF-8: {}", printable_text(r.output)));
  return check_output_paths({{"-o", r.output}}, r.inputs);
}

Result<std::vector<ResultSet>> load_sets(const std::vector<std::string> &inputs) {
  std::vector<ResultSet> sets;
  for (const auto &in : inputs) {
    auto rs = load_results(in);
    if (!rs) return rs.error();
    sets.push_back(std::move(*rs));
  }
  return sets;
}

Result<void> check_metric(const std::vector<const ResultSet *> &sets, const std::string &metric) {
  if (metric.empty()) return {};
  std::vector<std::string> names = plot_metric_names(sets);
  if (has_latency_hist(sets)) names.push_back(kLatencyHistMetric);
  if (std::find(names.begin(), names.end(), metric) != names.end()) return {};
  return Error(fmt::format("unknown metric '{}' for --metric (the results have: {})", printable_text(metric),
                           names.empty() ? "no metrics" : printable_text(fmt::format("{}", fmt::join(names, ", ")))));
}

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

// gnuplot writes into a temporary file beside the target; the rename makes the plot
// appear whole. Both temporary files are removed on every way out (TempOutput).
Result<void> render(const std::string &gnuplot, const std::vector<PlotChart> &charts, const std::string &output) {
  TempOutput plot(output, output.ends_with(".png") ? ".png" : ".svg");
  TempOutput script(output + ".gp");
  if (std::string why = !plot.error().empty() ? plot.error() : script.error(); !why.empty()) return Error(why);
  BB_TRY(script.write(gnuplot_script(charts, plot.path())));
  int status = run_gnuplot(gnuplot, script.path());
  if (status < 0 || !WIFEXITED(status) || WEXITSTATUS(status) != 0)
    return Error(fmt::format("gnuplot failed (status {})", status));
  return plot.commit();
}

}  // namespace

Result<size_t> write_plot(const PlotRequest &r) {
  if (auto ok = check_output(r); !ok) return ok.error();
  auto sets = load_sets(r.inputs);
  if (!sets) return sets.error();
  std::vector<const ResultSet *> ptrs;
  for (const auto &s : *sets) ptrs.push_back(&s);
  if (auto ok = check_metric(ptrs, r.metric); !ok) return ok.error();
  std::string gnuplot = find_gnuplot();
  if (gnuplot.empty())
    return Error("plotting needs gnuplot, which is not installed (Debian/Ubuntu: apt-get install gnuplot-nox)");
  std::vector<std::string> names = sets->size() > 1 ? std::vector<std::string>{"A", "B"} : std::vector<std::string>{""};
  std::vector<PlotChart> charts = all_charts(ptrs, names, r.metric);
  if (charts.empty()) return Error("nothing to plot (no point with numbers)");
  if (auto ok = render(gnuplot, charts, r.output); !ok) return ok.error();
  return charts.size();
}

}  // namespace bpfbench
