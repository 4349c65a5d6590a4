// What to raise when this process could not make a task or allocate: the rlimits in force
// or the kernel's task limits, named in one sentence for an error message.
#pragma once

#include <cstdint>
#include <string>

namespace bpfbench {

// What to raise when creating a thread or a process failed with EAGAIN/ENOMEM: the
// limits in force that can cause it, e.g. "raise the address-space limit (RLIMIT_AS,
// `ulimit -v`, now 512 MiB)"; names the kernel's task limits when no rlimit is set.
std::string task_limit_hint();
// The same for a failed allocation: RLIMIT_AS when one is set, else the machine.
std::string memory_limit_hint();

// "1.5 GiB", "512 MiB".
std::string bytes_text(int64_t b);

}  // namespace bpfbench
