// The `getppid` producer: a getppid() loop per producer thread, counting each call (with a
// locked add when the `op_count` param is `atomic`). The smallest producer there is: it
// shows what adding one takes (a row in compiler/family/kinds.cpp, this file, and the cases the
// compiler's -Wswitch asks for).
#include <sys/syscall.h>
#include <unistd.h>

#include "runtime/components.hpp"

namespace bpfbench {

namespace {

class GetppidProducer final : public Producer {
 public:
  explicit GetppidProducer(bool atomic) : atomic_(atomic) {}
  Result<void> run(int, ProducerSlot &slot, const std::atomic<bool> &stop) override {
    count_calls(slot, stop, atomic_, [] { (void)syscall(__NR_getppid); });
    return {};
  }

 private:
  bool atomic_;
};

}  // namespace

std::unique_ptr<Producer> make_getppid_producer(const ProducerConfig &cfg) {
  return std::make_unique<GetppidProducer>(cfg.atomic_count);
}

}  // namespace bpfbench
