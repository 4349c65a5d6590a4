#include "runtime/consumers/buffer_consumers.hpp"

#include <utility>

namespace bpfbench {
namespace {

constexpr BufferKind kRingbuf{ConsumerKind::Ringbuf, BPF_MAP_TYPE_RINGBUF, "BPF_MAP_TYPE_RINGBUF", "ring buffer",
                              make_ringbuf_consumer};
constexpr BufferKind kPerfbuf{ConsumerKind::Perfbuf, BPF_MAP_TYPE_PERF_EVENT_ARRAY, "BPF_MAP_TYPE_PERF_EVENT_ARRAY",
                              "perf buffer", make_perfbuf_consumer};

// The `consumer` param's words, in the order messages list them.
constexpr std::pair<BufferFlavor, const char *> kFlavors[] = {{BufferFlavor::Libbpf, "libbpf"},
                                                              {BufferFlavor::Custom, "custom"}};

}  // namespace

const BufferKind *buffer_kind(ConsumerKind kind) {
  switch (kind) {
  case ConsumerKind::Ringbuf: return &kRingbuf;
  case ConsumerKind::Perfbuf: return &kPerfbuf;
  case ConsumerKind::None:
  case ConsumerKind::Socket: return nullptr;
  }
  return nullptr;
}

Result<BufferFlavor> buffer_flavor(const BufferKind &buf, const std::string &word) {
  std::string names;
  for (const auto &[flavor, name] : kFlavors) {
    if (word == name) return flavor;
    names += names.empty() ? name : std::string(" or ") + name;
  }
  return Error(std::string("unknown ") + buf.noun + " consumer '" + word + "' (expected " + names + ")");
}

Result<std::unique_ptr<Consumer>> make_buffer_consumer(const BufferKind &buf, const ConsumerConfig &cfg) {
  if (cfg.map_fd < 0)
    return Error(std::string("consumer '") + kind_name(buf.kind) + "' needs a " + buf.map_type_name +
                 " map in the program");
  return buf.make(cfg);
}

Result<void> BufferConsumer::run(int, const std::atomic<bool> &stop) {
  uint64_t triggers = 0;
  auto trigger = [&]() -> std::string {
    if (!cfg_.trigger || (cfg_.max_triggers && triggers >= cfg_.max_triggers)) return "";
    ++triggers;
    return cfg_.trigger();
  };
  if (auto e = trigger(); !e.empty()) return Error(e);
  while (!stop.load(std::memory_order_relaxed)) {
    if (auto ok = wait_and_drain(); !ok) return ok;
    // The batch just drained is all there is (the program ran synchronously in the
    // trigger), so the next one starts with an empty buffer: no drops by construction.
    if (auto e = trigger(); !e.empty()) return Error(e);
  }
  return drain();
}

}  // namespace bpfbench
