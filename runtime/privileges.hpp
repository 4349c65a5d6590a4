// Checks that the process may load and attach BPF programs before anything runs.
#pragma once

#include <string>

namespace bpfbench {

// "" when root or holding CAP_BPF + CAP_PERFMON (effective set; CAP_SYS_ADMIN counts for
// both); otherwise a message naming what is missing, e.g. "bpfbench needs root or
// CAP_BPF and CAP_PERFMON (missing: CAP_PERFMON)".
std::string check_privileges();

// "" when the kernel loads a minimal BPF program for this process; otherwise why not
// ("the kernel refused a minimal BPF program: Operation not permitted (EPERM)"): a
// lockdown, a seccomp filter or a container can refuse every load even to root.
std::string check_bpf_loading();

}  // namespace bpfbench
