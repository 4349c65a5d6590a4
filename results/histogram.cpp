#include "results/histogram.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>

#include "results/json_values.hpp"

namespace bpfbench {

uint64_t LatencyHistogram::count() const {
  uint64_t n = 0;
  for (uint64_t b : buckets) n += b;
  return n;
}

double LatencyHistogram::bucket_low(size_t k) { return k == 0 ? 0.0 : std::ldexp(1.0, int(k) - 1); }
double LatencyHistogram::bucket_high(size_t k) { return k == 0 ? 1.0 : std::ldexp(1.0, int(k)); }

std::optional<double> LatencyHistogram::quantile(double q) const {
  const uint64_t n = count();
  if (n == 0) return std::nullopt;
  q = std::clamp(q, 0.0, 1.0);
  // The rank of the wanted value (1-based), then the bucket that holds it.
  const double rank = std::max(1.0, std::ceil(q * double(n)));
  double below = 0;
  for (size_t k = 0; k < buckets.size(); ++k) {
    if (buckets[k] == 0) continue;
    if (below + double(buckets[k]) >= rank) {
      if (k == 0) return 0.0;
      const double frac = (rank - below) / double(buckets[k]);
      return bucket_low(k) + frac * (bucket_high(k) - bucket_low(k));
    }
    below += double(buckets[k]);
  }
  return bucket_high(buckets.size() - 1);
}

std::optional<size_t> LatencyHistogram::highest_bucket() const {
  for (size_t k = buckets.size(); k-- > 0;)
    if (buckets[k]) return k;
  return std::nullopt;
}

void LatencyHistogram::add(const LatencyHistogram &other) {
  if (buckets.size() < other.buckets.size()) buckets.resize(other.buckets.size(), 0);
  for (size_t k = 0; k < other.buckets.size(); ++k) buckets[k] += other.buckets[k];
}

std::string format_ns(double ns) {
  if (ns < 1e3) return fmt::format("{:.0f}ns", ns);
  if (ns < 1e6) return fmt::format("{:.3g}us", ns / 1e3);
  if (ns < 1e9) return fmt::format("{:.3g}ms", ns / 1e6);
  return fmt::format("{:.3g}s", ns / 1e9);
}

std::string format_histogram(const LatencyHistogram &h) {
  const uint64_t n = h.count();
  if (n == 0) return "latency histogram: no timed operations";
  const size_t top = *h.highest_bucket();
  std::string out = fmt::format("latency p50 {} p90 {} p99 {} max <{} ({} ops, log2 buckets)",
                                format_ns(*h.quantile(0.5)), format_ns(*h.quantile(0.9)), format_ns(*h.quantile(0.99)),
                                format_ns(LatencyHistogram::bucket_high(top)), n);
  // One cell per bucket with at least 1% of the counts; neighbouring smaller ones (a
  // long tail of stragglers) share one cell with their summed share.
  std::vector<std::string> cells;
  auto share = [](double pct) { return pct < 1 ? std::string("<1%") : fmt::format("{:.0f}%", pct); };
  std::optional<size_t> run_lo;
  size_t run_hi = 0;
  uint64_t run_n = 0;
  auto close_run = [&] {
    if (!run_lo) return;
    cells.push_back(fmt::format("{}-{} {}", format_ns(LatencyHistogram::bucket_low(*run_lo)),
                                format_ns(LatencyHistogram::bucket_high(run_hi)),
                                share(100.0 * double(run_n) / double(n))));
    run_lo.reset();
    run_n = 0;
  };
  for (size_t k = 0; k < h.buckets.size(); ++k) {
    if (!h.buckets[k]) continue;
    const double pct = 100.0 * double(h.buckets[k]) / double(n);
    if (pct >= 1) close_run();
    if (!run_lo) run_lo = k;
    run_hi = k;
    run_n += h.buckets[k];
    if (pct >= 1) close_run();
  }
  close_run();
  return out + "\nhist " + fmt::format("{}", fmt::join(cells, ", "));
}

nlohmann::json histogram_to_json(const LatencyHistogram &h) {
  std::vector<uint64_t> b = h.buckets;
  while (!b.empty() && b.back() == 0) b.pop_back();
  auto q = [&](double x) { return json_or_null(h.quantile(x)); };
  auto top = h.highest_bucket();
  return {{"unit", h.unit},
          {"bucket_rule", "log2: bucket 0 = 0, bucket k = [2^(k-1), 2^k)"},
          {"count", h.count()},
          {"p50", q(0.5)},
          {"p90", q(0.9)},
          {"p99", q(0.99)},
          {"max_below", top ? nlohmann::json(LatencyHistogram::bucket_high(*top)) : nlohmann::json(nullptr)},
          {"buckets", b}};
}

std::optional<LatencyHistogram> histogram_from_json(const nlohmann::json &j) {
  if (!j.is_object() || !j.contains("buckets") || !j["buckets"].is_array()) return std::nullopt;
  LatencyHistogram h;
  if (j.contains("unit") && j["unit"].is_string()) h.unit = j["unit"].get<std::string>();
  const auto &b = j["buckets"];
  if (b.size() > kHistBuckets) return std::nullopt;
  for (size_t k = 0; k < b.size(); ++k) {
    if (!b[k].is_number_unsigned() && !(b[k].is_number_integer() && b[k].get<int64_t>() >= 0)) return std::nullopt;
    h.buckets[k] = b[k].get<uint64_t>();
  }
  return h;
}

}  // namespace bpfbench
