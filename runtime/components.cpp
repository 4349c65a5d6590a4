#include "runtime/components.hpp"

#include <bpf/bpf.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <thread>

#include "runtime/bpf_object.hpp"
#include "runtime/consumers/buffer_consumers.hpp"
#include "runtime/packet_builder.hpp"
#include "runtime/socket_traffic.hpp"
#include "runtime/uprobe_targets.hpp"

namespace bpfbench {

long getpgid_arg(bool self) { return self ? static_cast<long>(gettid()) : -1L; }

Result<> test_run_once(int fd, const std::vector<uint8_t> &data) {
  std::vector<uint8_t> in = data;  // the kernel reads it; keep the caller's const
  LIBBPF_OPTS(bpf_test_run_opts, opts);
  if (!in.empty()) {
    opts.data_in = in.data();
    opts.data_size_in = static_cast<uint32_t>(in.size());
  }
  if (bpf_prog_test_run_opts(fd, &opts) != 0) return Error("BPF_PROG_TEST_RUN failed: " + errno_text(errno));
  return {};
}

namespace {

// getpgid: the cheapest syscall with a tracepoint the trigger family can hook. Its
// argument is explicit: left out, the callee sees whatever the register holds, and the
// cost depends on whether that happens to be a live pid (docs/families/trigger.md).
class SyscallProducer final : public Producer {
 public:
  SyscallProducer(bool self, bool atomic) : self_(self), atomic_(atomic) {}
  Result<void> run(int, ProducerSlot &slot, const std::atomic<bool> &stop) override {
    const long pid = getpgid_arg(self_);
    count_calls(slot, stop, atomic_, [pid] { (void)syscall(__NR_getpgid, pid); });
    return {};
  }

 private:
  bool self_, atomic_;
};

// BPF_PROG_TEST_RUN of a driver program that loops in the kernel (or of a packet program,
// run `repeat` times on a copy of `data_in` per call): one syscall stands for `ops`
// operations. Each thread has its own copy of the packet; the kernel copies it per call.
// With an expected return value, every call's is checked, and its output packet too.
class TestRunProducer final : public Producer {
 public:
  explicit TestRunProducer(const ProducerConfig &cfg)
      : cfg_(cfg),
        ops_((cfg.ops_per_run ? cfg.ops_per_run : 1) * (cfg.repeat ? cfg.repeat : 1)) {}
  Result<void> run(int, ProducerSlot &slot, const std::atomic<bool> &stop) override {
    std::vector<uint8_t> data = cfg_.data_in;
    // Room for what a program adds in front (XDP headroom: 256 bytes) or behind.
    std::vector<uint8_t> out(cfg_.expected_retval && !data.empty() ? data.size() + 512 : 0);
    const uint64_t runs = cfg_.repeat ? cfg_.repeat : 1;
    for (uint64_t call = 1; !stop.load(std::memory_order_relaxed); ++call) {
      uint32_t duration = 0;  // the kernel's mean ns per run of this call
      if (std::string why = run_once(data, out, duration); !why.empty())
        return Error(why[0] != 'B' ? "test_run call " + std::to_string(call) + ": " + why : why);
      slot.add(ops_);
      slot.add_kernel_ns(uint64_t(duration) * runs);
    }
    return {};
  }

 private:
  // One call; "" or why it failed ("BPF_PROG_TEST_RUN failed: ...") or was wrong.
  // `duration`: the kernel's mean ns per run of the call.
  std::string run_once(std::vector<uint8_t> &data, std::vector<uint8_t> &out, uint32_t &duration) const {
    LIBBPF_OPTS(bpf_test_run_opts, opts);
    opts.repeat = cfg_.repeat;
    if (!data.empty()) {
      opts.data_in = data.data();
      opts.data_size_in = static_cast<uint32_t>(data.size());
    }
    if (!out.empty()) {
      opts.data_out = out.data();
      opts.data_size_out = static_cast<uint32_t>(out.size());
    }
    const int fd = cfg_.active_test_run_fd ? cfg_.active_test_run_fd->load(std::memory_order_relaxed) : cfg_.test_run_fd;
    if (bpf_prog_test_run_opts(fd, &opts) != 0) return "BPF_PROG_TEST_RUN failed: " + errno_text(errno);
    duration = opts.duration;
    if (!cfg_.expected_retval) return "";
    if (opts.retval != *cfg_.expected_retval)
      return "returned " + std::to_string(static_cast<int32_t>(opts.retval)) + ", expected " +
             std::to_string(*cfg_.expected_retval);
    if (!cfg_.expected_out) return "";
    std::string diff =
        packet_diff(std::vector<uint8_t>(out.begin(), out.begin() + opts.data_size_out), *cfg_.expected_out);
    return diff.empty() ? "" : "the output packet differs from the expected one: " + diff;
  }

  ProducerConfig cfg_;
  uint64_t ops_;
};

template <void (*Target)()>
class UprobeProducer final : public Producer {
 public:
  explicit UprobeProducer(bool atomic) : atomic_(atomic) {}
  Result<void> run(int, ProducerSlot &slot, const std::atomic<bool> &stop) override {
    count_calls(slot, stop, atomic_, [] { Target(); });
    return {};
  }

 private:
  bool atomic_;
};

class IdleProducer final : public Producer {
 public:
  Result<void> run(int, ProducerSlot &, const std::atomic<bool> &stop) override {
    while (!stop.load(std::memory_order_relaxed)) std::this_thread::sleep_for(std::chrono::milliseconds(10));
    return {};
  }
};

}  // namespace

Result<std::unique_ptr<Producer>> make_syscall_producer(const ProducerConfig &cfg) {
  return std::unique_ptr<Producer>(std::make_unique<SyscallProducer>(cfg.getpgid_self, cfg.atomic_count));
}

Result<std::unique_ptr<Producer>> make_test_run_producer(const ProducerConfig &cfg) {
  if (cfg.test_run_fd < 0) return Error("producer test_run needs a loaded driver program");
  return std::unique_ptr<Producer>(std::make_unique<TestRunProducer>(cfg));
}

template <void (*Target)()>
Result<std::unique_ptr<Producer>> make_uprobe_producer(const ProducerConfig &cfg) {
  return std::unique_ptr<Producer>(std::make_unique<UprobeProducer<Target>>(cfg.atomic_count));
}
template Result<std::unique_ptr<Producer>> make_uprobe_producer<bpfbench_uprobe_target_nop>(const ProducerConfig &);
template Result<std::unique_ptr<Producer>> make_uprobe_producer<bpfbench_uprobe_target_push>(const ProducerConfig &);
template Result<std::unique_ptr<Producer>> make_uprobe_producer<bpfbench_uprobe_target_ret>(const ProducerConfig &);
template Result<std::unique_ptr<Producer>> make_uprobe_producer<bpfbench_uprobe_target_nop5>(const ProducerConfig &);
template Result<std::unique_ptr<Producer>> make_uprobe_producer<bpfbench_usdt_target_nop>(const ProducerConfig &);
template Result<std::unique_ptr<Producer>> make_uprobe_producer<bpfbench_usdt_target_nop5>(const ProducerConfig &);

Result<std::unique_ptr<Producer>> make_idle_producer(const ProducerConfig &) {
  return std::unique_ptr<Producer>(std::make_unique<IdleProducer>());
}

Result<std::unique_ptr<Consumer>> make_consumer(const ConsumerConfig &cfg) {
  if (cfg.kind != ConsumerKind::None && !cfg.consumed)
    return Error(std::string("consumer '") + kind_name(cfg.kind) + "' needs a counter for consumed records");
  switch (cfg.kind) {
  case ConsumerKind::None: return std::unique_ptr<Consumer>();
  case ConsumerKind::Ringbuf:
  case ConsumerKind::Perfbuf: return make_buffer_consumer(*buffer_kind(cfg.kind), cfg);
  case ConsumerKind::Socket:
    if (cfg.socket_fd < 0)
      return Error("consumer 'socket' needs a socket to read: a socket_pairs setup action with `receive`");
    return std::unique_ptr<Consumer>(make_socket_consumer(cfg.socket_fd, cfg.consumed, cfg.interrupt, cfg.verify_per_byte));
  }
  return Error("unknown consumer kind");
}

}  // namespace bpfbench
