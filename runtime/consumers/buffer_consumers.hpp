// Ring buffer and perf buffer consumers (libbpf managers and bpfbench's own mmap readers).
#pragma once

#include <linux/bpf.h>

#include <memory>
#include <optional>
#include <string>

#include "runtime/components.hpp"

namespace bpfbench {

// How long a consumer blocks in one wait: the bound on how late it notices a stop.
constexpr int kConsumerPollMs = 100;

// Flavor libbpf: ring_buffer__poll with a counting callback; custom: epoll on the map and
// a reader over the mmap'ed consumer/producer pages that publishes its position once per
// drained batch. `cfg.map_fd` is the ring buffer map.
Result<std::unique_ptr<Consumer>> make_ringbuf_consumer(const ConsumerConfig &cfg);

// Flavor libbpf: perf_buffer__poll with a raw event callback; custom: the same per-CPU
// perf rings (set up by libbpf) read directly from their mmap'ed pages. `cfg.map_fd` is
// the perf event array.
Result<std::unique_ptr<Consumer>> make_perfbuf_consumer(const ConsumerConfig &cfg);

// A consumer kind that reads a BPF buffer map: the map it reads and the maker of its readers.
struct BufferKind {
  ConsumerKind kind;
  bpf_map_type map_type;
  const char *map_type_name;  // "BPF_MAP_TYPE_RINGBUF", for messages
  const char *noun;           // "ring buffer", for messages
  Result<std::unique_ptr<Consumer>> (*make)(const ConsumerConfig &cfg);
};
// The row of `kind`; nullptr for a kind that reads no buffer map (none, socket).
const BufferKind *buffer_kind(ConsumerKind kind);
// The flavor the `consumer` param's word names; an error names the words there are.
Result<BufferFlavor> buffer_flavor(const BufferKind &buf, const std::string &word);
// `buf`'s reader of `cfg.flavor` over `cfg.map_fd`; fails without a map or when the buffer
// cannot be set up.
Result<std::unique_ptr<Consumer>> make_buffer_consumer(const BufferKind &buf, const ConsumerConfig &cfg);

// A consumer of type C over `cfg`, set up by its init() ("" or why it could not be).
template <typename C>
Result<std::unique_ptr<Consumer>> make_initialized(const ConsumerConfig &cfg) {
  auto c = std::make_unique<C>(cfg);
  if (auto ok = c->init(); !ok) return ok.error();
  return std::unique_ptr<Consumer>(std::move(c));
}

// The one switch over the flavors: a buffer kind's reader of `cfg.flavor`, given its
// reader types (each a BufferConsumer with init()).
template <typename Libbpf, typename Custom>
Result<std::unique_ptr<Consumer>> make_flavor(const ConsumerConfig &cfg) {
  switch (cfg.flavor) {
  case BufferFlavor::Libbpf: return make_initialized<Libbpf>(cfg);
  case BufferFlavor::Custom: return make_initialized<Custom>(cfg);
  }
  return Error("unknown buffer consumer flavor");
}

// Shared loop of every buffer consumer: in back-to-back mode trigger a batch, wait for data
// (at most kConsumerPollMs), drain, and again until stop; then one last drain so records
// that never caused a wakeup (sampled notification) are still delivered.
class BufferConsumer : public Consumer {
 public:
  explicit BufferConsumer(const ConsumerConfig &cfg) : cfg_(cfg) {}
  Result<void> run(int index, const std::atomic<bool> &stop) final;
  Result<void> drain_rest() final { return drain(); }

 protected:
  // Waits for data and consumes what is there, or says why it could not. A wait that times out
  // (kConsumerPollMs) calls on_timeout().
  virtual Result<void> wait_and_drain() = 0;
  // Consumes what is there without waiting.
  virtual Result<void> drain() = 0;
  // A wait that timed out reads the buffer anyway: a wakeup can be missed (the ring
  // buffer's adaptive notification skips it when, at commit, the consumer position lagged
  // behind the record, e.g. while the consumer stopped at a record not committed yet), and
  // the consumer would sleep on while the buffer filled up and every record was dropped.
  // Not back-to-back: there the loop triggers the next batch instead, and the data that
  // piles up crosses a sampled wakeup threshold one batch alone may not reach (`output`
  // asks for its flags before writing the record; epoll then keeps the ready map polled).
  Result<void> on_timeout() { return cfg_.trigger ? Result<void>{} : drain(); }
  void count(uint64_t n) { cfg_.consumed->add(n); }
  // One record: with `atomic_count` a locked add now (the kernel bench's atomic_inc per
  // record); otherwise nothing, the reader counts its pass with count(). Returns 1 or 0,
  // what is left for count().
  uint64_t count_record() {
    if (!cfg_.atomic_count) return 1;
    cfg_.consumed->ops.fetch_add(1, std::memory_order_relaxed);
    return 0;
  }
  // One record counted now, either way (libbpf's per-record callbacks).
  void count_one() {
    if (uint64_t n = count_record()) count(n);
  }

  ConsumerConfig cfg_;
};

}  // namespace bpfbench
