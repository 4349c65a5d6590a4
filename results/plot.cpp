#include "results/plot.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <map>
#include <optional>
#include <set>

#include "util/escape.hpp"
#include "results/report_tables.hpp"

namespace bpfbench {

namespace {

std::string value_text(const nlohmann::json &v) { return v.is_string() ? v.get<std::string>() : json_text(v); }

const MetricSummary *primary_metric(const ResultPoint &p) {
  if (const MetricSummary *m = p.metric(p.primary)) return m;
  if (!p.report.empty())
    if (const MetricSummary *m = p.metric(p.report.front())) return m;
  return p.metric("hits");
}

// The metric `name` of a point when it has a value (nothing to draw otherwise, not a 0).
const MetricSummary *value_of(const ResultPoint &p, const std::string &name) {
  const MetricSummary *m = p.metric(name);
  return m && m->has_value() ? m : nullptr;
}

struct Group {
  std::string title;
  std::vector<std::pair<size_t, const ResultPoint *>> points;  // (set index, point)
};

// Points that plot (measured, not a baseline: its numbers are in its main point's `_adj`
// columns), grouped by suite (else family), in order.
std::vector<Group> group_points(const std::vector<const ResultSet *> &sets) {
  std::vector<Group> groups;
  std::map<std::string, size_t> by_key;
  for (size_t si = 0; si < sets.size(); ++si)
    for (const auto &p : sets[si]->points) {
      if ((p.status != "ok" && p.status != "interrupted") || p.is_baseline) continue;
      std::string key = p.suite.empty() ? "family " + p.family : p.suite;
      auto [it, fresh] = by_key.emplace(key, groups.size());
      if (fresh) groups.push_back(Group{p.suite.empty() ? p.family : p.suite, {}});
      groups[it->second].points.emplace_back(si, &p);
    }
  return groups;
}

// The metrics a group charts: `metric` when given, else every metric its points report
// (the primary one for a point that reports none), in the order they first appear.
std::vector<std::string> chart_metrics(const Group &g, const std::string &metric) {
  if (!metric.empty()) return {metric};
  std::vector<std::string> out;
  for (const auto &[si, p] : g.points) {
    std::vector<std::string> names = p->report;
    if (names.empty())
      if (const MetricSummary *m = primary_metric(*p)) names.push_back(m->name);
    for (const auto &n : names)
      if (p->metric(n) && std::find(out.begin(), out.end(), n) == out.end()) out.push_back(n);
  }
  return out;
}

// What tells a group's points apart: the program (`prog`, which is not a family param)
// and every param.
std::vector<std::pair<std::string, nlohmann::json>> point_params(const ResultPoint &p) {
  std::vector<std::pair<std::string, nlohmann::json>> out;
  if (!p.params.contains("prog")) out.emplace_back("prog", p.program);
  for (const auto &[k, v] : p.params.items()) out.emplace_back(k, v);
  return out;
}

// A group's x axis: which params vary (their values), the numeric one with the most
// values as x (present in every point: a results file from elsewhere may lack it), and
// the params zipped with x (`sweep (batch, sample_rate) over L`), which move with it one
// to one and so name the x axis instead of splitting points into variants.
struct Axis {
  std::map<std::string, std::set<std::string>> values;
  std::string xparam;  // "" = categorical
  std::set<std::string> zipped;
};

Axis choose_axis(const Group &g) {
  Axis ax;
  std::map<std::string, bool> numeric;
  std::map<std::string, size_t> present;
  std::map<const ResultPoint *, std::map<std::string, std::string>> text;
  for (const auto &[si, p] : g.points)
    for (const auto &[k, v] : point_params(*p)) {
      ax.values[k].insert(text[p][k] = value_text(v));
      numeric.try_emplace(k, true);
      numeric[k] = numeric[k] && v.is_number();
      ++present[k];
    }
  for (const auto &[k, vs] : ax.values)
    if (vs.size() > 1 && numeric[k] && present[k] == g.points.size() &&
        (ax.xparam.empty() || vs.size() > ax.values[ax.xparam].size()))
      ax.xparam = k;
  if (ax.xparam.empty()) return ax;
  for (const auto &[k, vs] : ax.values) {
    if (k == ax.xparam || vs.size() != ax.values[ax.xparam].size()) continue;
    std::map<std::string, std::string> fwd, back;
    bool one_to_one = true;
    for (const auto &[si, p] : g.points) {
      const std::string &x = text[p][ax.xparam], &y = text[p][k];
      one_to_one &= fwd.emplace(x, y).first->second == y && back.emplace(y, x).first->second == x;
    }
    if (one_to_one) ax.zipped.insert(k);
  }
  return ax;
}

// Each series' points in x order.
void sort_series(PlotSeries &s) {
  std::vector<size_t> order(s.x.size());
  for (size_t i = 0; i < order.size(); ++i) order[i] = i;
  std::stable_sort(order.begin(), order.end(), [&](size_t a, size_t b) { return s.x[a] < s.x[b]; });
  PlotSeries sorted{s.title, {}, {}, {}, {}};
  for (size_t i : order) {
    sorted.xlabels.push_back(s.xlabels[i]);
    sorted.x.push_back(s.x[i]);
    sorted.y.push_back(s.y[i]);
    sorted.err.push_back(s.err[i]);
  }
  s = std::move(sorted);
}

// A point's series: every param that varies in the chart except x and the params zipped
// with it ("prog=tp batch=10"); per results file when there are two.
std::string series_title(const ResultPoint &p, const Axis &ax, const std::string &metric, size_t nsets,
                         const std::string &set_name) {
  std::vector<std::string> variant;
  if (!ax.xparam.empty())
    for (const auto &[k, v] : point_params(p))
      if (k != ax.xparam && !ax.zipped.count(k) && ax.values.at(k).size() > 1)
        variant.push_back(k + "=" + value_text(v));
  std::string title = variant.empty() ? metric : fmt::format("{}", fmt::join(variant, " "));
  if (nsets > 1) title += " (" + set_name + ")";
  return title;
}

// One chart of `metric` over the group's points that have it.
std::optional<PlotChart> chart_of(const Group &all, const std::string &metric, bool several,
                                  const std::vector<std::string> &set_names) {
  Group g{all.title, {}};
  for (const auto &sp : all.points)
    if (value_of(*sp.second, metric)) g.points.push_back(sp);
  if (g.points.empty()) return std::nullopt;
  const Axis ax = choose_axis(g);
  PlotChart c;
  c.title = several ? fmt::format("{}: {}", g.title, metric) : g.title;
  c.categorical = ax.xparam.empty();
  c.xlabel = c.categorical ? "point" : ax.xparam;
  for (const auto &z : ax.zipped) c.xlabel += " = " + z;
  const MetricSummary *m0 = value_of(*g.points.front().second, metric);
  c.ylabel = m0->unit.empty() ? metric : fmt::format("{} ({})", metric, m0->unit);
  std::map<std::string, size_t> series_of;
  double xmin = 0, xmax = 0;
  bool first = true;
  for (const auto &[si, p] : g.points) {
    std::string title = series_title(*p, ax, metric, set_names.size(), set_names.at(si));
    auto [it, fresh] = series_of.emplace(title, c.series.size());
    if (fresh) c.series.push_back(PlotSeries{title, {}, {}, {}, {}});
    PlotSeries &s = c.series[it->second];
    const MetricSummary *m = value_of(*p, metric);
    double x = c.categorical ? double(s.x.size()) : p->params.at(ax.xparam).get<double>();
    s.x.push_back(x);
    s.xlabels.push_back(p->label);
    s.y.push_back(m->mean);
    s.err.push_back(m->ci95);
    c.nonnegative = c.nonnegative && m->mean >= 0;
    xmin = first ? x : std::min(xmin, x);
    xmax = first ? x : std::max(xmax, x);
    first = false;
  }
  // A geometric sweep ([1..3000 *2], log n) spans orders of magnitude: log axis.
  c.logx = !c.categorical && xmin > 0 && xmax / xmin >= 100;
  for (auto &s : c.series) sort_series(s);
  return c;
}

}  // namespace

std::vector<PlotChart> plot_charts(const std::vector<const ResultSet *> &sets,
                                   const std::vector<std::string> &set_names, const std::string &metric) {
  std::vector<PlotChart> charts;
  for (const auto &g : group_points(sets)) {
    std::vector<std::string> metrics = chart_metrics(g, metric);
    for (const auto &m : metrics)
      if (auto c = chart_of(g, m, metrics.size() > 1, set_names)) charts.push_back(std::move(*c));
  }
  return charts;
}

std::vector<std::string> plot_metric_names(const std::vector<const ResultSet *> &sets) {
  std::set<std::string> names;
  for (const auto *rs : sets)
    for (const auto &p : rs->points)
      if (!p.is_baseline)
        for (const auto &m : p.metrics) names.insert(m.name);
  return {names.begin(), names.end()};
}

std::string gnuplot_script(const std::vector<PlotChart> &charts, const std::string &output) {
  bool png = output.size() >= 4 && output.compare(output.size() - 4, 4, ".png") == 0;
  size_t n = std::max<size_t>(charts.size(), 1);
  std::string out =
      fmt::format("set terminal {} size 960,{}\n", png ? "pngcairo noenhanced" : "svg dynamic noenhanced", 360 * n);
  out += fmt::format("set output {}\nset multiplot layout {},1\nset grid\nset key outside right\n",
                     gnuplot_string(output), n);
  for (const auto &c : charts) {
    out += fmt::format("set title {}\nset xlabel {}\nset ylabel {}\n", gnuplot_string(c.title),
                       gnuplot_string(c.xlabel), gnuplot_string(c.ylabel));
    out += c.nonnegative ? "set yrange [0:*]\n" : "set yrange [*:*]\n";  // a difference (`_adj`) can be < 0
    out += c.logx ? "set logscale x\n" : "unset logscale x\n";
    out += c.categorical ? "set xtics rotate by -30\nset offsets 0.5,0.5,0,0\n"
                         : "set xtics norotate\nset offsets graph 0.03, graph 0.03, 0, 0\n";
    std::vector<std::string> parts;
    for (size_t i = 0; i < c.series.size(); ++i) {
      // Overlaid categorical series are nudged apart so their error bars stay readable.
      double nudge = c.series.size() > 1 ? (double(i) - double(c.series.size() - 1) / 2) * 0.1 : 0;
      parts.push_back(
          c.categorical ? fmt::format("'-' using ($1+{}):3:4:xtic(2) with yerrorlines title {}", nudge,
                                      gnuplot_string(c.series[i].title))
                        : fmt::format("'-' using 1:3:4 with yerrorlines title {}", gnuplot_string(c.series[i].title)));
    }
    out += fmt::format("plot {}\n", fmt::join(parts, ", "));
    for (const auto &s : c.series) {
      for (size_t i = 0; i < s.x.size(); ++i)
        out += fmt::format("{} {} {} {}\n", s.x[i], gnuplot_data_field(s.xlabels[i]), s.y[i], s.err[i]);
      out += "e\n";
    }
  }
  out += "unset multiplot\n";
  return out;
}

}  // namespace bpfbench
