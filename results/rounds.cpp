#include "results/rounds.hpp"

#include <algorithm>
#include <map>

#include "results/stat_math.hpp"
#include "results/stats.hpp"

namespace bpfbench {
namespace {

using Status = PointResult::Status;

// Per-CPU counts of all rounds: ops and BPF time add up, the rate follows from them.
std::vector<PerCpuRate> sum_per_cpu(const std::vector<const PointResult *> &runs) {
  std::map<int, PerCpuRate> by_cpu;
  for (const auto *r : runs)
    for (const auto &x : r->per_cpu) {
      PerCpuRate &acc = by_cpu[x.cpu];
      acc.cpu = x.cpu;
      acc.ops += x.ops;
      acc.ns += x.ns;
      acc.sample_rates.insert(acc.sample_rates.end(), x.sample_rates.begin(), x.sample_rates.end());
      acc.sample_ns += x.sample_ns;
    }
  std::vector<PerCpuRate> out;
  for (auto &[cpu, x] : by_cpu) {
    x.rate = x.ns > 0 ? double(x.ops) * 1e9 / double(x.ns) : 0.0;
    out.push_back(x);
  }
  return out;
}

// The rounds' self-checks by name: the counts add up, and one that failed stays failed.
std::vector<SelfCheck> sum_self_checks(const std::vector<const PointResult *> &runs) {
  std::vector<SelfCheck> out;
  for (const auto *r : runs)
    for (const auto &c : r->self_checks) {
      auto it = std::find_if(out.begin(), out.end(), [&](const SelfCheck &x) { return x.name == c.name; });
      if (it == out.end()) {
        out.push_back(c);
        continue;
      }
      it->expected += c.expected;
      it->observed += c.observed;
      it->ok = it->ok && c.ok;
      it->detail = "summed over rounds; the last: " + c.detail;
    }
  return out;
}

}  // namespace

PointResult combine_rounds(const std::vector<PointResult> &runs, const std::vector<MetricSpec> &metrics) {
  std::vector<const PointResult *> measured;
  for (const auto &r : runs) {
    if (r.status == Status::Failed || r.status == Status::Skipped) return r;
    if (r.status == Status::Ok) measured.push_back(&r);
  }
  // Only an interrupted round (the first): nothing to combine.
  if (measured.empty()) return runs.back();

  PointResult c = *measured.front();
  c.samples.clear();
  c.warmup.clear();
  c.setup_s = 0;
  for (const auto *r : measured) {
    c.samples.insert(c.samples.end(), r->samples.begin(), r->samples.end());
    c.warmup.insert(c.warmup.end(), r->warmup.begin(), r->warmup.end());
    c.round_sizes.push_back(r->samples.size());
    c.setup_s += r->setup_s;
  }
  c.per_cpu = sum_per_cpu(measured);
  c.self_checks = sum_self_checks(measured);
  // The prog_* metrics of the run-time stats, when the rounds collected them.
  const bool stats = !c.samples.empty() && c.samples.front().deltas.count(kProgRunsKey);
  for (size_t i = 1; i < measured.size(); ++i)
    for (size_t k = 0; k < c.prog_stats.programs.size() && k < measured[i]->prog_stats.programs.size(); ++k) {
      c.prog_stats.programs[k].run_cnt += measured[i]->prog_stats.programs[k].run_cnt;
      c.prog_stats.programs[k].run_time_ns += measured[i]->prog_stats.programs[k].run_time_ns;
    }
  // Histograms add up; hardware counts too; the profile is the last round's (its file
  // was overwritten by each round).
  c.latency_hist.reset();
  c.hw_counters.reset();
  for (const auto *r : measured) {
    if (r->latency_hist) {
      if (!c.latency_hist) c.latency_hist = LatencyHistogram{};
      c.latency_hist->add(*r->latency_hist);
    }
    if (r->hw_counters) {
      HwCounts &h = c.hw_counters ? *c.hw_counters : c.hw_counters.emplace();
      h.cycles += r->hw_counters->cycles;
      h.instructions += r->hw_counters->instructions;
      h.cache_misses += r->hw_counters->cache_misses;
      h.has_cache_misses = r->hw_counters->has_cache_misses;
      h.ops += r->hw_counters->ops;
      h.scale = std::max(h.scale, r->hw_counters->scale);
    }
  }
  c.profile = measured.back()->profile;
  c.interference.reset();  // what ran beside any of the rounds
  for (const auto *r : measured)
    if (r->interference)
      c.interference = c.interference ? merge_interference(*c.interference, *r->interference) : *r->interference;
  c.summary = summarize(c.samples, with_prog_stat_metrics(metrics, stats), c.producers, c.report);
  if (measured.size() >= 2)
    for (auto &m : c.summary.metrics) {
      if (!m.has_value()) continue;
      std::vector<double> means;
      for (const auto *r : measured)
        if (const MetricSummary *x = r->summary.find(m.name); x && x->has_value()) means.push_back(x->mean);
      if (means.size() != measured.size()) continue;  // not in every round: per interval only
      m.round_means = means;
      m.mean = mean_of(means);
      m.per_prod = c.producers > 0 ? m.mean / c.producers : m.mean;
      m.ci95 = ci_half_width(stddev_of(means), means.size());
    }
  c.status = runs.back().status == Status::Interrupted ? Status::Interrupted : Status::Ok;
  return c;
}

bool needs_another_round(PointResult &r, int rounds_done, const RoundsRule &rule) {
  if (r.status != Status::Ok) return false;
  if (rule.target_pct > 0) {
    const MetricSummary *p = r.summary.find(r.summary.primary);
    r.precision_pct = rule.target_pct;
    // A mean of 0 has no relative CI: more rounds cannot reach the target (stats.hpp).
    r.precision_note = p && (p->round_means.size() >= 2 || !p->has_value()) ? precision_undefined(*p) : "";
    r.precision_reached =
        p && p->round_means.size() >= 2 && r.precision_note.empty() && p->rel_ci() * 100 <= rule.target_pct;
  }
  if (rounds_done < std::max(rule.min_rounds, 2)) return true;
  return rule.target_pct > 0 && !r.precision_reached && r.precision_note.empty() && rounds_done < rule.max_rounds;
}

}  // namespace bpfbench
