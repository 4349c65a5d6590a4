// One interleaved ab point: K loads of A and of B in one process, one producer feeding
// them, the active load switched every slice (a dispatcher on the hook, or alternating
// test_run calls), each slice valued by the active load's own count over the producer
// threads' CPU time, blocks of fresh loads until the stop rule (results/interleaved.hpp).
#pragma once

#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "results/interference.hpp"
#include "results/interleaved.hpp"
#include "results/prog_info.hpp"
#include "runtime/ab/interleavable.hpp"
#include "runtime/stop.hpp"

namespace bpfbench {

struct InterleaveOptions {
  size_t copies = 8;                 // loads of each side at once (a unit is copy k of A and of B)
  int64_t slice_ns = 20'000'000;     // one load active this long
  int64_t settle_ns = 2'000'000;     // of it, not counted after a switch
  int64_t block_ns = 1'000'000'000;  // fresh loads after this long; 0: the first loads throughout
  InterleavedRule rule;
  double user_floor_pct = 0;  // --threshold / --floor-from
  bool prog_stats = false;    // in-kernel ns per run of the entry program, per slice
  bool verbose = false;       // libbpf's messages
  std::string uprobe_binary = "/proc/self/exe";
  // After every round of slices (on this thread): progress.
  std::function<void(const InterleavedStats &, double elapsed_s)> on_round;
};

// A slice pair is dropped when a slice's producers ran under this much CPU per thread in
// its counted window: the slice says little (runtime/ab/interleave_run.cpp).
inline constexpr double kMinSliceCpuS = 2e-4;

struct InterleaveRun {
  std::vector<AbSlicePair> pairs;
  // Each unit's (A, B) JITed code residue mod 64, by unit index.
  std::vector<std::pair<std::optional<uint32_t>, std::optional<uint32_t>>> jit64;
  InterleavedStats stats;
  AbStop stop = AbStop::Continue;
  std::optional<ProgFacts> a_facts, b_facts;  // the first load of each side
  size_t blocks = 0;
  size_t dropped_pairs = 0;  // pairs with a slice in which the producers hardly ran (kMinSliceCpuS)
  double elapsed_s = 0;
  bool interrupted = false;
  // A slice's value is events per second of the test_run calls' kernel-reported duration
  // (test_run producers of a program type the kernel times), not of the producer threads'
  // CPU time.
  bool kernel_time = false;
  std::string prog_stats_note;  // why there are no in-kernel times ("" when there are, or not asked)
  Interference interference;    // what ran beside the point (another bpfbench, busy CPUs, foreign programs)
};

// Runs until interleaved_stop_state says so, the stop is requested, or a step fails (the
// error: a load, the dispatcher, a producer).
Result<InterleaveRun> run_interleaved(const AbSideInput &a, const AbSideInput &b, const InterleavePlan &plan,
                                      const InterleaveOptions &o, StopSource &stop);

}  // namespace bpfbench
