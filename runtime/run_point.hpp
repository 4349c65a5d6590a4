// Runs one resolved PlanPoint against the kernel: probe, load, attach, harness, summary.
#pragma once

#include <cstdint>
#include <functional>
#include <optional>
#include <string>
#include <vector>

#include "compiler/family/manifest.hpp"
#include "compiler/bdsl/plan.hpp"
#include "results/point_result.hpp"
#include "runtime/bpf_object.hpp"
#include "runtime/harness.hpp"
#include "runtime/per_cpu.hpp"
#include "runtime/probe.hpp"
#include "runtime/stop.hpp"

namespace bpfbench {

struct ProfileOptions;  // runtime/profiler.hpp

struct RunOptions {
  // 0 = the point's own interval (PlanPoint::interval_ns); tests set shorter ones.
  int64_t interval_ns = 0;
  bool verbose = false;             // echo libbpf's messages to stderr
  FeatureProber *prober = nullptr;  // shared per run (caches probes); nullptr = private
  // Called once the point's programs are loaded and attached and its components made, just
  // before its harness starts (not for a point that fails or is skipped before that).
  std::function<void(const PlanPoint &)> on_started;
  // Progress: called after each interval (warmup ones included) on the sampling thread.
  std::function<void(const PlanPoint &, int iter, const Sample &, bool warmup)> on_sample;
  std::string uprobe_binary = "/proc/self/exe";  // where uprobe targets live
  // BPF run-time stats of the point's programs while the harness runs (prog_* metrics);
  // off by default, `run --prog-stats` turns them on (runtime/prog_stats.hpp): they cost
  // ~20 % of a trigger point's throughput.
  bool prog_stats = false;
  // `run --profile`: perf record over each measured part (runtime/profiler.hpp); null = off.
  const ProfileOptions *profile = nullptr;
  // `run --hw-counters`: count cycles/instructions/cache misses (only where the probe
  // found a PMU; the caller says so once otherwise).
  bool hw_counters = false;
};

// The point's sampling interval, unless the caller (a test) asks for another one.
int64_t effective_interval_ns(const PlanPoint &p, const RunOptions &opts);

// `object` is the compiled BPF ELF for the point's program (may be empty when the
// program loads nothing, e.g. trigger/base). Never throws.
PointResult run_point(const PlanPoint &p, const FamilyManifest &f, const std::vector<uint8_t> &object,
                      const RunOptions &opts, StopSource &stop);

// The program BPF_PROG_TEST_RUN drives when the point's producer is `test_run`: the first
// `extra_programs` entry, else the program itself; "" for other producers.
std::string test_run_driver(const FamilyManifest &f, const ProgramSpec &prog);

// The functions a point of `prog` loads: its own, then its `extra_programs`.
std::vector<std::string> loaded_functions(const ProgramSpec &prog);

// The `extra_programs` the runtime attaches (auto, from their SEC) next to the program:
// every entry but the test_run driver. All of them are loaded.
std::vector<std::string> attached_extra_programs(const FamilyManifest &f, const ProgramSpec &prog);

// The object name run_point opens the point's ELF as ("bb_<family>", at most 15 chars).
std::string object_name_for(const FamilyManifest &f);
// Before load: the point's rodata and map-size params, the builtin bb_tgid, and autoload
// of exactly `functions`.
Result<> configure_object(BpfObject &obj, const PlanPoint &p, const FamilyManifest &f,
                          const std::vector<std::string> &functions);

// The metric -> source map a program uses (family metrics with the program's overrides).
std::vector<MetricSpec> effective_metrics(const FamilyManifest &f, const ProgramSpec &prog);

}  // namespace bpfbench
