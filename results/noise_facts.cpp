#include "results/noise_facts.hpp"

#include <algorithm>
#include <cmath>

#include "results/json_values.hpp"

namespace bpfbench {

namespace {

// The larger of two values where NaN means "unknown": one known value wins.
double max_known(double a, double b) {
  if (std::isnan(a)) return b;
  if (std::isnan(b)) return a;
  return std::max(a, b);
}

}  // namespace

nlohmann::json noise_to_json(const NoiseFacts &n) {
  return {{"wall_s", json_number(n.wall_s)},
          {"load1", json_number(n.load1)},
          {"other_cpu_pct", json_number(n.other_cpu_pct)},
          {"steal_pct", json_number(n.steal_pct)},
          {"cpufreq_mhz", json_number(n.cpufreq_mhz)}};
}

NoiseFacts combine_noise(const std::vector<NoiseFacts> &parts) {
  NoiseFacts out;
  double freq_sum = 0;
  size_t freq_n = 0;
  for (const auto &p : parts) {
    out.wall_s += p.wall_s;
    out.load1 = max_known(out.load1, p.load1);
    out.other_cpu_pct = max_known(out.other_cpu_pct, p.other_cpu_pct);
    out.steal_pct = max_known(out.steal_pct, p.steal_pct);
    if (std::isfinite(p.cpufreq_mhz)) freq_sum += p.cpufreq_mhz, ++freq_n;
  }
  if (freq_n > 0) out.cpufreq_mhz = freq_sum / double(freq_n);
  return out;
}

nlohmann::json calibration_to_json(const Calibration &c) {
  nlohmann::json pts = nlohmann::json::array();
  for (const auto &p : c.points)
    pts.push_back({{"when", p.when},
                   {"metric", p.metric},
                   {"unit", p.unit},
                   {"mean", json_number(p.mean)},
                   {"ci95", json_number(p.ci95)},
                   {"n", p.n},
                   {"noise", noise_to_json(p.noise)}});
  return {{"family", "trigger"}, {"program", "base"}, {"duration_s", c.duration_s}, {"points", pts}};
}

}  // namespace bpfbench
