#include "results/point_result.hpp"

#include <fmt/format.h>

#include <cmath>

namespace bpfbench {
namespace {

std::string replace_all(std::string s, const std::string &from, const std::string &to) {
  for (size_t p = s.find(from); p != std::string::npos; p = s.find(from, p + to.size())) s.replace(p, from.size(), to);
  return s;
}

}  // namespace

const char *to_string(PointResult::Status s) {
  switch (s) {
  case PointResult::Status::Ok: return "ok";
  case PointResult::Status::Skipped: return "skipped";
  case PointResult::Status::Failed: return "failed";
  case PointResult::Status::Interrupted: return "interrupted";
  }
  return "?";
}

std::string format_per_cpu(const PerCpuSpec &spec, const std::vector<PerCpuRate> &rates) {
  std::string out;
  double total = 0, total_mean = 0;
  auto line = [&](const std::string &cpu, const std::string &cpu02, double rate, double mean, double spread,
                  size_t samples, uint64_t sample_ms) {
    std::string l = replace_all(spec.line, "{cpu}", cpu);
    l = replace_all(l, "{cpu02}", cpu02);
    l = replace_all(l, "{rate}", std::to_string(static_cast<long long>(rate)));
    l = replace_all(l, "{mean_m}", fmt::format("{:.3f}", mean / 1e6));
    l = replace_all(l, "{spread_m}", fmt::format("{:.3f}", spread / 1e6));
    l = replace_all(l, "{samples}", std::to_string(samples));
    out += replace_all(l, "{sample_ms}", std::to_string(sample_ms)) + "\n";
  };
  for (const auto &r : rates) {
    const size_t n = r.sample_rates.size();
    double mean = r.rate, spread = 0;
    if (n > 0) {
      mean = 0;
      for (double v : r.sample_rates) mean += v / double(n);
    }
    if (n > 1) {
      double ss = 0;
      for (double v : r.sample_rates) ss += (v - mean) * (v - mean);
      spread = 2 * std::sqrt(ss / double(n - 1));
    }
    const uint64_t ms = n > 0 ? r.sample_ns / n / 1'000'000 : 0;
    line(std::to_string(r.cpu), fmt::format("{:02d}", r.cpu), r.rate, mean, spread, n, ms);
    total += r.rate;
    total_mean += mean;
  }
  if (!rates.empty() && spec.total) line("total", "total", total, total_mean, 0, 0, 0);
  return out;
}

}  // namespace bpfbench
