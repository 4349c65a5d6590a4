// What a point's BPF programs cost inside the kernel: run-time stats (run_cnt, run_time_ns)
// over the measured intervals and the verifier/JIT facts of each loaded program. Pure data,
// its JSON and the metrics derived from it; runtime/prog_stats.hpp collects it.
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "compiler/family/manifest.hpp"

namespace bpfbench {

// Keys of the per-interval counts (Sample::deltas) the run-time stats add: the measured
// program's runs and nanoseconds inside it, and the wall time between the two reads.
inline constexpr const char *kProgRunsKey = "prog_runs";
inline constexpr const char *kProgRunNsKey = "prog_run_ns";
inline constexpr const char *kProgWallNsKey = "prog_wall_ns";

// One program's run-time stats over the measured intervals (bpf_prog_info deltas).
// role: "measured" (the program the point is about: its counts are the metrics),
// "attached" (an extra program attached next to it) or "driver" (the test_run driver).
struct ProgRunStats {
  std::string name, role;
  uint32_t id = 0;
  uint64_t run_cnt = 0, run_time_ns = 0;
};

// Whether the stats were collected and what the kernel's switch was before.
struct ProgStatsInfo {
  bool enabled = false;             // bpf_enable_stats held during the run
  bool sysctl_was_enabled = false;  // kernel.bpf_stats_enabled was already 1 (other runs pay too)
  std::string note;                 // why not collected ("off (the default; ...)", an errno), "" when they were
  std::vector<ProgRunStats> programs;
};

// A loaded program's verifier and JIT facts. The log-derived ones are absent when the
// verifier's stats line was not captured (load without the stats log).
struct ProgFacts {
  std::string name;
  uint32_t id = 0;
  uint32_t verified_insns = 0;             // bpf_prog_info: instructions the verifier processed
  uint32_t xlated_len = 0, jited_len = 0;  // bytes after rewriting / of JITed code
  // Where the JITed image starts, modulo 64 (bpf_prog_info.jited_ksyms[0]): the timing of
  // a small loop can depend on it (docs/measurements/2026-12-01-runtime-vs-kernel-bench.md,
  // the bpf-nop finding). Only the residue is kept: a results file is shared, and a kernel
  // text address would undo KASLR. Absent when the kernel hides the address (kptr_restrict,
  // no JIT).
  std::optional<uint32_t> jit_offset64;
  std::optional<int64_t> peak_states, total_states, verification_time_us;
};

// The verifier's stats lines ("processed N insns (limit 1000000) max_states_per_insn M
// total_states T peak_states P mark_read R", "verification time U usec") read into `f`;
// false when the log has no "processed ... insns" line.
bool parse_verifier_stats(const std::string &log, ProgFacts &f);

// The metric specs of the run-time stats: prog_runs (M/s), prog_ns (ns per run, lower is
// better) and prog_time_share (CPU time inside the program per second of wall time).
std::vector<MetricSpec> prog_stat_metrics();
// `specs` with the metrics above added when `samples_have_stats` (a run that collected them).
std::vector<MetricSpec> with_prog_stat_metrics(std::vector<MetricSpec> specs, bool samples_have_stats);
bool is_prog_stat_metric(const std::string &name);

nlohmann::json prog_stats_to_json(const ProgStatsInfo &s);
nlohmann::json prog_facts_to_json(const std::vector<ProgFacts> &facts);

// compare: what changed between A's and B's facts of the same program ("bench_tp:
// verified insns 12 -> 15", "bench_tp: JITed size 80 -> 96 bytes"); programs in one only
// are not compared.
std::vector<std::string> prog_facts_changes(const std::vector<ProgFacts> &a, const std::vector<ProgFacts> &b);

// `run -v`: one line per program ("prog bench_tp (id 42): 12 insns verified, 5 peak states,
// 31 us to verify, 96 bytes xlated, 80 bytes JITed").
std::string format_prog_facts(const ProgFacts &f);

}  // namespace bpfbench
