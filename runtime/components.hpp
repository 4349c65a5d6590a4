// Runtime components families reuse: producers (event generators) and consumers.
#pragma once

#include <atomic>
#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "compiler/family/kinds.hpp"
#include "util/error.hpp"
#include "runtime/counters.hpp"

namespace bpfbench {

// A producer runs on its own thread until `stop` is set, counting its operations in
// `slot`. It returns why it had to give up, if it did (the run then fails with that reason).
class Producer {
 public:
  virtual ~Producer() = default;
  virtual Result<void> run(int index, ProducerSlot &slot, const std::atomic<bool> &stop) = 0;
};

// A consumer drains what producers generate (ring buffers, ...). Same contract.
class Consumer {
 public:
  virtual ~Consumer() = default;
  virtual Result<void> run(int index, const std::atomic<bool> &stop) = 0;
  // Called once every thread has stopped: consumes what is still waiting (records produced
  // after the consumer's last pass), so the self-checks see every record.
  virtual Result<void> drain_rest() { return {}; }
};

struct ProducerConfig {
  ProducerKind kind = ProducerKind::None;
  int test_run_fd = -1;      // test_run: the driver program
  // test_run, interleaved ab: when set, each call runs the program this holds (the active
  // copy's), read before the call; test_run_fd is then only the first one.
  const std::atomic<int> *active_test_run_fd = nullptr;
  uint64_t ops_per_run = 1;  // test_run: operations one program run stands for (batch_iters)
  // test_run: the packet every run gets (data_in; empty: none) and the kernel's repeat
  // count per call (0: once); a call counts ops_per_run × max(repeat, 1) operations
  // (runtime/test_run_input.hpp builds both from the point's params).
  std::vector<uint8_t> data_in{};  // {}: aggregate initializers may leave it out
  uint32_t repeat = 0;
  // test_run `check_output`: every call's return value must be expected_retval and (when
  // set) its output packet expected_out; the first that differs stops the run with both.
  std::optional<uint32_t> expected_retval{};
  std::optional<std::vector<uint8_t>> expected_out{};
  // socket_create / thread_create: owners made per round (the `batch_size` param).
  uint32_t batch_size = 32;
  // syscall: getpgid(own tid), a lookup that finds the task, instead of getpgid(-1), which
  // fails before any lookup (the `getpgid_arg` param; docs/families/trigger.md).
  bool getpgid_self = false;
  // syscall and the uprobe/USDT target producers: count each operation with a locked add
  // (the kernel bench's atomic_inc) instead of a plain one (the `op_count` param).
  bool atomic_count = false;
  // rename: write the process's main thread's name (/proc/self/comm, the kernel bench's
  // way) instead of the producer thread's own (/proc/thread-self/comm; the `comm` param).
  bool rename_main = false;
  // syscall_pair: the number of producer threads (they pair up: it must be even).
  int producers = 1;
  // sendfile: the socket it writes (the `send` socket of the socket_pairs setup action),
  // and at how many bytes sent but not yet `delivered` (what the consumer read) it waits
  // (0: never; the `max_in_flight` param).
  int socket_fd = -1;
  uint64_t max_in_flight = 0;
  const ProducerSlot *delivered = nullptr;
  // map_churn: the object's `churn_map` (-1: none), keys per map (the `nr_entries` param)
  // and an LPM trie key's prefix length (the `prefix_len` param; 0: every data bit).
  int churn_map_fd = -1;
  uint64_t churn_entries = 0;
  uint32_t churn_prefix_len = 0;
};

// The argument the syscall producer passes to getpgid() on the calling thread: its own
// tid (`self`) or -1.
long getpgid_arg(bool self);

// One BPF_PROG_TEST_RUN of program `fd` on `data` (none when empty), run once.
Result<> test_run_once(int fd, const std::vector<uint8_t> &data);

// The producers of this file, each its kind's `make` (runtime/producer_config.cpp's rows):
// the getpgid loop, BPF_PROG_TEST_RUN calls (fails without a loaded driver program), calls
// of a uprobe or USDT target function, and kind "none" (waits for stop).
Result<std::unique_ptr<Producer>> make_syscall_producer(const ProducerConfig &cfg);
Result<std::unique_ptr<Producer>> make_test_run_producer(const ProducerConfig &cfg);
template <void (*Target)()>
Result<std::unique_ptr<Producer>> make_uprobe_producer(const ProducerConfig &cfg);
Result<std::unique_ptr<Producer>> make_idle_producer(const ProducerConfig &cfg);

// getppid: a getppid() loop (runtime/getppid_producer.cpp).
std::unique_ptr<Producer> make_getppid_producer(const ProducerConfig &cfg);

// How a ring or perf buffer consumer reads its buffer (the `consumer` param, parsed once by
// runtime/consumer_setup.cpp): libbpf's manager, or bpfbench's own mmap reader. One switch
// (make_flavor, runtime/consumers/buffer_consumers.hpp) picks the reader for every buffer
// kind, so -Wswitch names the place a new flavor has to be served.
enum class BufferFlavor { Libbpf, Custom };

// What a consumer needs from a loaded point (runtime/consumer_setup.hpp builds it).
struct ConsumerConfig {
  ConsumerKind kind = ConsumerKind::None;
  BufferFlavor flavor = BufferFlavor::Libbpf;
  int map_fd = -1;                // the BPF_MAP_TYPE_RINGBUF / PERF_EVENT_ARRAY map
  int socket_fd = -1;             // socket: the `receive` socket of the socket_pairs setup action
  // socket: ends drain_rest() early (a stop signal while the kernel's backlog drains).
  const std::atomic<bool> *interrupt = nullptr;
  bool verify_per_byte = false;  // socket: the kernel bench's byte-at-a-time check (the `verify` param)
  uint64_t ring_size = 0;         // ringbuf: data bytes (the map's max_entries)
  uint64_t perfbuf_pages = 128;   // perfbuf: data pages per CPU (a power of two)
  bool sampled = false;           // perfbuf: wake up every sample_rate records
  // Each record counted at once with a locked add, as the kernel bench's consumers do
  // (atomic_inc per record), instead of a plain add per record (libbpf) or per pass
  // (custom readers): the `record_count` param.
  bool atomic_count = false;
  uint64_t sample_rate = 1;
  // Records consumed are added here (the `consumer` metric source). Required.
  ProducerSlot *consumed = nullptr;
  // Back-to-back mode when set: the consumer thread is the producer too. It triggers one
  // batch before its first wait and another after every drain.
  std::function<std::string()> trigger;
  // Back-to-back only: stop triggering after this many batches (0 = no limit), so a
  // test can count exactly what a known number of batches delivers.
  uint64_t max_triggers = 0;
};

// Consumer kind "none" yields nullptr without error: no consumer threads are started.
// "ringbuf" and "perfbuf" build the `flavor` reader over `map_fd`; fails when the buffer
// cannot be set up. "socket" reads `socket_fd` (runtime/socket_traffic.hpp).
Result<std::unique_ptr<Consumer>> make_consumer(const ConsumerConfig &cfg);

}  // namespace bpfbench
