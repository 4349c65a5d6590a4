#include "results/prog_info.hpp"

#include <fmt/format.h>

#include <cstdlib>

#include "results/json_values.hpp"

namespace bpfbench {

namespace {

// The number after `key ` in `line`, if there is one.
std::optional<int64_t> number_after(const std::string &line, const std::string &key) {
  size_t at = line.find(key + " ");
  if (at == std::string::npos) return std::nullopt;
  const char *start = line.c_str() + at + key.size() + 1;
  char *end = nullptr;
  long long v = std::strtoll(start, &end, 10);
  if (end == start) return std::nullopt;
  return static_cast<int64_t>(v);
}

MetricSpec spec(const char *name, MetricSource source, const char *unit, MetricReport reported, bool higher,
                const char *doc) {
  MetricSpec m;
  m.name = name;
  m.source = std::move(source);
  m.unit = unit;
  m.doc = doc;
  m.reported = reported;
  m.higher_is_better = higher;
  m.throughput = false;
  m.in_total_ops = false;
  return m;
}

MetricSource ratio(const char *a, const char *b) {
  MetricSource s;
  s.kind = MetricSourceKind::Ratio;
  s.operand = a;
  s.denominator = b;
  return s;
}

}  // namespace

bool parse_verifier_stats(const std::string &log, ProgFacts &f) {
  size_t at = log.rfind("processed ");
  if (at == std::string::npos) return false;
  size_t eol = log.find('\n', at);
  const std::string line = log.substr(at, eol == std::string::npos ? std::string::npos : eol - at);
  if (line.find(" insns") == std::string::npos) return false;
  f.peak_states = number_after(line, "peak_states");
  f.total_states = number_after(line, "total_states");
  // The kernel prints it before the "processed" line (older ones after it).
  if (size_t t = log.rfind("verification time "); t != std::string::npos)
    f.verification_time_us = number_after(log.substr(t, log.find('\n', t) - t), "verification time");
  return true;
}

std::vector<MetricSpec> prog_stat_metrics() {
  MetricSource runs;
  runs.kind = MetricSourceKind::Counter;
  runs.operand = kProgRunsKey;
  return {
      spec("prog_runs", runs, "M/s", MetricReport::Rate, true, "runs of the measured program (BPF run-time stats)"),
      spec("prog_ns", ratio(kProgRunNsKey, kProgRunsKey), "ns/run", MetricReport::AsIs, false,
           "nanoseconds inside the measured program per run (BPF run-time stats)"),
      spec("prog_time_share", ratio(kProgRunNsKey, kProgWallNsKey), "CPU", MetricReport::AsIs, false,
           "CPU time inside the measured program per second of wall time (all CPUs added)"),
  };
}

std::vector<MetricSpec> with_prog_stat_metrics(std::vector<MetricSpec> specs, bool samples_have_stats) {
  if (!samples_have_stats) return specs;
  for (auto &m : prog_stat_metrics()) specs.push_back(std::move(m));
  return specs;
}

bool is_prog_stat_metric(const std::string &name) {
  return name == "prog_runs" || name == "prog_ns" || name == "prog_time_share";
}

nlohmann::json prog_stats_to_json(const ProgStatsInfo &s) {
  nlohmann::json progs = nlohmann::json::array();
  for (const auto &p : s.programs)
    progs.push_back(
        {{"name", p.name}, {"id", p.id}, {"role", p.role}, {"run_cnt", p.run_cnt}, {"run_time_ns", p.run_time_ns}});
  return {{"enabled", s.enabled}, {"sysctl_was_enabled", s.sysctl_was_enabled}, {"note", s.note}, {"programs", progs}};
}

nlohmann::json prog_facts_to_json(const std::vector<ProgFacts> &facts) {
  nlohmann::json a = nlohmann::json::array();
  for (const auto &f : facts)
    a.push_back({{"name", f.name},
                 {"id", f.id},
                 {"verified_insns", f.verified_insns},
                 {"xlated_len", f.xlated_len},
                 {"jited_len", f.jited_len},
                 {"jit_offset64", json_or_null(f.jit_offset64)},
                 {"peak_states", json_or_null(f.peak_states)},
                 {"total_states", json_or_null(f.total_states)},
                 {"verification_time_us", json_or_null(f.verification_time_us)}});
  return a;
}

std::vector<std::string> prog_facts_changes(const std::vector<ProgFacts> &a, const std::vector<ProgFacts> &b) {
  std::vector<std::string> out;
  for (const auto &x : a)
    for (const auto &y : b) {
      if (x.name != y.name) continue;
      if (x.verified_insns != y.verified_insns)
        out.push_back(fmt::format("{}: verified insns {} -> {}", x.name, x.verified_insns, y.verified_insns));
      if (x.jited_len != y.jited_len)
        out.push_back(fmt::format("{}: JITed size {} -> {} bytes", x.name, x.jited_len, y.jited_len));
      if (x.jit_offset64 && y.jit_offset64 && *x.jit_offset64 != *y.jit_offset64)
        out.push_back(fmt::format("{}: JITed code starts at {} -> {} mod 64 (a small loop's time can move with it)",
                                  x.name, *x.jit_offset64, *y.jit_offset64));
    }
  return out;
}

std::string format_prog_facts(const ProgFacts &f) {
  std::string out = fmt::format("prog {} (id {}): {} insns verified", f.name, f.id, f.verified_insns);
  if (f.peak_states) out += fmt::format(", {} peak states", *f.peak_states);
  if (f.verification_time_us) out += fmt::format(", {} us to verify", *f.verification_time_us);
  out += fmt::format(", {} bytes xlated, {} bytes JITed", f.xlated_len, f.jited_len);
  if (f.jit_offset64) out += fmt::format(" at {} mod 64", *f.jit_offset64);
  return out;
}

}  // namespace bpfbench
