#include "runtime/owner_producers.hpp"

#include <netinet/in.h>
#include <pthread.h>
#include <sys/socket.h>
#include <unistd.h>

#include <cerrno>
#include <vector>

namespace bpfbench {
namespace {

class SocketCreateProducer final : public Producer {
 public:
  explicit SocketCreateProducer(uint32_t batch) : batch_(batch ? batch : 1) {}
  Result<void> run(int, ProducerSlot &slot, const std::atomic<bool> &stop) override {
    std::vector<int> fds(batch_);
    while (!stop.load(std::memory_order_relaxed)) {
      uint64_t made = 0;
      for (int &fd : fds) {
        fd = socket(AF_INET6, SOCK_DGRAM | SOCK_CLOEXEC, 0);
        made += fd >= 0;
      }
      for (int fd : fds)
        if (fd >= 0) close(fd);
      slot.add(made);
    }
    return {};
  }

 private:
  uint32_t batch_;
};

void *return_at_once(void *) { return nullptr; }

class ThreadCreateProducer final : public Producer {
 public:
  explicit ThreadCreateProducer(uint32_t batch) : batch_(batch ? batch : 1) {}
  Result<void> run(int, ProducerSlot &slot, const std::atomic<bool> &stop) override {
    std::vector<pthread_t> threads(batch_);
    std::vector<bool> made(batch_);
    while (!stop.load(std::memory_order_relaxed)) {
      uint64_t n = 0;
      for (uint32_t i = 0; i < batch_; ++i) {
        made[i] = pthread_create(&threads[i], nullptr, return_at_once, nullptr) == 0;
        n += made[i];
      }
      for (uint32_t i = 0; i < batch_; ++i)
        if (made[i]) pthread_join(threads[i], nullptr);
      slot.add(n);
    }
    return {};
  }

 private:
  uint32_t batch_;
};

class GetsockoptProducer final : public Producer {
 public:
  Result<void> run(int, ProducerSlot &slot, const std::atomic<bool> &stop) override {
    int fd = socket(AF_INET6, SOCK_STREAM | SOCK_CLOEXEC, 0);
    if (fd < 0) return Error("getsockopt producer: socket() failed: " + errno_text(errno));
    while (!stop.load(std::memory_order_relaxed)) {
      int val = 0;
      socklen_t len = sizeof(val);
      (void)getsockopt(fd, 0xdead, 0xbeef, &val, &len);  // answered by the BPF program
      slot.add(1);
    }
    close(fd);
    return {};
  }
};

}  // namespace

std::unique_ptr<Producer> make_owner_producer(const ProducerConfig &cfg) {
  switch (cfg.kind) {
  case ProducerKind::SocketCreate: return std::make_unique<SocketCreateProducer>(cfg.batch_size);
  case ProducerKind::ThreadCreate: return std::make_unique<ThreadCreateProducer>(cfg.batch_size);
  case ProducerKind::Getsockopt: return std::make_unique<GetsockoptProducer>();
  default: return nullptr;
  }
}

}  // namespace bpfbench
