// rb-libbpf and rb-custom: the two ways the kernel's ringbuf bench reads a BPF ring buffer.
#include <bpf/libbpf.h>
#include <sys/epoll.h>
#include <sys/mman.h>
#include <unistd.h>

#include <atomic>
#include <cerrno>
#include <cstring>

#include "runtime/bpf_object.hpp"
#include "runtime/consumers/buffer_consumers.hpp"

namespace bpfbench {
namespace {

// libbpf's manager: one callback per record, consumer position published per record.
class RingbufLibbpf final : public BufferConsumer {
 public:
  explicit RingbufLibbpf(const ConsumerConfig &cfg) : BufferConsumer(cfg) {}
  ~RingbufLibbpf() override { ring_buffer__free(rb_); }

  Result<void> init() {
    rb_ = ring_buffer__new(cfg_.map_fd, &RingbufLibbpf::on_record, this, nullptr);
    if (!rb_) return Error("ring_buffer__new failed: " + errno_text(errno));
    return {};
  }

 private:
  static int on_record(void *ctx, void *, size_t) {
    static_cast<RingbufLibbpf *>(ctx)->count_one();
    return 0;
  }
  Result<void> wait_and_drain() override {
    int n = ring_buffer__poll(rb_, kConsumerPollMs);
    if (n < 0 && n != -EINTR) return Error("ring_buffer__poll failed: " + errno_text(-n));
    return n == 0 ? on_timeout() : Result<void>{};
  }
  Result<void> drain() override {
    int n = ring_buffer__consume(rb_);
    if (n < 0) return Error("ring_buffer__consume failed: " + errno_text(-n));
    return {};
  }

  ring_buffer *rb_ = nullptr;
};

// The kernel's record header (include/uapi/linux/bpf.h): a 32-bit length whose top bits
// say "not committed yet" and "discarded", then 32 bits the kernel uses; data follows,
// padded to 8 bytes.
constexpr uint32_t kBusyBit = 1u << 31;
constexpr uint32_t kDiscardBit = 1u << 30;
constexpr uint64_t kHeaderLen = 8;

// bpfbench's own reader: epoll on the map, then everything committed is consumed and the
// consumer position is written once per pass instead of once per record.
class RingbufCustom final : public BufferConsumer {
 public:
  explicit RingbufCustom(const ConsumerConfig &cfg) : BufferConsumer(cfg) {}
  ~RingbufCustom() override {
    if (data_map_ != MAP_FAILED) munmap(data_map_, data_len_);
    if (cons_map_ != MAP_FAILED) munmap(cons_map_, page_);
    if (epfd_ >= 0) close(epfd_);
  }

  Result<void> init() {
    page_ = static_cast<size_t>(sysconf(_SC_PAGESIZE));
    if (cfg_.ring_size == 0 || (cfg_.ring_size & (cfg_.ring_size - 1)))
      return Error("ring buffer size " + std::to_string(cfg_.ring_size) + " is not a power of two");
    mask_ = cfg_.ring_size - 1;
    // Layout of a ringbuf map's mmap: the consumer page (writable), then the producer page
    // and the data pages mapped twice in a row, so a record never wraps for the reader.
    cons_map_ = mmap(nullptr, page_, PROT_READ | PROT_WRITE, MAP_SHARED, cfg_.map_fd, 0);
    if (cons_map_ == MAP_FAILED) return Error("mmap of the ring buffer consumer page failed: " + errno_text(errno));
    data_len_ = page_ + 2 * cfg_.ring_size;
    data_map_ = mmap(nullptr, data_len_, PROT_READ, MAP_SHARED, cfg_.map_fd, static_cast<off_t>(page_));
    if (data_map_ == MAP_FAILED) return Error("mmap of the ring buffer data pages failed: " + errno_text(errno));
    consumer_pos_ = static_cast<uint64_t *>(cons_map_);
    producer_pos_ = static_cast<uint64_t *>(data_map_);
    data_ = static_cast<const char *>(data_map_) + page_;

    epfd_ = epoll_create1(EPOLL_CLOEXEC);
    if (epfd_ < 0) return Error("epoll_create1 failed: " + errno_text(errno));
    epoll_event ev{};
    ev.events = EPOLLIN;
    if (epoll_ctl(epfd_, EPOLL_CTL_ADD, cfg_.map_fd, &ev) < 0)
      return Error("epoll_ctl on the ring buffer failed: " + errno_text(errno));
    return {};
  }

 private:
  Result<void> wait_and_drain() override {
    epoll_event ev{};
    int n = epoll_wait(epfd_, &ev, 1, kConsumerPollMs);
    if (n < 0 && errno != EINTR) return Error("epoll_wait on the ring buffer failed: " + errno_text(errno));
    if (n > 0) return drain();
    return n == 0 ? on_timeout() : Result<void>{};
  }

  Result<void> drain() override {
    std::atomic_ref<uint64_t> cons_ref(*consumer_pos_), prod_ref(*producer_pos_);
    uint64_t cons = cons_ref.load(std::memory_order_acquire);
    uint64_t records = 0;
    for (;;) {
      uint64_t prod = prod_ref.load(std::memory_order_acquire), start = cons;
      bool busy = false;
      while (cons < prod) {
        auto *hdr = reinterpret_cast<uint32_t *>(const_cast<char *>(data_ + (cons & mask_)));
        uint32_t len = std::atomic_ref<uint32_t>(*hdr).load(std::memory_order_acquire);
        if (len & kBusyBit) {  // reserved, not submitted yet: stop here for now
          busy = true;
          break;
        }
        if (!(len & kDiscardBit)) records += count_record();
        cons += (kHeaderLen + (len & ~(kBusyBit | kDiscardBit)) + 7) & ~uint64_t{7};
      }
      if (cons != start) cons_ref.store(cons, std::memory_order_release);
      if (busy || cons == start) break;
    }
    count(records);
    return {};
  }

  size_t page_ = 4096, data_len_ = 0;
  void *cons_map_ = MAP_FAILED, *data_map_ = MAP_FAILED;
  uint64_t *consumer_pos_ = nullptr, *producer_pos_ = nullptr;
  const char *data_ = nullptr;
  uint64_t mask_ = 0;
  int epfd_ = -1;
};

}  // namespace

Result<std::unique_ptr<Consumer>> make_ringbuf_consumer(const ConsumerConfig &cfg) {
  return make_flavor<RingbufLibbpf, RingbufCustom>(cfg);
}

}  // namespace bpfbench
