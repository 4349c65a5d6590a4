// Producers that make and use the owners of BPF local storage: sockets and threads
// (the local-storage-create and sk-storage-get benchmarks).
#pragma once

#include <memory>

#include "runtime/components.hpp"

namespace bpfbench {

// socket_create: per round, `batch_size` socket(AF_INET6, SOCK_DGRAM) calls, then every
// socket closed; counts the sockets made. A failed socket() counts nothing and is no error
// (the kernel bench counts them apart; the family's BPF program counts what it saw).
// thread_create: per round, `batch_size` threads that return at once, then joined; counts
// the threads made.
// getsockopt: one AF_INET6 TCP socket per producer thread, then getsockopt(fd, 0xdead,
// 0xbeef) in a loop, one operation each (a cgroup/getsockopt program answers the call).
std::unique_ptr<Producer> make_owner_producer(const ProducerConfig &cfg);

}  // namespace bpfbench
