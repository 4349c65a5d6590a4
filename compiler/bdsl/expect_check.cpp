// Expectations are on what a point reports, so the names and units here follow
// runtime/stats.cpp: family metrics, total_ops, the derived latency and baseline `_adj`.
#include "compiler/bdsl/expect_check.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cmath>

namespace bpfbench {

namespace {

bool reported(const CheckedBench &cb, const std::string &m) {
  return std::find(cb.report.begin(), cb.report.end(), m) != cb.report.end();
}

// The unit `metric` is reported in, or "" when the bench has no such metric.
std::string metric_unit(const CheckedBench &cb, const std::string &name) {
  const FamilyManifest &f = *cb.family;
  if (const MetricSpec *m = f.metric(name)) return reported_unit(*m);
  if (name == "total_ops") return "M/s";
  if (name == "latency" && f.throughput_metric()) return "ns/op";
  // runtime/baseline.cpp adds `<m>_adj` for reported ns/op metrics of benches with a baseline.
  const std::string adj = "_adj";
  if (cb.baseline && name.size() > adj.size() && name.compare(name.size() - adj.size(), adj.size(), adj) == 0) {
    std::string base = name.substr(0, name.size() - adj.size());
    if (reported(cb, base) && metric_unit(cb, base) == "ns/op") return "ns/op";
  }
  return "";
}

std::vector<std::string> metric_names(const CheckedBench &cb) {
  std::vector<std::string> out;
  for (const auto &m : cb.family->metrics) out.push_back(m.name);
  out.push_back("total_ops");
  if (cb.family->derives_latency()) out.push_back("latency");
  return out;
}

// Scale of a unit suffix for a metric reported in `unit`; nullopt when it does not fit.
std::optional<double> suffix_scale(const std::string &unit, const std::string &suffix) {
  if (suffix.empty()) return 1.0;
  if (unit == "M/s") {
    if (suffix == "K") return 1e-3;
    if (suffix == "M") return 1.0;
    if (suffix == "G") return 1e3;
  } else if (unit.rfind("ns", 0) == 0) {
    if (suffix == "ns") return 1.0;
    if (suffix == "us") return 1e3;
    if (suffix == "ms") return 1e6;
    if (suffix == "s") return 1e9;
  } else if (unit == suffix) {
    return 1.0;
  }
  return std::nullopt;
}

std::string suffixes_for(const std::string &unit) {
  if (unit == "M/s") return "a plain number is M/s; K, M and G scale it (500K = 0.5 M/s)";
  if (unit.rfind("ns", 0) == 0) return "a plain number is ns; ns, us, ms and s are accepted";
  return "write a plain number in " + (unit.empty() ? std::string("the metric's unit") : unit);
}

class ExpectChecker {
 public:
  ExpectChecker(const CheckedBench &cb, const LetScope &lets, Diagnostics &diags)
      : cb_(cb),
        lets_(lets),
        diags_(diags) {}

  void add(const ast::Setting &s, bool from_defaults) {
    const ast::Name &n = s.names.at(0);
    std::string unit = metric_unit(cb_, n.text);
    if (unit.empty()) {
      if (from_defaults) return;
      unknown_metric(n);
      return;
    }
    if (n.text == "latency" && !cb_.family->metric("latency") && !reported(cb_, "latency")) {
      diags_.error(n.range, "'latency' is only measured when the bench reports it",
                   {"add it to the report: 'report hits, latency;'"});
      return;
    }
    if (!s.value) return;  // the grammar requires one
    const ast::Value *v = &*s.value;
    if (v->kind == ast::Value::Kind::Ident) {
      auto it = lets_.find(v->text);
      if (it != lets_.end() && it->second->kind == ast::Value::Kind::Int) v = it->second;
    }
    if (v->kind == ast::Value::Kind::Int && v->decimals > 0) {
      diags_.error(v->range, fmt::format("'expect {}' takes whole numbers", n.text),
                   {"only 'until ci' takes a decimal percentage"});
      return;
    }
    if (v->kind != ast::Value::Kind::Int) {
      diags_.error(s.value->range, fmt::format("'expect {}' needs a number", n.text), {suffixes_for(unit)});
      return;
    }
    auto scale = suffix_scale(unit, v->unit);
    if (!scale) {
      diags_.error(s.value->range,
                   fmt::format("unit '{}' does not fit '{}', which is reported in {}", v->unit, n.text, unit),
                   {suffixes_for(unit)});
      return;
    }
    PlanExpectation e;
    e.metric = n.text;
    e.op = s.op;
    e.value = double(v->number) * *scale;
    e.unit = unit;
    e.text = fmt::format("{} {} {}{}", n.text, s.op,
                         s.value->kind == ast::Value::Kind::Ident ? s.value->text : std::to_string(v->number),
                         s.value->kind == ast::Value::Kind::Ident ? "" : v->unit);
    e.range = s.range;
    out_.push_back(std::move(e));
  }

  std::vector<PlanExpectation> take() { return std::move(out_); }

 private:
  void unknown_metric(const ast::Name &n) {
    auto names = metric_names(cb_);
    std::vector<std::string> hints;
    std::string close = did_you_mean(n.text, names);
    if (!close.empty()) hints.push_back(fmt::format("did you mean '{}'?", close));
    hints.push_back(fmt::format("'{}' reports: {}", cb_.family->name, fmt::join(names, ", ")));
    diags_.error(n.range, fmt::format("unknown metric '{}' for family '{}' in 'expect'", n.text, cb_.family->name),
                 hints);
  }

  const CheckedBench &cb_;
  const LetScope &lets_;
  Diagnostics &diags_;
  std::vector<PlanExpectation> out_;
};

}  // namespace

std::vector<PlanExpectation> check_expectations(const std::vector<const ast::Setting *> &defaults,
                                                const std::vector<ast::Setting> &settings, const CheckedBench &cb,
                                                const LetScope &lets, Diagnostics &diags) {
  ExpectChecker c(cb, lets, diags);
  for (const auto *s : defaults)
    if (s->kind == ast::Setting::Kind::Expect) c.add(*s, true);
  for (const auto &s : settings)
    if (s.kind == ast::Setting::Kind::Expect) c.add(s, false);
  return c.take();
}

}  // namespace bpfbench
