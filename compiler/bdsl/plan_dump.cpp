#include "compiler/bdsl/plan_dump.hpp"

#include <fmt/format.h>

#include "util/escape.hpp"

namespace bpfbench {

void write_plan_text(const RunPlan &plan, const PlanSink &out, const PlanExtras &extras) {
  out(fmt::format("plan for {}: {} point{}\n", plan.file, plan.points.size(), plan.points.size() == 1 ? "" : "s"));
  std::string suite;
  std::string line;
  for (const auto &p : plan.points) {
    if (p.suite != suite) {
      suite = p.suite;
      if (!suite.empty()) out(fmt::format("suite \"{}\"\n", printable_text(suite)));
    }
    // The file's index (as `emit --point` takes it), also after --only kept some points.
    line = fmt::format("  [{:>3}] {:<24} {} prog={} warmup={} duration={} producers={} consumers={}", p.file_index,
                       printable_text(p.label), p.family, p.program, format_duration_ns(p.warmup_ns),
                       format_duration_ns(p.duration_ns), p.producers, p.consumers);
    if (p.precision_pct > 0)
      line += fmt::format(" until_ci<{}% (min {} max {})", p.precision_pct, format_duration_ns(p.min_duration_ns),
                          format_duration_ns(p.max_duration_ns));
    if (p.interval_ns != 1'000'000'000) line += fmt::format(" interval={}", format_duration_ns(p.interval_ns));
    if (p.rounds > 1) line += fmt::format(" rounds={}", p.rounds);
    if (p.affinity) line += " affinity";
    if (!p.prod_cpus.empty()) line += fmt::format(" prod_cpus={}", p.prod_cpus);
    if (!p.cons_cpus.empty()) line += fmt::format(" cons_cpus={}", p.cons_cpus);
    for (const auto &[name, v] : p.params) line += fmt::format(" {}={}", name, v.to_string());
    if (p.baseline) line += fmt::format(" baseline=[{}]", plan.points.at(*p.baseline).file_index);
    for (const auto &e : p.expectations) line += fmt::format(" expect({})", e.text);
    for (const auto &c : p.code) line += fmt::format(" code:{}({} bytes)", c.hook, c.text.size());
    line += fmt::format(" report={}\n", fmt::join(p.report, ","));
    if (extras.text) line += extras.text(p);
    out(line);
  }
}

std::string plan_to_text(const RunPlan &plan) {
  std::string out;
  write_plan_text(plan, [&out](const std::string &s) { out += s; });
  return out;
}

nlohmann::json point_identity_json(const PlanPoint &p) {
  nlohmann::json params = nlohmann::json::object();
  for (const auto &[name, v] : p.params) {
    if (v.is_int) params[name] = v.i;
    else params[name] = v.s;
  }
  nlohmann::json j = {
      {"index", p.index},   {"label", p.label},     {"suite", p.suite},
      {"family", p.family}, {"program", p.program}, {"params", std::move(params)},
  };
  if (p.is_baseline) j["is_baseline"] = true;
  return j;
}

nlohmann::json point_to_json(const PlanPoint &p, const SourceManager &sm) {
  nlohmann::json j = point_identity_json(p);
  j.update({
      {"bench_index", p.bench_index},
      {"warmup_ns", p.warmup_ns},
      {"duration_ns", p.duration_ns},
      {"producers", p.producers},
      {"consumers", p.consumers},
      {"affinity", p.affinity},
      {"prod_cpus", p.prod_cpus},
      {"cons_cpus", p.cons_cpus},
      {"report", p.report},
      {"interval_ns", p.interval_ns},
      {"rounds", p.rounds},
  });
  if (p.baseline) j["baseline"] = *p.baseline;
  if (!p.expectations.empty()) {
    nlohmann::json ex = nlohmann::json::array();
    for (const auto &e : p.expectations)
      ex.push_back({{"metric", e.metric}, {"op", e.op}, {"value", e.value}, {"text", e.text}});
    j["expect"] = ex;
  }
  if (!p.code.empty()) {
    nlohmann::json code = nlohmann::json::array();
    for (const auto &c : p.code) code.push_back({{"hook", c.hook}, {"text", c.text}});
    j["code"] = code;
  }
  if (p.precision_pct > 0)
    j["until"] = {
        {"ci_pct", p.precision_pct}, {"min_duration_ns", p.min_duration_ns}, {"max_duration_ns", p.max_duration_ns}};
  if (p.bench_range.valid() && p.bench_range.file < sm.size())
    j["location"] = fmt::format("{}:{}:{}", sm.file(p.bench_range.file).path, p.bench_range.line, p.bench_range.col);
  return j;
}

std::string point_title(const PlanPoint &p, const SourceManager &sm) {
  std::string out = fmt::format("point {} '{}'", p.file_index, printable_text(p.label));
  if (!p.suite.empty()) out += fmt::format(" in suite \"{}\"", printable_text(p.suite));
  out += fmt::format(" of bench {} {}", p.bench_index, p.family);
  if (p.bench_range.valid() && p.bench_range.file < sm.size())
    out += fmt::format(" ({}:{}:{})", printable_text(sm.file(p.bench_range.file).path), p.bench_range.line,
                       p.bench_range.col);
  out += fmt::format(": prog={}", printable_text(p.program));
  for (const auto &[name, v] : p.params) out += fmt::format(" {}={}", name, printable_text(v.to_string()));
  return out;
}

nlohmann::json plan_to_json(const RunPlan &plan, const SourceManager &sm) {
  nlohmann::json points = nlohmann::json::array();
  for (const auto &p : plan.points) points.push_back(point_to_json(p, sm));
  return {{"schema", "bpfbench-plan/1"}, {"file", plan.file}, {"points", points}};
}

// The layout of plan_to_json(...).dump(2), one point at a time: a point's own dump(2)
// indented by two levels is exactly its text inside the document (JSON strings hold no
// raw newline), so the whole plan never has to exist as one nlohmann document.
void write_plan_json(const RunPlan &plan, const SourceManager &sm, const PlanSink &out, const PlanExtras &extras) {
  constexpr auto kReplace = nlohmann::json::error_handler_t::replace;  // bad UTF-8 is not fatal
  out("{\n  \"file\": " + nlohmann::json(plan.file).dump(-1, ' ', false, kReplace) + ",\n  \"points\": [");
  std::string text;
  for (size_t i = 0; i < plan.points.size(); ++i) {
    nlohmann::json point = point_to_json(plan.points[i], sm);
    if (extras.json) extras.json(plan.points[i], point);
    std::string one = point.dump(2, ' ', false, kReplace);
    text.assign(i == 0 ? "\n    " : ",\n    ");
    for (char c : one) {
      text.push_back(c);
      if (c == '\n') text.append(4, ' ');
    }
    out(text);
  }
  out(plan.points.empty() ? "],\n" : "\n  ],\n");
  out("  \"schema\": \"bpfbench-plan/1\"\n}");
}

}  // namespace bpfbench
