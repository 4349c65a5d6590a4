// `bpfbench bench NAME`: the kernel bench's benchmark names (tools/testing/selftests/bpf
// bench.c's benchs[] table) and the bpfbench family, program and report style that run
// the same scenario.
#pragma once

#include <optional>
#include <span>
#include <string>

#include "results/report_kernel.hpp"

namespace bpfbench {

// Which of the kernel bench's benchmark options a name accepts.
enum class KbenchOptions {
  Trigger,
  Uprobe,
  Ringbuf,
  Strncmp,
  BpfLoop,
  LocalStorage,
  HashmapFullUpdate,
  Bloom,
  HashmapLookup,
  LpmTrie,
  // No benchmark options; Rename refuses more than one producer.
  Count,
  Rename,
  Crypto,
  LocalStorageCreate,
  HtabMem,
  Sockmap,    // a mode flag (--rx-verdict-egress, ...); -c 2 -p 1 -a as the kernel bench requires
  XdpLb,      // --scenario NAME (required), --list-scenarios, --machine-readable
  NoOptions,  // a benchmark that takes none
  // local-storage-tasks-trace: --nr_procs N, --kthread_pid PID; -p 1 only
  TasksTrace,
};

struct KbenchName {
  const char *name;      // the kernel bench's name, e.g. "rb-libbpf"
  const char *family;    // bpfbench family
  const char *settings;  // the .bdsl settings that select the scenario, e.g. "prog perfbuf; consumer custom"
  KbenchOptions options;
  KernelReport report;
  int consumers;  // what the kernel bench requires of -c (0, 1, or 2 for sockmap)
  // The family's enum param that --scenario sets and --list-scenarios lists (its choices
  // and choice docs), and that the batch timing report names; nullptr when none.
  const char *scenario_param = nullptr;
};

std::span<const KbenchName> kbench_names();
const KbenchName *find_kbench_name(const std::string &name);

}  // namespace bpfbench
