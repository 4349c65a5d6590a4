#include "results/interleaved.hpp"

#include <algorithm>
#include <cmath>
#include <limits>
#include <map>

#include "results/stats.hpp"

namespace bpfbench {

namespace {

// ln of the geometric mean of `v` (each > 0).
double mean_ln(const std::vector<double> &v) {
  double s = 0;
  for (double x : v) s += std::log(x);
  return v.empty() ? 0 : s / double(v.size());
}

bool positive(double x) { return std::isfinite(x) && x > 0; }

std::optional<double> mean_of_present(const std::vector<std::optional<double>> &v) {
  double s = 0;
  size_t n = 0;
  for (const auto &x : v)
    if (x) {
      s += *x;
      ++n;
    }
  if (n == 0) return std::nullopt;
  return s / double(n);
}

// One unit's slices, in the order they ran.
struct UnitSlices {
  std::vector<double> a, b, logs;
  std::vector<std::optional<double>> a_ns, b_ns;
};

AbUnitStats unit_stats(uint32_t unit, const UnitSlices &s) {
  AbUnitStats u;
  u.unit = unit;
  u.pairs = s.logs.size();
  u.mean_log = mean_of(s.logs);
  u.a_geomean = std::exp(mean_ln(s.a));
  u.b_geomean = std::exp(mean_ln(s.b));
  u.a_prog_ns = mean_of_present(s.a_ns);
  u.b_prog_ns = mean_of_present(s.b_ns);
  return u;
}

// One load a side: `blocks` runs of consecutive pairs stand in for units (at least 2 pairs
// a block); none when there are fewer than 4 pairs.
std::vector<double> time_block_logs(const std::vector<double> &logs) {
  constexpr size_t kBlocks = 8;
  const size_t blocks = std::min(kBlocks, logs.size() / 2);
  std::vector<double> out;
  if (blocks < 2) return out;
  for (size_t k = 0; k < blocks; ++k) {
    size_t from = k * logs.size() / blocks, to = (k + 1) * logs.size() / blocks;
    std::vector<double> part(logs.begin() + long(from), logs.begin() + long(to));
    out.push_back(mean_of(part));
  }
  return out;
}

// A's loads against each other and B's against each other: units 2i and 2i+1.
void control(InterleavedStats &st, double confidence) {
  std::vector<double> logs;
  for (size_t i = 0; i + 1 < st.units.size(); i += 2) {
    const AbUnitStats &x = st.units[i], &y = st.units[i + 1];
    logs.push_back(std::log(y.a_geomean / x.a_geomean));
    logs.push_back(std::log(y.b_geomean / x.b_geomean));
  }
  st.control_n = logs.size();
  if (logs.size() < 2) {
    st.control_floor_pct = std::numeric_limits<double>::quiet_NaN();
    return;
  }
  PairedRatio c = log_ratio_ci(logs, confidence);
  st.control_mean_log = c.mean_log;
  st.control_half_log = c.half_log;
  st.control_floor_pct = std::expm1(std::fabs(c.mean_log)) * 100;
}

}  // namespace

InterleavedStats
interleaved_stats(const std::vector<AbSlicePair> &pairs,
                  const std::vector<std::pair<std::optional<uint32_t>, std::optional<uint32_t>>> &jit64,
                  double confidence) {
  InterleavedStats st;
  st.ratio.pairs = pairs.size();
  std::map<uint32_t, UnitSlices> by_unit;
  std::vector<double> all_a, all_b, all_logs, wall_a, wall_b;
  for (size_t i = 0; i < pairs.size(); ++i) {
    const AbSlicePair &p = pairs[i];
    if (!positive(p.a) || !positive(p.b)) {
      st.ratio.why = "slice pair " + std::to_string(i + 1) + " has a value that is not a positive number (no " +
                     (positive(p.a) ? "B" : "A") + " events counted in it)";
      return st;
    }
    UnitSlices &u = by_unit[p.unit];
    u.a.push_back(p.a);
    u.b.push_back(p.b);
    u.logs.push_back(std::log(p.b / p.a));
    u.a_ns.push_back(p.a_prog_ns);
    u.b_ns.push_back(p.b_prog_ns);
    all_a.push_back(p.a);
    all_b.push_back(p.b);
    all_logs.push_back(u.logs.back());
    if (positive(p.a_wall) && positive(p.b_wall)) {
      wall_a.push_back(p.a_wall);
      wall_b.push_back(p.b_wall);
    }
  }
  if (pairs.empty()) {
    st.ratio.why = "no slices";
    return st;
  }
  std::vector<double> unit_logs;
  for (const auto &[unit, s] : by_unit) {
    st.units.push_back(unit_stats(unit, s));
    if (unit < jit64.size()) std::tie(st.units.back().a_jit64, st.units.back().b_jit64) = jit64[unit];
    unit_logs.push_back(st.units.back().mean_log);
  }
  st.time_blocks = st.units.size() == 1;
  st.ratio = log_ratio_ci(st.time_blocks ? time_block_logs(all_logs) : unit_logs, confidence);
  st.ratio.pairs = pairs.size();
  if (!st.ratio.ok) st.ratio.why = "too few slices for a CI";
  control(st, confidence);
  st.a_geomean = std::exp(mean_ln(all_a));
  st.b_geomean = std::exp(mean_ln(all_b));
  if (!wall_a.empty()) st.wall_ratio = std::exp(mean_ln(wall_b) - mean_ln(wall_a));
  std::vector<std::optional<double>> a_ns, b_ns;
  for (const auto &u : st.units) {
    a_ns.push_back(u.a_prog_ns);
    b_ns.push_back(u.b_prog_ns);
  }
  auto ma = mean_of_present(a_ns), mb = mean_of_present(b_ns);
  if (ma && mb && *ma > 0) st.prog_ns_ratio = *mb / *ma;
  return st;
}

double interleaved_floor_pct(const InterleavedStats &s, double user_floor_pct) {
  return std::isfinite(s.control_floor_pct) ? std::max(user_floor_pct, s.control_floor_pct) : user_floor_pct;
}

AbStop interleaved_stop_state(const InterleavedStats &s, bool higher_is_better, double user_floor_pct,
                              const InterleavedRule &rule, double elapsed_s) {
  if (!s.ratio.ok && s.ratio.pairs > 0 && s.ratio.why.rfind("slice pair", 0) == 0) return AbStop::NoRatio;
  const bool enough = s.ratio.ok && elapsed_s >= rule.min_time_s && (s.time_blocks || s.units.size() >= rule.min_units);
  if (enough) {
    const double floor = interleaved_floor_pct(s, user_floor_pct);
    Verdict v = ab_verdict(s.ratio, higher_is_better, floor);
    if (v == Verdict::Faster || v == Verdict::Slower) return AbStop::Decided;
    // No change, to within the precision: the CI is not outside the floor and is narrow. Not
    // "the whole CI inside the floor": the floor is the control's own small difference now,
    // and a CI of ±precision would hardly ever fit inside it.
    const bool settled = s.time_blocks || s.units.size() >= rule.min_units_no_change;
    if (settled && s.ratio.half_width_pct <= rule.precision_pct) return AbStop::Reached;
  }
  if (elapsed_s >= rule.max_time_s) return AbStop::MaxTime;
  return AbStop::Continue;
}

}  // namespace bpfbench
