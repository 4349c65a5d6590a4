#include "results/compare.hpp"

#include <fmt/format.h>

#include <cmath>
#include <limits>
#include <map>
#include <set>

#include "util/escape.hpp"
#include "results/json_values.hpp"
#include "results/report_tables.hpp"
#include "results/stat_math.hpp"

namespace bpfbench {

const char *to_string(Verdict v) {
  switch (v) {
  case Verdict::Faster: return "faster";
  case Verdict::Slower: return "slower";
  case Verdict::NoChange: return "no change";
  case Verdict::NotComparable: return "not comparable";
  case Verdict::Drift: return "drift";
  case Verdict::Noisy: return "noisy";
  }
  return "?";
}

double CompareReport::worst_regression_pct() const {
  const PointComparison *w = worst_regression();
  return w ? -w->speed_change_pct : 0;
}

const PointComparison *CompareReport::worst_regression() const {
  const PointComparison *worst = nullptr;
  for (const auto &p : points)
    if (p.verdict == Verdict::Slower && !p.absolute && (!worst || p.speed_change_pct < worst->speed_change_pct))
      worst = &p;
  return worst;
}

std::string regression_message(const std::string &suite, const std::string &label, double pct, double limit_pct,
                               size_t others_over) {
  std::string where = suite.empty() ? "" : fmt::format(" (suite '{}')", suite);
  std::string more = others_over == 0 ? ""
                                      : fmt::format("; {} other point{} over the limit", others_over,
                                                    others_over == 1 ? " is" : "s are");
  return printable_text(
      fmt::format("regression: point '{}'{} is {:.2f}% slower (limit {}%){}", label, where, pct, limit_pct, more));
}

std::string signed_pct_text(double v) { return std::isfinite(v) ? fmt::format("{:+.2f}%", v) : "n/a"; }

std::vector<std::string> param_differences(const nlohmann::json &a, const nlohmann::json &b) {
  auto show = [](const nlohmann::json &v) { return v.is_string() ? v.get<std::string>() : json_text(v); };
  std::vector<std::string> out;
  for (const auto &[k, v] : a.items()) {
    if (!b.contains(k)) out.push_back(fmt::format("{}: {} -> (none)", k, show(v)));
    else if (b[k] != v) out.push_back(fmt::format("{}: {} -> {}", k, show(v), show(b[k])));
  }
  for (const auto &[k, v] : b.items())
    if (!a.contains(k)) out.push_back(fmt::format("{}: (none) -> {}", k, show(v)));
  return out;
}

namespace {

bool has_numbers(const ResultPoint &p) { return p.status == "ok" || p.status == "interrupted"; }

std::string pick_metric(const ResultPoint &a, const CompareOptions &o) {
  if (!o.metric.empty()) return o.metric;
  if (!a.primary.empty()) return a.primary;
  return a.report.empty() ? "hits" : a.report.front();
}

// What differs between A's and B's point apart from the metric: params, program, the
// verifier's and JIT's facts, a status without numbers. Each goes to the notes.
void note_differences(PointComparison &c, const ResultPoint &a, const ResultPoint &b) {
  c.param_diffs = param_differences(a.params, b.params);
  if (!c.param_diffs.empty()) c.notes.push_back(fmt::format("params differ: {}", fmt::join(c.param_diffs, ", ")));
  if (!a.program_sha256.empty() && !b.program_sha256.empty() && a.program_sha256 != b.program_sha256)
    c.notes.push_back("generated program changed");
  // The verifier or the JIT saw another program: a change in speed may be that.
  c.facts_changed = prog_facts_changes(a.prog_facts, b.prog_facts);
  for (const auto &f : c.facts_changed) c.notes.push_back(f);
  if (!has_numbers(a)) c.notes.push_back(fmt::format("{} in A: {}", a.status, a.reason));
  if (!has_numbers(b)) c.notes.push_back(fmt::format("{} in B: {}", b.status, b.reason));
}

// A's mean within its own CI of 0: the change is B - A, with no relative change.
void judge_absolute(PointComparison &c, const WelchResult &w, bool untested, const CompareOptions &o) {
  constexpr double kNaN = std::numeric_limits<double>::quiet_NaN();
  c.absolute = true;
  c.change_pct = c.change_ci_low = c.change_ci_high = c.speed_change_pct = kNaN;
  c.notes.push_back("A's 95% CI spans 0: absolute change B - A, no relative change, not in the geomean");
  bool better = c.higher_is_better ? c.diff > 0 : c.diff < 0;
  c.verdict = untested               ? Verdict::NotComparable
              : w.p_value >= o.alpha ? Verdict::NoChange
              : better               ? Verdict::Faster
                                     : Verdict::Slower;
}

// The change relative to A's mean, and the verdict: significant and at least
// --min-change, in the direction the family calls better.
void judge_relative(PointComparison &c, const WelchResult &w, bool untested, const CompareOptions &o) {
  // The CI of the relative change treats A's mean as exact (the usual approximation).
  c.change_pct = w.diff / std::fabs(c.mean_a) * 100;
  c.change_ci_low = w.ci_low / std::fabs(c.mean_a) * 100;
  c.change_ci_high = w.ci_high / std::fabs(c.mean_a) * 100;
  double ratio = c.mean_b / c.mean_a;
  double speed = c.higher_is_better ? ratio : (ratio != 0 ? 1 / ratio : 0);
  c.speed_change_pct = (speed - 1) * 100;
  bool significant = w.p_value < o.alpha && std::fabs(c.change_pct) >= o.min_change_pct;
  c.verdict = untested                 ? Verdict::NotComparable
              : !significant           ? Verdict::NoChange
              : c.speed_change_pct > 0 ? Verdict::Faster
                                       : Verdict::Slower;
}

// Both sides have the metric's value: Welch's test on the means, then the verdict.
void judge(PointComparison &c, const MetricSummary &ma, const MetricSummary &mb, const CompareOptions &o) {
  c.unit = ma.unit;
  c.higher_is_better = ma.higher_is_better;  // the family's `better`, kept in the results
  c.mean_a = ma.mean, c.mean_b = mb.mean, c.ci_a = ma.ci95, c.ci_b = mb.ci95;
  c.n_a = ma.n, c.n_b = mb.n;
  // A side measured in rounds is tested on its round means (run-to-run variation
  // included); a single run on its intervals.
  auto [sd_a, n_a] = mean_basis(ma);
  auto [sd_b, n_b] = mean_basis(mb);
  WelchResult w = welch_t_test(ma.mean, sd_a, n_a, mb.mean, sd_b, n_b);
  c.diff = w.diff, c.diff_ci_low = w.ci_low, c.diff_ci_high = w.ci_high;
  c.p_value = w.p_value;
  // One sample has no spread: the change stays in the JSON, but there is no test, so no verdict
  // (before, p = 1 made it "no change", which reads as a measured result).
  const bool untested = n_a < 2 || n_b < 2;
  if (untested) c.notes.push_back("fewer than 2 samples: no test, no verdict");
  if (std::fabs(c.mean_a) <= c.ci_a)
    judge_absolute(c, w, untested, o);
  else
    judge_relative(c, w, untested, o);
}

// `drift` set: --normalize scales B's metric by the calibration ratio before it is judged.
PointComparison compare_point(const ResultPoint &a, const ResultPoint &b, const CompareOptions &o,
                              const DriftCheck *drift) {
  PointComparison c;
  c.suite = a.suite;
  c.label = a.label;
  c.params = params_text(a.params);
  c.metric = pick_metric(a, o);
  note_differences(c, a, b);
  const MetricSummary *ma = a.metric(c.metric), *mb = b.metric(c.metric);
  if (!has_numbers(a) || !has_numbers(b)) return c;
  MetricSummary scaled;
  if (drift && ma && mb && mb->has_value()) {
    double f = normalize_factor(*drift, ma->higher_is_better);
    scaled = scale_metric(*mb, f);
    mb = &scaled;
    c.notes.push_back(normalize_note(*drift, f));
  }
  if (!ma || !mb || ma->n == 0 || mb->n == 0) {
    c.notes.push_back(fmt::format("metric '{}' missing", c.metric));
    return c;
  }
  for (auto [m, side] : {std::pair(ma, "A"), std::pair(mb, "B")})
    if (!m->has_value()) c.notes.push_back(fmt::format("no {} in {}: {}", c.metric, side, m->no_value));
  if (!ma->has_value() || !mb->has_value()) return c;
  judge(c, *ma, *mb, o);
  return c;
}

// The drift guard on a judged point: what ran beside A's or B's point (another bpfbench,
// busy measured CPUs, foreign programs on its hooks), busy CPUs, or a calibration that
// moved more than the point's CI, replace faster / slower / no change.
void guard_point(PointComparison &c, const ResultPoint &a, const ResultPoint &b, const CompareOptions &o,
                 const DriftCheck &d) {
  if (c.verdict == Verdict::NotComparable) return;
  for (const auto &[side, p] : {std::pair{"A", &a}, std::pair{"B", &b}})
    if (!p->interference.empty()) {
      c.notes.push_back(fmt::format("during {}: {}", side, p->interference));
      c.verdict = Verdict::Noisy;
    }
  if (c.verdict == Verdict::Noisy) return;
  if (auto why = noise_note(a.noise, b.noise, o.noise_threshold_pct)) {
    c.notes.push_back(*why);
    c.verdict = Verdict::Noisy;
    return;
  }
  if (o.normalize && d.unstable.empty()) return;
  double half = c.absolute ? 0 : (c.change_ci_high - c.change_ci_low) / 2;
  if (auto why = drift_note(d, half, !c.absolute)) {
    c.notes.push_back(*why);
    c.verdict = Verdict::Drift;
  }
}

bool judged(Verdict v) { return v == Verdict::Faster || v == Verdict::Slower || v == Verdict::NoChange; }

std::string fmt_abs(double v) { return std::isfinite(v) ? fmt::format("{:+.3f}", v) : "n/a"; }

// The change column and its CI: relative, or B - A in the unit when there is none.
std::pair<std::string, std::string> change_cells(const PointComparison &p) {
  if (p.absolute)
    return {fmt_abs(p.diff), fmt::format("[{}, {}]{}", fmt_abs(p.diff_ci_low), fmt_abs(p.diff_ci_high),
                                         p.unit.empty() ? "" : " " + p.unit)};
  return {signed_pct_text(p.change_pct),
          fmt::format("[{}, {}]", signed_pct_text(p.change_ci_low), signed_pct_text(p.change_ci_high))};
}

std::string geomean_text(const SuiteGeomean &g) {
  std::string out = g.n == 0 ? "no geometric mean"
                             : fmt::format("geometric mean over {} point{}: {} speed", g.n, g.n == 1 ? "" : "s",
                                           signed_pct_text(g.speed_change_pct));
  if (g.left_out > 0)
    out += fmt::format(" ({} point{} left out: A's CI spans 0)", g.left_out, g.left_out == 1 ? "" : "s");
  if (g.not_judged > 0)
    out += fmt::format(" ({} drift/noisy point{} left out)", g.not_judged, g.not_judged == 1 ? "" : "s");
  return out;
}

}  // namespace

std::vector<std::string> metric_names(const ResultSet &rs) {
  std::set<std::string> names;
  for (const auto &p : rs.points)
    for (const auto &m : p.metrics) names.insert(m.name);
  return {names.begin(), names.end()};
}

CompareReport compare_results(const ResultSet &a, const ResultSet &b, const CompareOptions &o) {
  CompareReport c;
  c.path_a = a.path;
  c.path_b = b.path;
  c.env_diffs = environment_differences(a.env, b.env);
  c.drift = check_drift(a.calibration, b.calibration, o.drift_threshold_pct);
  c.normalized = o.normalize && c.drift.known && c.drift.unstable.empty();
  if (a.file_sha256 != b.file_sha256)
    c.env_diffs.push_back(
        fmt::format(".bdsl sha256: {} -> {}", a.file_sha256.substr(0, 12), b.file_sha256.substr(0, 12)));
  auto key = [&](const ResultPoint &p) { return o.match_by_label ? p.suite + "\x1f" + p.label : p.key(); };
  std::map<std::string, const ResultPoint *> in_b;
  for (const auto &p : b.points) in_b.try_emplace(key(p), &p);
  std::map<std::string, bool> matched;
  struct Acc {
    double logsum = 0;  // Σ log speed
    size_t n = 0, left_out = 0, not_judged = 0;
  };
  std::map<std::string, Acc> acc;
  std::vector<std::string> suite_order;
  for (const auto &pa : a.points) {
    auto it = in_b.find(key(pa));
    if (it == in_b.end() || matched.count(key(pa))) {
      c.only_a.push_back(pa.label);
      continue;
    }
    matched[key(pa)] = true;
    PointComparison pc = compare_point(pa, *it->second, o, c.normalized ? &c.drift : nullptr);
    guard_point(pc, pa, *it->second, o, c.drift);
    if (pc.verdict != Verdict::NotComparable && (pc.absolute || pc.speed_change_pct > -100)) {
      auto [s, fresh] = acc.try_emplace(pc.suite);
      if (fresh) suite_order.push_back(pc.suite);
      if (!judged(pc.verdict)) {
        s->second.not_judged += 1;
      } else if (pc.absolute) {
        s->second.left_out += 1;
      } else {
        s->second.logsum += std::log1p(pc.speed_change_pct / 100);
        s->second.n += 1;
      }
    }
    c.points.push_back(std::move(pc));
  }
  for (const auto &pb : b.points)
    if (!matched.count(key(pb)) || in_b[key(pb)] != &pb) c.only_b.push_back(pb.label);
  for (const auto &s : suite_order) {
    const Acc &x = acc[s];
    double speed = x.n > 0 ? std::expm1(x.logsum / double(x.n)) * 100 : std::numeric_limits<double>::quiet_NaN();
    c.geomeans.push_back(SuiteGeomean{s, x.n, speed, x.left_out, x.not_judged});
  }
  return c;
}

std::string compare_to_text(const CompareReport &c) {
  std::string out = fmt::format("A: {}\nB: {}\n", c.path_a, c.path_b);
  if (!c.env_diffs.empty()) {
    out += "Environment differences (numbers may not be comparable):\n";
    for (const auto &d : c.env_diffs) out += "  ! " + d + "\n";
  }
  for (const auto &l : c.drift.lines) out += l + "\n";
  std::string suite = "\x01";
  auto geomean_row = [&](const std::string &s) {
    for (const auto &g : c.geomeans)
      if (g.suite == s) out += fmt::format("{:<24} {}\n", "", geomean_text(g));
  };
  for (const auto &p : c.points) {
    if (p.suite != suite) {
      if (suite != "\x01") geomean_row(suite);
      suite = p.suite;
      out += fmt::format("\n==== {} ====\n", suite.empty() ? "(no suite)" : suite);
      out += fmt::format("{:<24} {:<10} {:>20} {:>20} {:>9} {:>20} {:>7}  {}\n", "point", "metric", "A (±95% CI)",
                         "B (±95% CI)", "change", "95% CI of change", "p", "verdict");
    }
    if (p.verdict == Verdict::NotComparable) {
      out += fmt::format("{:<24} {:<10} {}\n", p.label, p.metric, fmt::join(p.notes, "; "));
      continue;
    }
    auto [change, ci] = change_cells(p);
    out += fmt::format("{:<24} {:<10} {:>12.3f} ± {:<5.3f} {:>12.3f} ± {:<5.3f} {:>9} {:>20} {:>7.4f}  {}{}\n", p.label,
                       p.metric, p.mean_a, p.ci_a, p.mean_b, p.ci_b, change, ci, p.p_value, to_string(p.verdict),
                       p.notes.empty() ? "" : fmt::format(" ({})", fmt::join(p.notes, "; ")));
  }
  if (suite != "\x01") geomean_row(suite);
  if (!c.only_a.empty()) out += fmt::format("\nonly in A: {}\n", fmt::join(c.only_a, ", "));
  if (!c.only_b.empty()) out += fmt::format("only in B: {}\n", fmt::join(c.only_b, ", "));
  // Labels and notes come from other people's files: no terminal escape sequences.
  return printable_text(out, /*keep_newlines=*/true);
}

std::string compare_to_markdown(const CompareReport &c) {
  auto md = [](const std::string &s) { return markdown_text(s); };
  std::string out = fmt::format("# bpfbench compare\n\nA: {}  \nB: {}\n", md(c.path_a), md(c.path_b));
  if (!c.env_diffs.empty()) {
    out += "\n**Environment differences:**\n\n";
    for (const auto &d : c.env_diffs) out += "- " + md(d) + "\n";
  }
  if (!c.drift.lines.empty()) out += "\n";
  for (const auto &l : c.drift.lines) out += md(l) + "  \n";
  std::string suite = "\x01";
  for (const auto &p : c.points) {
    if (p.suite != suite) {
      suite = p.suite;
      out += fmt::format("\n## {}\n\n| point | metric | A | B | change | 95% CI | p | verdict |\n"
                         "|---|---|---:|---:|---:|---:|---:|---|\n",
                         suite.empty() ? "(no suite)" : md(suite));
      for (const auto &g : c.geomeans)
        if (g.suite == suite)
          out += fmt::format("| **geomean** ({} points) | speed | | | {} | | | {} |\n", g.n,
                             signed_pct_text(g.speed_change_pct), g.left_out > 0 ? md(geomean_text(g)) : "");
    }
    std::string notes = p.notes.empty() ? "" : md(fmt::format(" ({})", fmt::join(p.notes, "; ")));
    if (p.verdict == Verdict::NotComparable) {
      out += fmt::format("| {} | {} | | | | | | not comparable{} |\n", md(p.label), md(p.metric), notes);
      continue;
    }
    auto [change, ci] = change_cells(p);
    out += fmt::format("| {} | {} | {:.3f} ± {:.3f} | {:.3f} ± {:.3f} | {} | {} | {:.4f} | {}{} |\n", md(p.label),
                       md(p.metric), p.mean_a, p.ci_a, p.mean_b, p.ci_b, md(change), md(ci), p.p_value,
                       to_string(p.verdict), notes);
  }
  return out;
}

nlohmann::json compare_to_json(const CompareReport &c) {
  nlohmann::json pts = nlohmann::json::array(), geo = nlohmann::json::array();
  for (const auto &p : c.points)
    pts.push_back({{"suite", p.suite},
                   {"label", p.label},
                   {"params", p.params},
                   {"metric", p.metric},
                   {"unit", p.unit},
                   {"higher_is_better", p.higher_is_better},
                   {"a", {{"mean", p.mean_a}, {"ci95", p.ci_a}, {"n", p.n_a}}},
                   {"b", {{"mean", p.mean_b}, {"ci95", p.ci_b}, {"n", p.n_b}}},
                   {"relative", !p.absolute},
                   {"diff", json_number(p.diff)},
                   {"diff_ci95", {json_number(p.diff_ci_low), json_number(p.diff_ci_high)}},
                   {"change_pct", json_number(p.change_pct)},
                   {"change_ci95_pct", {json_number(p.change_ci_low), json_number(p.change_ci_high)}},
                   {"p_value", json_number(p.p_value)},
                   {"speed_change_pct", json_number(p.speed_change_pct)},
                   {"verdict", to_string(p.verdict)},
                   {"param_differences", p.param_diffs},
                   {"notes", p.notes},
                   {"facts_changed", p.facts_changed}});
  for (const auto &g : c.geomeans)
    geo.push_back({{"suite", g.suite},
                   {"points", g.n},
                   {"speed_change_pct", json_number(g.speed_change_pct)},
                   {"left_out", g.left_out},
                   {"not_judged", g.not_judged}});
  return {{"schema", "bpfbench-compare/1"},
          {"a", c.path_a},
          {"b", c.path_b},
          {"environment_differences", c.env_diffs},
          {"calibration", c.drift.known ? nlohmann::json{{"ratio", c.drift.ratio},
                                                         {"ci95_pct", c.drift.ci_pct},
                                                         {"drift", c.drift.drifted},
                                                         {"unstable", c.drift.unstable},
                                                         {"normalized", c.normalized},
                                                         {"notes", c.drift.lines}}
                                        : nlohmann::json{{"notes", c.drift.lines}}},
          {"points", pts},
          {"geomeans", geo},
          {"only_in_a", c.only_a},
          {"only_in_b", c.only_b},
          {"worst_regression_pct", c.worst_regression_pct()}};
}

}  // namespace bpfbench
