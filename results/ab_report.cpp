#include "results/ab_report.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>
#include <limits>
#include <set>

#include "util/escape.hpp"
#include "results/json_values.hpp"

namespace bpfbench {

namespace {

std::string verdict_text(Verdict v) { return v == Verdict::NoChange ? "within noise" : to_string(v); }

std::string fmt_ratio(double v) { return std::isfinite(v) ? fmt::format("{:.4f}", v) : "n/a"; }
std::string fmt_half(double v) { return std::isfinite(v) ? fmt::format("±{:.2f}%", v) : "±inf"; }

std::string ci_text(const AbPointReport &p) {
  if (!p.stats.ok || p.stats.n < 2) return "n/a";
  return fmt::format("[{}, {}]", fmt_ratio(p.stats.ci_low), fmt_ratio(p.stats.ci_high));
}

bool any_method(const AbReport &r, AbMethod m) {
  return std::any_of(r.points.begin(), r.points.end(), [m](const AbPointReport &p) { return p.method == m; });
}

std::string header(const AbReport &r) {
  std::string out = fmt::format("ab: A = {}, B = {}{}\n", printable_text(r.a), printable_text(r.b),
                                r.control ? " (control: A against itself)" : "");
  if (any_method(r, AbMethod::Interleaved))
    out += "ab: interleaved points: A's and B's loads alternate in one process; a slice's value is the active load's "
           "events per CPU second of the producer threads (test_run points: per second of the kernel's own duration "
           "of the runs); the CI is over loads, never slices, and at 99% (a point is judged after every round of "
           "slices)\n";
  if (any_method(r, AbMethod::Turns) && r.turn_value == AbTurnValue::Fast)
    out += "ab: a turn's value is the 90th percentile of its 100 ms intervals, in the metric's better direction "
           "(--turn-value fast)\n";
  if (!r.timing_note.empty()) out += "ab: " + printable_text(r.timing_note) + "\n";
  return out;
}

// The CI column's heading: whole turns use 95% intervals, interleaved points 99% ones.
std::string ci_label(const AbReport &r) {
  const bool inter = any_method(r, AbMethod::Interleaved), turns = any_method(r, AbMethod::Turns);
  return inter && turns ? "CI (99%/95%)" : inter ? "99% CI" : "95% CI";
}

nlohmann::json point_json(const AbPointReport &p) {
  nlohmann::json turns = nlohmann::json::array(), pairs = nlohmann::json::array();
  for (const auto &t : p.turns) {
    nlohmann::json turn = {
        {"side", to_string(t.side)}, {"value", json_number(t.value)}, {"jit_offset64", json_or_null(t.jit_offset64)}};
    if (t.intervals > 0) {
      turn["intervals"] = t.intervals;
      turn["mean"] = json_number(t.mean);
    }
    turns.push_back(std::move(turn));
  }
  for (size_t i = 0; i < p.a.size(); ++i)
    pairs.push_back({{"a", json_number(p.a[i])}, {"b", json_number(p.b[i])}, {"ratio", json_number(p.b[i] / p.a[i])}});
  nlohmann::json j = {{"suite", p.suite},
                      {"label", p.label},
                      {"metric", p.metric},
                      {"unit", p.unit},
                      {"higher_is_better", p.higher_is_better},
                      {"turns", turns},
                      {"pairs", pairs},
                      {"n_pairs", p.n_pairs()},
                      {"method", to_string(p.method)},
                      {"stop", to_string(p.stop)},
                      {"floor_pct", json_number(p.floor_pct)},
                      {"verdict", verdict_text(p.verdict)}};
  if (!p.label_b.empty()) j["label_b"] = p.label_b;
  if (!p.method_note.empty()) j["method_note"] = p.method_note;
  if (p.interleaved) {
    j["interleaved"] = interleaved_json(*p.interleaved);
    j["n_units"] = p.stats.n;
  }
  if (!p.note.empty()) j["note"] = p.note;
  if (std::string al = p.alignment_note(); !al.empty()) j["alignment_note"] = al;
  if (!p.interference.empty()) j["interference"] = p.interference;
  if (p.stats.ok) {
    j["ratio"] = json_number(p.stats.ratio);
    j["ci_low"] = json_number(p.stats.n >= 2 ? p.stats.ci_low : NAN);
    j["ci_high"] = json_number(p.stats.n >= 2 ? p.stats.ci_high : NAN);
    j["half_width_pct"] = json_number(p.stats.half_width_pct);
    j["change_pct"] = json_number(p.stats.change_pct());
    j["speed_change_pct"] = json_number(p.speed_change_pct());
    j["max_abs_log_ratio"] = json_number(p.stats.max_abs_log);
  }
  return j;
}

}  // namespace

std::string point_name(const AbPointKey &k) { return k.suite.empty() ? k.label : k.suite + " / " + k.label; }

AbMatch match_by_suite_label(const std::vector<AbPointKey> &a, const std::vector<AbPointKey> &b) {
  AbMatch m;
  std::map<std::string, size_t> in_b;
  for (size_t i = 0; i < b.size(); ++i) in_b.emplace(point_name(b[i]), i);
  std::set<size_t> used;
  for (size_t i = 0; i < a.size(); ++i) {
    auto it = in_b.find(point_name(a[i]));
    // A suite title that holds " / " could make two keys equal: the suite must match too.
    if (it == in_b.end() || b[it->second].suite != a[i].suite) {
      m.only_a.push_back(point_name(a[i]));
      continue;
    }
    m.pairs.emplace_back(i, it->second);
    used.insert(it->second);
  }
  for (size_t i = 0; i < b.size(); ++i)
    if (!used.count(i)) m.only_b.push_back(point_name(b[i]));
  return m;
}

void AbPointReport::note_interference(size_t turn, AbSide side, const Interference &i) {
  if (i.found())
    interference.push_back(fmt::format("turn {} ({}): {}", turn + 1, to_string(side), interference_note(i)));
}

void AbPointReport::add_turn(AbSide side, double value, std::optional<uint32_t> jit_offset64) {
  turns.push_back({side, value, jit_offset64});
  if (turns.size() % 2 != 0) return;
  const AbTurn &x = turns[turns.size() - 2], &y = turns.back();
  a.push_back(x.side == AbSide::A ? x.value : y.value);
  b.push_back(x.side == AbSide::B ? x.value : y.value);
  stats = paired_ratio(a, b, 0.95);
  if (!stats.ok && note.empty())
    note = fmt::format("no ratio of {}: {} (ab compares the first metric the bench reports: report one that is "
                       "positive in every turn first)",
                       metric, stats.why);
}

std::string AbPointReport::alignment_note() const {
  std::set<uint32_t> sa, sb;
  for (const auto &t : turns)
    if (t.jit_offset64) (t.side == AbSide::A ? sa : sb).insert(*t.jit_offset64);
  if (sa.empty() || sb.empty() || sa == sb) return "";
  auto list = [](const std::set<uint32_t> &s) {
    std::string out;
    for (uint32_t v : s) out += (out.empty() ? "" : " ") + std::to_string(v);
    return out;
  };
  return fmt::format("JITed code offsets mod 64: A {}, B {}; a small loop's time can move with them", list(sa),
                     list(sb));
}

const char *to_string(AbTurnValue v) { return v == AbTurnValue::Fast ? "fast" : "mean"; }

double ab_turn_statistic(const MetricSummary &m, AbTurnValue how) {
  if (how == AbTurnValue::Mean || m.values.size() < 2) return m.mean;
  return quantile_of(m.values, m.higher_is_better ? 0.9 : 0.1);
}

std::optional<double> AbPointReport::turn_value(const MetricSummary *m, const std::string &side) {
  if (!m || m->n == 0 || !m->has_value()) {
    note = fmt::format("no {} in {}{}", metric, side, m && !m->has_value() ? ": " + m->no_value : "");
    return std::nullopt;
  }
  if (turns.empty()) {
    unit = m->unit;
    higher_is_better = m->higher_is_better;
  }
  return ab_turn_statistic(*m, turn_stat);
}

void AbPointReport::judge() {
  if (interleaved) floor_pct = interleaved_floor_pct(interleaved->stats, floor_pct);
  verdict = note.empty() ? ab_verdict(stats, higher_is_better, floor_pct) : Verdict::NotComparable;
}

std::vector<AbSuiteGeomean> AbReport::geomeans() const {
  std::vector<AbSuiteGeomean> out;
  std::map<std::string, size_t> at;
  std::vector<std::pair<double, double>> sums;  // Σ ln ratio, Σ ln speed
  for (const auto &p : points) {
    if (!p.stats.ok || !p.note.empty()) continue;
    auto [it, fresh] = at.emplace(p.suite, out.size());
    if (fresh) {
      out.push_back({p.suite});
      sums.emplace_back(0, 0);
    }
    out[it->second].n++;
    sums[it->second].first += p.stats.mean_log;
    sums[it->second].second += p.higher_is_better ? p.stats.mean_log : -p.stats.mean_log;
  }
  for (size_t i = 0; i < out.size(); ++i) {
    out[i].ratio = std::exp(sums[i].first / double(out[i].n));
    out[i].speed_change_pct = std::expm1(sums[i].second / double(out[i].n)) * 100;
  }
  return out;
}

double AbReport::noise_floor_pct() const {
  double f = std::numeric_limits<double>::quiet_NaN();
  for (const auto &p : points)
    if (p.stats.ok && p.note.empty()) {
      double x = control_floor_pct(p.stats);
      f = std::isnan(f) ? x : std::max(f, x);
    }
  return f;
}

double AbReport::worst_regression_pct() const {
  double worst = 0;
  for (const auto &p : points)
    if (p.verdict == Verdict::Slower) worst = std::max(worst, -p.speed_change_pct());
  return worst;
}

std::string ab_regression_message(const AbReport &r, double limit_pct) {
  const AbPointReport *worst = nullptr;
  size_t over = 0;
  for (const auto &p : r.points) {
    if (p.verdict != Verdict::Slower) continue;
    over += -p.speed_change_pct() > limit_pct;
    if (!worst || p.speed_change_pct() < worst->speed_change_pct()) worst = &p;
  }
  if (!worst) return "no regression";
  return regression_message(worst->suite, worst->label, -worst->speed_change_pct(), limit_pct, over ? over - 1 : 0);
}

std::string ab_to_text(const AbReport &r) {
  std::string out = header(r);
  out += fmt::format("{:<28} {:<10} {:>5} {:>8} {:>20} {:>9} {:>9}  {}\n", "point", "metric", "pairs", "B/A",
                     ci_label(r), "±CI", "speed", "verdict");
  for (const auto &p : r.points) {
    std::string name = printable_text(point_name({p.suite, p.label}));
    out += fmt::format("{:<28} {:<10} {:>5} {:>8} {:>20} {:>9} {:>9}  {}{}\n", name, p.metric, p.n_pairs(),
                       p.stats.ok ? fmt_ratio(p.stats.ratio) : "n/a", ci_text(p),
                       p.stats.ok ? fmt_half(p.stats.half_width_pct) : "n/a",
                       p.stats.ok ? signed_pct_text(p.speed_change_pct()) : "n/a", verdict_text(p.verdict),
                       p.note.empty() ? "" : " (" + printable_text(p.note) + ")");
    if (p.interleaved) out += interleaved_text(*p.interleaved, p.floor_pct);
    if (!p.method_note.empty()) out += "  whole turns: " + printable_text(p.method_note) + "\n";
    if (std::string al = p.alignment_note(); !al.empty()) out += "  " + al + "\n";
    for (const std::string &n : p.interference) out += "  " + printable_text(n) + "\n";
    if (r.control && p.stats.ok && p.note.empty())
      out += fmt::format("  noise floor {:.2f}% (max |ratio-1| of one pair {:.2f}%)\n", control_floor_pct(p.stats),
                         std::expm1(p.stats.max_abs_log) * 100);
  }
  for (const auto &g : r.geomeans())
    out += fmt::format("geomean {}: B/A {} ({} speed, {} point{})\n",
                       g.suite.empty() ? "(no suite)" : "'" + printable_text(g.suite) + "'", fmt_ratio(g.ratio),
                       signed_pct_text(g.speed_change_pct), g.n, g.n == 1 ? "" : "s");
  if (r.control)
    out += std::isnan(r.noise_floor_pct()) ? "noise floor: n/a (no point has a ratio)\n"
                                           : fmt::format("noise floor: {:.2f}%\n", r.noise_floor_pct());
  for (const auto &s : r.only_a) out += fmt::format("skipped, only in A: {}\n", printable_text(s));
  for (const auto &s : r.only_b) out += fmt::format("skipped, only in B: {}\n", printable_text(s));
  return out;
}

std::string ab_to_markdown(const AbReport &r) {
  std::string out = fmt::format("**A** = `{}`, **B** = `{}`{}\n\n", markdown_text(r.a), markdown_text(r.b),
                                r.control ? " (control)" : "");
  if (r.turn_value == AbTurnValue::Fast)
    out += "A turn's value is the 90th percentile of its 100 ms intervals, in the metric's better direction "
           "(`--turn-value fast`).\n\n";
  if (!r.timing_note.empty()) out += markdown_text(r.timing_note) + "\n\n";
  out += "| suite | point | metric | pairs | B/A | " + ci_label(r) + " | ±CI | speed | verdict |\n";
  out += "|---|---|---|---:|---:|---|---:|---:|---|\n";
  for (const auto &p : r.points)
    out += fmt::format("| {} | {} | {} | {} | {} | {} | {} | {} | {}{} |\n", markdown_text(p.suite),
                       markdown_text(p.label), markdown_text(p.metric), p.n_pairs(),
                       p.stats.ok ? fmt_ratio(p.stats.ratio) : "n/a", ci_text(p),
                       p.stats.ok ? fmt_half(p.stats.half_width_pct) : "n/a",
                       p.stats.ok ? signed_pct_text(p.speed_change_pct()) : "n/a", verdict_text(p.verdict),
                       p.note.empty() ? "" : " (" + markdown_text(p.note) + ")");
  for (const auto &p : r.points) {
    for (const std::string &n : {p.alignment_note(), p.method_note.empty() ? "" : "whole turns: " + p.method_note})
      if (!n.empty()) out += fmt::format("\n{}: {}\n", markdown_text(point_name({p.suite, p.label})), markdown_text(n));
    for (const std::string &n : p.interference)
      out += fmt::format("\n{}: {}\n", markdown_text(point_name({p.suite, p.label})), markdown_text(n));
  }
  auto g = r.geomeans();
  if (!g.empty()) out += "\n| suite | points | geomean B/A | speed |\n|---|---:|---:|---:|\n";
  for (const auto &s : g)
    out += fmt::format("| {} | {} | {} | {} |\n", markdown_text(s.suite), s.n, fmt_ratio(s.ratio),
                       signed_pct_text(s.speed_change_pct));
  if (r.control)
    out += std::isnan(r.noise_floor_pct()) ? "\nNoise floor: n/a (no point has a ratio)\n"
                                           : fmt::format("\nNoise floor: {:.2f}%\n", r.noise_floor_pct());
  for (const auto &s : r.only_a) out += fmt::format("\nSkipped, only in A: {}\n", markdown_text(s));
  for (const auto &s : r.only_b) out += fmt::format("\nSkipped, only in B: {}\n", markdown_text(s));
  return out;
}

nlohmann::json ab_to_json(const AbReport &r) {
  nlohmann::json points = nlohmann::json::array(), geo = nlohmann::json::array();
  for (const auto &p : r.points) points.push_back(point_json(p));
  for (const auto &g : r.geomeans())
    geo.push_back({{"suite", g.suite},
                   {"n", g.n},
                   {"ratio", json_number(g.ratio)},
                   {"speed_change_pct", json_number(g.speed_change_pct)}});
  nlohmann::json j = {{"bpfbench_ab", 1},
                      {"a", r.a},
                      {"b", r.b},
                      {"control", r.control},
                      {"order", "ABBA"},
                      {"turn_value", to_string(r.turn_value)},
                      {"stop_rule",
                       {{"precision_pct", r.rule.precision_pct},
                        {"min_pairs", r.rule.min_pairs},
                        {"max_pairs", r.rule.max_pairs},
                        {"max_time_s", r.rule.max_time_s}}},
                      {"points", points},
                      {"geomeans", geo},
                      {"only_a", r.only_a},
                      {"only_b", r.only_b}};
  if (!r.timing_note.empty()) j["timing_note"] = r.timing_note;
  if (r.control) {
    j["noise_floor_pct"] = json_number(r.noise_floor_pct());
    nlohmann::json floors = nlohmann::json::object();
    for (const auto &p : r.points)
      if (p.stats.ok && p.note.empty())
        floors[point_name({p.suite, p.label})] = json_number(control_floor_pct(p.stats));
    j["floors"] = floors;
  }
  return j;
}

double floor_for(const std::map<std::string, double> &floors, const AbPointKey &k) {
  if (auto it = floors.find(point_name(k)); it != floors.end()) return it->second;
  if (auto it = floors.find(""); it != floors.end()) return it->second;
  return 0;
}

}  // namespace bpfbench
