// pb-libbpf and pb-custom: the two ways the kernel's ringbuf bench reads a perf buffer.
#include <bpf/libbpf.h>
#include <linux/perf_event.h>
#include <sys/epoll.h>
#include <unistd.h>

#include <atomic>
#include <cerrno>
#include <vector>

#include "runtime/bpf_object.hpp"
#include "runtime/consumers/buffer_consumers.hpp"

namespace bpfbench {
namespace {

// Both flavors let libbpf open one BPF-output perf event per CPU, mmap its ring and put
// it in the map; they differ in how records are read.
class PerfbufBase : public BufferConsumer {
 public:
  explicit PerfbufBase(const ConsumerConfig &cfg) : BufferConsumer(cfg) {}
  ~PerfbufBase() override { perf_buffer__free(pb_); }

  Result<void> open_buffers() {
    perf_event_attr attr{};
    attr.type = PERF_TYPE_SOFTWARE;
    attr.config = PERF_COUNT_SW_BPF_OUTPUT;
    attr.sample_type = PERF_SAMPLE_RAW;
    // Sampled notification: the consumer is woken once per sample_rate records.
    uint64_t every = cfg_.sampled ? cfg_.sample_rate : 1;
    attr.sample_period = every;
    attr.wakeup_events = static_cast<__u32>(every);
    pb_ = perf_buffer__new_raw(cfg_.map_fd, cfg_.perfbuf_pages, &attr, &PerfbufBase::on_event, this, nullptr);
    if (!pb_) return Error("perf_buffer__new_raw failed: " + errno_text(errno));
    return {};
  }

 protected:
  static enum bpf_perf_event_ret on_event(void *ctx, int, perf_event_header *e) {
    if (e->type == PERF_RECORD_SAMPLE) static_cast<PerfbufBase *>(ctx)->count_one();
    else if (e->type != PERF_RECORD_LOST) return LIBBPF_PERF_EVENT_ERROR;
    return LIBBPF_PERF_EVENT_CONT;
  }

  perf_buffer *pb_ = nullptr;
};

class PerfbufLibbpf final : public PerfbufBase {
 public:
  using PerfbufBase::PerfbufBase;
  Result<void> init() { return open_buffers(); }

 private:
  Result<void> wait_and_drain() override {
    int n = perf_buffer__poll(pb_, kConsumerPollMs);
    if (n < 0 && n != -EINTR) return Error("perf_buffer__poll failed: " + errno_text(-n));
    return n == 0 ? on_timeout() : Result<void>{};
  }
  Result<void> drain() override {
    int n = perf_buffer__consume(pb_);
    if (n < 0) return Error("perf_buffer__consume failed: " + errno_text(-n));
    return {};
  }
};

// Reads each CPU's ring directly: data_head (acquire) .. data_tail, one tail store per
// ring per pass. Records are 8-byte aligned in a power-of-two ring, so a header never
// wraps; the payload is not read at all.
class PerfbufCustom final : public PerfbufBase {
 public:
  using PerfbufBase::PerfbufBase;
  ~PerfbufCustom() override {
    if (epfd_ >= 0) close(epfd_);
  }

  Result<void> init() {
    if (auto ok = open_buffers(); !ok) return ok;
    size_t page = static_cast<size_t>(sysconf(_SC_PAGESIZE));
    epfd_ = epoll_create1(EPOLL_CLOEXEC);
    if (epfd_ < 0) return Error("epoll_create1 failed: " + errno_text(errno));
    size_t n = perf_buffer__buffer_cnt(pb_);
    for (size_t i = 0; i < n; ++i) {
      void *base = nullptr;
      size_t size = 0;
      int err = perf_buffer__buffer(pb_, static_cast<int>(i), &base, &size);
      if (err) return Error("perf_buffer__buffer failed: " + errno_text(-err));
      // The header page says where the data area starts and how big it is.
      auto *hdr = static_cast<perf_event_mmap_page *>(base);
      uint64_t off = hdr->data_offset ? hdr->data_offset : page, len = hdr->data_size ? hdr->data_size : size;
      if (len == 0 || (len & (len - 1))) return Error("perf buffer data area is not a power of two");
      rings_.push_back(Ring{hdr, static_cast<const char *>(base) + off, len - 1});
      epoll_event ev{};
      ev.events = EPOLLIN;
      ev.data.u64 = i;
      if (epoll_ctl(epfd_, EPOLL_CTL_ADD, perf_buffer__buffer_fd(pb_, i), &ev) < 0)
        return Error("epoll_ctl on a perf buffer failed: " + errno_text(errno));
    }
    events_.resize(rings_.size());
    return {};
  }

 private:
  struct Ring {
    perf_event_mmap_page *header;
    const char *data;
    uint64_t mask;
  };

  Result<void> wait_and_drain() override {
    int n = epoll_wait(epfd_, events_.data(), static_cast<int>(events_.size()), kConsumerPollMs);
    if (n < 0 && errno != EINTR) return Error("epoll_wait on the perf buffers failed: " + errno_text(errno));
    if (n == 0) return on_timeout();
    for (int i = 0; i < n; ++i) read_ring(rings_[events_[static_cast<size_t>(i)].data.u64]);
    return {};
  }
  Result<void> drain() override {
    for (auto &r : rings_) read_ring(r);
    return {};
  }

  void read_ring(Ring &r) {
    uint64_t head = std::atomic_ref<__u64>(r.header->data_head).load(std::memory_order_acquire);
    uint64_t tail = r.header->data_tail, records = 0;  // only this thread writes the tail
    while (tail != head) {
      auto *e = reinterpret_cast<const perf_event_header *>(r.data + (tail & r.mask));
      if (e->type == PERF_RECORD_SAMPLE) records += count_record();
      tail += e->size;
    }
    std::atomic_ref<__u64>(r.header->data_tail).store(tail, std::memory_order_release);
    count(records);
  }

  std::vector<Ring> rings_;
  std::vector<epoll_event> events_;
  int epfd_ = -1;
};

}  // namespace

Result<std::unique_ptr<Consumer>> make_perfbuf_consumer(const ConsumerConfig &cfg) {
  return make_flavor<PerfbufLibbpf, PerfbufCustom>(cfg);
}

}  // namespace bpfbench
