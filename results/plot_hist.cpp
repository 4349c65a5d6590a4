#include "results/plot_hist.hpp"

#include <algorithm>
#include <map>

#include "results/histogram.hpp"

namespace bpfbench {

bool has_latency_hist(const std::vector<const ResultSet *> &sets) {
  for (const auto *s : sets)
    for (const auto &p : s->points)
      if (!p.is_baseline && p.latency_hist && p.latency_hist->count() > 0) return true;
  return false;
}

std::vector<PlotChart> latency_charts(const std::vector<const ResultSet *> &sets,
                                      const std::vector<std::string> &set_names) {
  // (suite, label) in first-seen order -> each set's histogram of that point.
  std::vector<std::pair<std::string, std::string>> order;
  std::map<std::pair<std::string, std::string>, std::vector<std::pair<size_t, const LatencyHistogram *>>> found;
  for (size_t i = 0; i < sets.size(); ++i)
    for (const auto &p : sets[i]->points) {
      if (p.is_baseline || !p.latency_hist || p.latency_hist->count() == 0) continue;
      auto key = std::make_pair(p.suite, p.label);
      if (!found.count(key)) order.push_back(key);
      found[key].push_back({i, &*p.latency_hist});
    }
  std::vector<PlotChart> charts;
  for (const auto &key : order) {
    const auto &hists = found[key];
    size_t lo = kHistBuckets, hi = 0;
    for (const auto &[set, h] : hists)
      for (size_t k = 0; k < h->buckets.size(); ++k)
        if (h->buckets[k]) lo = std::min(lo, k), hi = std::max(hi, k);
    PlotChart c;
    c.title = (key.first.empty() ? "" : key.first + ": ") + key.second + " latency";
    c.xlabel = "log2 bucket (lower bound)";
    c.ylabel = "% of timed operations";
    c.categorical = true;
    for (const auto &[set, h] : hists) {
      PlotSeries s;
      s.title = set < set_names.size() ? set_names[set] : "";
      const double n = double(h->count());
      for (size_t k = lo; k <= hi; ++k) {
        s.xlabels.push_back(format_ns(LatencyHistogram::bucket_low(k)));
        s.x.push_back(double(k - lo));
        s.y.push_back(100.0 * double(k < h->buckets.size() ? h->buckets[k] : 0) / n);
        s.err.push_back(0);
      }
      c.series.push_back(std::move(s));
    }
    charts.push_back(std::move(c));
  }
  return charts;
}

}  // namespace bpfbench
