// Children that die with bpfbench, and leftovers that name the process that made them: a
// process is its pid and its start time, so a name carrying both tells whether its maker
// still runs (a pid alone may have been reused by another process since).
#pragma once

#include <sys/types.h>

#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

namespace bpfbench {

// In a forked child, before anything else: SIGKILL when the thread that forked it dies
// (PR_SET_PDEATHSIG; that is the forking THREAD, so fork long-lived children only from a
// thread that outlives them), and _exit(126) when `parent` (getpid() before the fork) is
// gone already: the child was reparented before the prctl, whose signal then never comes.
// Async-signal-safe.
void die_with_parent(pid_t parent);

// When a process started, in clock ticks since boot (/proc/<pid>/stat, field 22);
// nullopt when there is no such process.
std::optional<uint64_t> process_start_ticks(pid_t pid);

struct ProcessStamp {
  pid_t pid = 0;
  uint64_t start_ticks = 0;
};

// This process's stamp, "<pid>-<start ticks>": what bpfbench puts into the names of the
// cgroups and temporary folders it makes.
std::string own_stamp();

// The stamp at the start of `text` ("1234-5678" followed by the end or a '-'); nullopt
// when `text` does not start with one.
std::optional<ProcessStamp> parse_stamp(std::string_view text);

// Whether the process of `stamp` has ended: no process has its pid, or the one that has it
// started at another time. A process in another pid namespace looks ended: callers that can
// meet one hold a lock as well (vm/work_dir.hpp).
bool stamp_owner_ended(const ProcessStamp &stamp);

}  // namespace bpfbench
