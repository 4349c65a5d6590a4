// `bpfbench bench [-w N] [-d N] [-p N] [-c N] [-a] [...] NAME`: the kernel bench's command
// line (tools/testing/selftests/bpf/bench), run through bpfbench's pipeline and printed in
// its formats; a symlink named `bench` behaves the same (docs/kernel-bench.md).
#pragma once

#include <CLI/CLI.hpp>

#include <cstdint>
#include <functional>
#include <string>
#include <utility>
#include <vector>

#include "results/report_kernel.hpp"

namespace bpfbench::cli {

struct KbenchArgs {
  std::string name;
  bool list = false, quiet = false, verbose = false, affinity = false;
  int64_t warmup_s = 1, duration_s = 5, producers = 1, consumers = 0;
  std::string prod_cpus, cons_cpus;
  // The benchmark options given (--rb-b2b, --nr_maps 100, …): option name, value ("" for a flag).
  std::vector<std::pair<std::string, std::string>> options;
};

CLI::App *add_kbench_command(CLI::App &app, KbenchArgs &a);
int cmd_kbench(const KbenchArgs &a);

// The .bdsl text that runs `a` (exposed for tests); an error for a combination the kernel
// bench refuses or an option the benchmark does not take. A benchmark that needs a kernel
// feature `available` denies (local-storage-tasks-trace: fentry) also gets the text of the
// part that runs without it, reported in `fallback_report`'s lines after the first.
struct KbenchText {
  std::string text, error;
  std::string fallback_text = {};
  KernelReport fallback_report = KernelReport::HitsDrops;
};
// Whether this kernel has a FeatureProber requirement ("attach:fentry"); none: all.
using FeatureCheck = std::function<bool(const std::string &)>;
KbenchText kbench_bdsl(const KbenchArgs &a, const FeatureCheck &available = {});

}  // namespace bpfbench::cli
