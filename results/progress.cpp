#include "results/progress.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>

namespace bpfbench {

double nominal_seconds(const PlanPoint &p) {
  int64_t measured = p.precision_pct > 0 ? p.min_duration_ns : p.duration_ns;
  return double(p.warmup_ns + measured) / 1e9;
}

double eta_seconds(double remaining_nominal_s, double done_nominal_s, double done_actual_s) {
  if (done_nominal_s <= 0 || done_actual_s <= 0) return remaining_nominal_s;
  return remaining_nominal_s * done_actual_s / done_nominal_s;
}

std::string format_clock(double seconds) {
  long s = std::lround(std::max(seconds, 0.0));
  if (s < 60) return fmt::format("{}s", s);
  if (s < 3600) return fmt::format("{}:{:02}", s / 60, s % 60);
  return fmt::format("{}:{:02}:{:02}", s / 3600, (s / 60) % 60, s % 60);
}

std::string format_status(size_t i, size_t n, const std::string &label, double elapsed_s, double eta_s,
                          const std::string &extra) {
  std::string out =
      fmt::format("[{}/{}] {}  elapsed {}  ETA {}", i, n, label, format_clock(elapsed_s), format_clock(eta_s));
  if (!extra.empty()) out += "  " + extra;
  return out;
}

}  // namespace bpfbench
