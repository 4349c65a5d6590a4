#include "results/report_tables.hpp"

#include <fmt/format.h>

#include <algorithm>

#include "util/escape.hpp"

namespace bpfbench {

namespace {

std::string join_indices(const std::vector<size_t> &v) {
  std::string out;
  for (size_t i = 0; i < v.size(); ++i) out += (i ? " " : "") + std::to_string(v[i]);
  return out;
}

const MetricSummary *primary_of(const ResultPoint &p) {
  if (const MetricSummary *m = p.metric(p.primary)) return m;
  if (!p.report.empty())
    if (const MetricSummary *m = p.metric(p.report.front())) return m;
  return p.metric("hits");
}

// The point's reported metrics in report order (a baseline's `_adj` right after what it
// adjusts, then `prog_ns` when run-time stats were on), the primary one when the report
// names none the file holds; with `all`, then every other metric of its stats.
std::vector<const MetricSummary *> metrics_of(const ResultPoint &p, bool all) {
  std::vector<const MetricSummary *> out;
  auto add = [&](const MetricSummary *m) {
    if (m && std::find(out.begin(), out.end(), m) == out.end()) out.push_back(m);
  };
  for (const auto &name : p.report) add(p.metric(name));
  if (out.empty()) add(primary_of(p));
  if (all)
    for (const auto &m : p.metrics) add(&m);
  return out;
}

// What a metric's outliers are, in words: indices read as counts ("outliers: 0").
std::string outlier_note(const MetricSummary &m) {
  if (m.outliers.empty()) return "outliers: none";
  std::vector<std::string> which;
  for (size_t i : m.outliers) which.push_back("#" + std::to_string(i));
  return fmt::format("{} {} (of #0–#{})",
                     which.size() == 1 ? "outlier sample:" : "outlier samples:", fmt::join(which, ", "),
                     m.n > 0 ? m.n - 1 : 0);
}

// Notes about the whole point: its status, the adaptive outcome, what it is, warnings.
std::vector<std::string> point_notes(const ResultPoint &p) {
  std::vector<std::string> notes;
  if (p.status != "ok") notes.push_back(p.status + (p.reason.empty() ? "" : ": " + p.reason));
  if (p.precision_pct > 0)
    notes.push_back(fmt::format("until ci < {}%: {}{}", p.precision_pct,
                                p.precision_reached ? "reached" : "not reached",
                                p.precision_note.empty() ? "" : " (" + p.precision_note + ")"));
  if (p.is_baseline) notes.push_back("baseline point: subtracted in its main point's _adj rows");
  for (const auto &w : p.warnings) notes.push_back(w);
  return notes;
}

// One row: `label` and `notes` (the point's, on its first row), the metric's numbers and
// its own notes.
std::string markdown_row(const std::string &label, const MetricSummary &m, std::vector<std::string> notes) {
  if (!m.has_value()) notes.insert(notes.begin(), m.name + ": no value: " + m.no_value);
  else notes.insert(notes.begin(), outlier_note(m));
  std::string note = markdown_text(fmt::format("{}", fmt::join(notes, "; ")));
  std::string metric = markdown_text(m.name + " (" + m.unit + ")");
  if (!m.has_value()) return fmt::format("| {} | {} | n/a | | | {} | {} |\n", markdown_text(label), metric, m.n, note);
  return fmt::format("| {} | {} | {:.3f} | {:.3f} ({:.2f}%) | {:.2f}% | {} | {} |\n", markdown_text(label), metric,
                     m.mean, m.ci95, m.rel_ci() * 100, m.cv * 100, m.n, note);
}

}  // namespace

std::string params_text(const nlohmann::json &params) {
  std::string out;
  for (const auto &[k, v] : params.items())
    out += (out.empty() ? "" : " ") + k + "=" + (v.is_string() ? v.get<std::string>() : json_text(v));
  return out;
}

std::string results_to_csv(const ResultSet &rs) {
  std::string out = "suite,label,family,program,params,status,metric,unit,n,mean,stddev,median,min,max,cv,"
                    "ci95,ci95_rel,outlier_samples,reason\n";
  for (const auto &p : rs.points) {
    std::string head = fmt::format("{},{},{},{},{},{}", csv_field(p.suite), csv_field(p.label), csv_field(p.family),
                                   csv_field(p.program), csv_field(params_text(p.params)), p.status);
    if (p.metrics.empty()) {
      out += head + ",,,,,,,,,,,,," + csv_field(p.reason) + "\n";
      continue;
    }
    for (const MetricSummary *mp : metrics_of(p, true)) {
      const MetricSummary &m = *mp;
      std::string id = fmt::format("{},{},{},{}", head, csv_field(m.name), csv_field(m.unit), m.n);
      if (!m.has_value()) {  // empty numbers, the reason in the reason column
        out += id + ",,,,,,,,,," + csv_field("no value: " + m.no_value) + "\n";
        continue;
      }
      out +=
          fmt::format("{},{:.6g},{:.6g},{:.6g},{:.6g},{:.6g},{:.6g},{:.6g},{:.6g},{},{}\n", id, m.mean, m.stddev,
                      m.median, m.min, m.max, m.cv, m.ci95, m.rel_ci(), join_indices(m.outliers), csv_field(p.reason));
    }
  }
  return out;
}

std::string results_to_markdown(const ResultSet &rs) {
  const Environment &e = rs.env;
  auto md = [](const std::string &s) { return markdown_text(s); };
  std::string out = fmt::format("# bpfbench results: {}\n\n", md(rs.file));
  out += fmt::format("Kernel {} · {} × {} · SMT {} · governor {} · JIT {} · bpf_stats {} · {} · libbpf {}{}\n",
                     md(e.kernel_release), e.nr_cpus, md(e.cpu_model), md(e.smt), md(e.governor), md(e.jit_enable),
                     md(e.bpf_stats), md(e.clang), md(e.libbpf), rs.complete ? "" : " · **incomplete run**");
  std::string suite = "\x01";
  for (const auto &p : rs.points) {
    if (p.suite != suite) {
      suite = p.suite;
      out += fmt::format("\n## {}\n\n", suite.empty() ? "(no suite)" : markdown_text(suite));
      out += "| point | metric | mean | ± 95% CI | CV | samples | notes |\n";
      out += "|---|---|---:|---:|---:|---:|---|\n";
    }
    std::vector<std::string> notes = point_notes(p);
    std::vector<const MetricSummary *> metrics = metrics_of(p, false);
    if (metrics.empty() || p.status == "skipped" || p.status == "failed") {
      out += fmt::format("| {} | | | | | | {} |\n", markdown_text(p.label),
                         markdown_text(fmt::format("{}", fmt::join(notes, "; "))));
      continue;
    }
    for (const MetricSummary *m : metrics) {  // the point's notes once, on its first row
      out += markdown_row(p.label, *m, notes);
      notes.clear();
    }
  }
  return out;
}

}  // namespace bpfbench
