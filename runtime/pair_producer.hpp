// Producer `syscall_pair`: threads in pairs that take turns (the kernel bench's htab-mem
// add_del_on_diff_cpu): thread 2i calls getpgid(0), then thread 2i+1 calls getppid(), then
// 2i again, so a tp/sys_enter_getpgid program and a tp/sys_enter_getppid one run one after
// the other on two CPUs (one adds elements, the other frees them). Each thread counts its
// own calls. The turn passes through a futex (as a pthread barrier's does), with a 10 ms
// timeout so a thread whose partner has stopped sees the stop flag.
#pragma once

#include <memory>

#include "util/error.hpp"
#include "runtime/components.hpp"

namespace bpfbench {

// Fails for an odd number of producer threads (one would have no partner).
Result<std::unique_ptr<Producer>> make_syscall_pair_producer(int producers);

}  // namespace bpfbench
