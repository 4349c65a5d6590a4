#include "results/report_tables.hpp"

#include <fmt/format.h>

#include "compiler/escape.hpp"

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

}  // namespace

std::string params_text(const nlohmann::json &params) {
  std::string out;
  for (const auto &[k, v] : params.items())
    out += (out.empty() ? "" : " ") + k + "=" + (v.is_string() ? v.get<std::string>() : json_text(v));
  return out;
}

std::string results_to_csv(const ResultSet &rs) {
  std::string out = "suite,label,family,program,params,status,metric,unit,n,mean,stddev,median,min,max,cv,"
                    "ci95,ci95_rel,outliers,reason\n";
  for (const auto &p : rs.points) {
    std::string head = fmt::format("{},{},{},{},{},{}", csv_field(p.suite), csv_field(p.label), csv_field(p.family),
                                   csv_field(p.program), csv_field(params_text(p.params)), p.status);
    if (p.metrics.empty()) {
      out += head + ",,,,,,,,,,,,," + csv_field(p.reason) + "\n";
      continue;
    }
    for (const auto &m : p.metrics) {
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
    const MetricSummary *m = primary_of(p);
    std::vector<std::string> notes;
    if (p.status != "ok") notes.push_back(p.status + (p.reason.empty() ? "" : ": " + p.reason));
    if (p.precision_pct > 0)
      notes.push_back(fmt::format("until ci < {}%: {}{}", p.precision_pct,
                                  p.precision_reached ? "reached" : "not reached",
                                  p.precision_note.empty() ? "" : " (" + p.precision_note + ")"));
    if (m && !m->outliers.empty()) notes.push_back(fmt::format("outliers: {}", join_indices(m->outliers)));
    for (const auto &w : p.warnings) notes.push_back(w);
    if (m && !m->has_value()) notes.insert(notes.begin(), m->name + ": no value: " + m->no_value);
    std::string note = markdown_text(fmt::format("{}", fmt::join(notes, "; ")));
    if (!m || p.status == "skipped" || p.status == "failed") {
      out += fmt::format("| {} | | | | | | {} |\n", markdown_text(p.label), note);
      continue;
    }
    std::string metric = markdown_text(m->name + " (" + m->unit + ")");
    if (!m->has_value()) {
      out += fmt::format("| {} | {} | n/a | | | {} | {} |\n", markdown_text(p.label), metric, m->n, note);
      continue;
    }
    out += fmt::format("| {} | {} | {:.3f} | {:.3f} ({:.2f}%) | {:.2f}% | {} | {} |\n", markdown_text(p.label), metric,
                       m->mean, m->ci95, m->rel_ci() * 100, m->cv * 100, m->n, note);
  }
  return out;
}

}  // namespace bpfbench
