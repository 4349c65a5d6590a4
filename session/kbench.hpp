// `bpfbench bench [-w N] [-d N] [-p N] [-c N] [-a] [...] NAME`: the kernel bench's command
// line (tools/testing/selftests/bpf/bench) turned into .bdsl text for the shipped families
// and the `run` settings that print its formats. cli/kbench_cmd.cpp parses the options into
// KbenchArgs and runs what this makes (docs/kernel-bench.md).
#pragma once

#include <cstdint>
#include <functional>
#include <span>
#include <string>
#include <utility>
#include <vector>

#include "compiler/family/manifest.hpp"
#include "results/report_kernel.hpp"
#include "session/kbench_names.hpp"
#include "session/run_args.hpp"

namespace bpfbench {

struct KbenchArgs {
  std::string name;
  bool list = false, quiet = false, verbose = false, affinity = false;
  int64_t warmup_s = 1, duration_s = 5, producers = 1, consumers = 0;
  std::string prod_cpus, cons_cpus;
  // The benchmark options given (--rb-b2b, --nr_maps 100, …): option name, value ("" for a flag).
  std::vector<std::pair<std::string, std::string>> options;
};

// One benchmark option of the kernel bench: its name, the .bdsl setting it becomes ("{}"
// is the value; no value for a flag) and the benchmarks that take it.
struct KbenchOption {
  const char *name;
  const char *setting;
  bool flag;
  KbenchOptions applies_to;
  const char *words = nullptr;  // a word option: its values ("socket|task"); else a number
  bool takes_name = false;      // a name option (a scenario, checked against the family's)
};

// Every row (an option that several benchmark groups take has a row for each).
std::span<const KbenchOption> kbench_options();
// A word option's values ("socket|task" -> socket, task).
std::vector<std::string> kbench_option_words(const KbenchOption &o);
// Whether the benchmark option `option` was given.
bool kbench_given(const KbenchArgs &a, const char *option);

// The .bdsl text that runs `a`; an error for a name it does not know (with the closest), a
// combination the kernel bench refuses or an option the benchmark does not take. A
// benchmark that needs a kernel feature `available` denies (local-storage-tasks-trace:
// fentry) also gets the text of the part that runs without it, reported in
// `fallback_report`'s lines after the first.
struct KbenchText {
  std::string text, error;
  std::string fallback_text = {};
  KernelReport fallback_report = KernelReport::HitsDrops;
};
// Whether this kernel has a FeatureProber requirement ("attach:fentry"); none: all.
using FeatureCheck = std::function<bool(const std::string &)>;
KbenchText kbench_bdsl(const KbenchArgs &a, const FeatureCheck &available = {});

// The runs of `t` (made from `a`): the benchmark's, then its fallback's when it has one,
// each printed in the kernel bench's report style; none when `t` is an error.
std::vector<RunArgs> kbench_runs(const KbenchArgs &a, const KbenchText &t);

// The family param whose choices are the benchmark's scenarios (`n.scenario_param`), read
// from the shipped manifests into `reg`; nullptr with `error` set when it cannot be read.
const ParamSpec *kbench_scenario_spec(const KbenchName &n, FamilyRegistry &reg, std::string &error);
// A --scenario that is not one of `spec`'s choices, in the kernel bench's words with the
// closest choice ("" = all known).
std::string kbench_unknown_scenario(const KbenchArgs &a, const ParamSpec &spec);

}  // namespace bpfbench
