// Checks that the process may load and attach BPF programs before anything runs.
#pragma once

#include "util/error.hpp"

namespace bpfbench {

// Success when root or holding CAP_BPF + CAP_PERFMON (effective set; CAP_SYS_ADMIN counts
// for both); otherwise an error naming what is missing, e.g. "bpfbench needs root or
// CAP_BPF and CAP_PERFMON (missing: CAP_PERFMON)".
Result<void> check_privileges();

// Success when the kernel loads a minimal BPF program for this process; otherwise why not
// ("the kernel refused a minimal BPF program: Operation not permitted (EPERM)"): a
// lockdown, a seccomp filter or a container can refuse every load even to root.
Result<void> check_bpf_loading();

}  // namespace bpfbench
