// What an interleaved ab point measured beside its ratio: how the loads were switched, the
// units and their JIT residues, the built-in control, and the facts that explain a
// verdict (verified instructions, JITed size, in-kernel ns per run). Its text and JSON.
#pragma once

#include <cstddef>
#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "results/interleaved.hpp"
#include "results/prog_info.hpp"

namespace bpfbench {

// How a point was measured: both sides loaded in one process and alternated every slice,
// or whole point runs in turns (what cannot share a process: the report says why).
enum class AbMethod { Turns, Interleaved };
const char *to_string(AbMethod m);

struct AbInterleaved {
  std::string dispatch;  // "a dispatcher on raw_tp/bpf_trigger_tp" | "alternating test_run calls"
  size_t copies = 0, blocks = 0, dropped_pairs = 0;
  double slice_ms = 0, settle_ms = 0, elapsed_s = 0;
  InterleavedStats stats;
  std::optional<ProgFacts> a_facts, b_facts;  // of the first load of each side
  std::string prog_stats_note;                // why no in-kernel ns ("" when measured or not asked)
  // Slices valued per second of BPF_PROG_TEST_RUN's reported duration, not of the producer
  // threads' CPU time (test_run points).
  bool kernel_time = false;
};

// Lines under the point's row in the text report (each starting with two spaces).
std::string interleaved_text(const AbInterleaved &x, double floor_pct);
nlohmann::json interleaved_json(const AbInterleaved &x);

}  // namespace bpfbench
