#include "results/ab_interleaved.hpp"

#include <fmt/format.h>

#include <cmath>

#include "results/json_values.hpp"

namespace bpfbench {

const char *to_string(AbMethod m) { return m == AbMethod::Interleaved ? "interleaved" : "turns"; }

namespace {

std::string residue(const std::optional<uint32_t> &r) { return r ? std::to_string(*r) : "?"; }

std::string facts_text(const char *side, const std::optional<ProgFacts> &f) {
  if (!f) return fmt::format("{} n/a", side);
  return fmt::format("{} {} insns verified, JIT {} B", side, f->verified_insns, f->jited_len);
}

nlohmann::json facts_json(const std::optional<ProgFacts> &f) {
  if (!f) return nullptr;
  return {{"verified_insns", f->verified_insns}, {"xlated_len", f->xlated_len}, {"jited_len", f->jited_len}};
}

}  // namespace

std::string interleaved_text(const AbInterleaved &x, double floor_pct) {
  const InterleavedStats &s = x.stats;
  std::string out = fmt::format(
      "  interleaved: {} load{} a side × {} block{} ({} unit{}), {:g} ms slices, {} slice pairs{}; {}\n", x.copies,
      x.copies == 1 ? "" : "s", x.blocks, x.blocks == 1 ? "" : "s", s.units.size(), s.units.size() == 1 ? "" : "s",
      x.slice_ms, s.ratio.pairs,
      x.dropped_pairs ? fmt::format(" ({} dropped: producers hardly ran)", x.dropped_pairs) : "", x.dispatch);
  if (s.time_blocks)
    out += "  one load a side: the CI is over blocks of consecutive slices, the JIT's placement is not sampled\n";
  else if (std::isfinite(s.control_floor_pct))
    out += fmt::format("  floor {:.2f}%: the larger of the given one and the built-in control's {:.2f}% (A's loads "
                       "against each other, B's against each other, {} comparisons)\n",
                       floor_pct, s.control_floor_pct, s.control_n);
  std::string units;
  for (const auto &u : s.units)
    units += fmt::format("{}{}:{}/{} {:.4f}", units.empty() ? "" : "  ", u.unit + 1, residue(u.a_jit64),
                         residue(u.b_jit64), std::exp(u.mean_log));
  out += "  units (JIT residue mod 64 A/B, B/A): " + units + "\n";
  out += fmt::format("  {}; {}", facts_text("A", x.a_facts), facts_text("B", x.b_facts));
  if (s.prog_ns_ratio) {
    double a_ns = 0, b_ns = 0;
    size_t n = 0;
    for (const auto &u : s.units)
      if (u.a_prog_ns && u.b_prog_ns) {
        a_ns += *u.a_prog_ns;
        b_ns += *u.b_prog_ns;
        ++n;
      }
    if (n)
      out += fmt::format("; in-kernel A {:.1f} ns/run, B {:.1f} (B/A {:.4f})", a_ns / double(n), b_ns / double(n),
                         *s.prog_ns_ratio);
  } else if (!x.prog_stats_note.empty()) {
    out += "; in-kernel ns/run: " + x.prog_stats_note;
  }
  out += "\n";
  if (s.wall_ratio > 0)
    out += fmt::format("  per wall time B/A {:.4f} (the verdict uses {})\n", s.wall_ratio,
                       x.kernel_time ? "BPF_PROG_TEST_RUN's own duration of the runs: the syscall and preemption "
                                       "drop out"
                                     : "the producer threads' CPU time: preemption drops out");
  return out;
}

nlohmann::json interleaved_json(const AbInterleaved &x) {
  const InterleavedStats &s = x.stats;
  nlohmann::json units = nlohmann::json::array();
  for (const auto &u : s.units)
    units.push_back({{"unit", u.unit + 1},
                     {"pairs", u.pairs},
                     {"ratio", json_number(std::exp(u.mean_log))},
                     {"a", json_number(u.a_geomean)},
                     {"b", json_number(u.b_geomean)},
                     {"a_jit_offset64", json_or_null(u.a_jit64)},
                     {"b_jit_offset64", json_or_null(u.b_jit64)},
                     {"a_prog_ns", json_or_null(u.a_prog_ns)},
                     {"b_prog_ns", json_or_null(u.b_prog_ns)}});
  nlohmann::json j = {{"dispatch", x.dispatch},
                      {"value", x.kernel_time ? "events per second of the test_run calls' kernel-reported duration"
                                              : "events per CPU second of the producer threads"},
                      {"copies", x.copies},
                      {"blocks", x.blocks},
                      {"slice_ms", x.slice_ms},
                      {"settle_ms", x.settle_ms},
                      {"slice_pairs", s.ratio.pairs},
                      {"dropped_pairs", x.dropped_pairs},
                      {"elapsed_s", json_number(x.elapsed_s)},
                      {"ci_unit", s.time_blocks ? "time block" : "load"},
                      {"confidence", s.ratio.confidence},
                      {"control_n", s.control_n},
                      {"control_floor_pct", json_number(s.control_floor_pct)},
                      {"wall_ratio", json_number(s.wall_ratio)},
                      {"prog_ns_ratio", json_or_null(s.prog_ns_ratio)},
                      {"a_facts", facts_json(x.a_facts)},
                      {"b_facts", facts_json(x.b_facts)},
                      {"units", units}};
  if (!x.prog_stats_note.empty()) j["prog_stats_note"] = x.prog_stats_note;
  return j;
}

}  // namespace bpfbench
