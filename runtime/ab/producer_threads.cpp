#include "runtime/ab/producer_threads.hpp"

#include <ctime>
#include <system_error>

#include "runtime/cpuset.hpp"

namespace bpfbench {

Result<> ProducerThreads::start(Producer &producer, const std::vector<int> &cpus) {
  stop();
  stop_.store(false);
  error_.reset();
  counters_ = std::make_unique<ProducerCounters>(cpus.size());
  auto fail = [this](const std::string &why) {
    std::lock_guard<std::mutex> g(mu_);
    if (!error_) error_ = Error(why);
    stop_.store(true);
  };
  for (size_t i = 0; i < cpus.size(); ++i) {
    try {
      threads_.emplace_back([this, &producer, fail, i, cpu = cpus[i]] {
        if (auto pinned = pin_thread_to(cpu); !pinned) return fail(pinned.error().message);
        if (auto ok = producer.run(int(i), counters_->slot(i), stop_); !ok) fail(ok.error().message);
      });
    } catch (const std::system_error &e) {
      fail("cannot create producer thread " + std::to_string(i + 1) + ": " + e.code().message());
      break;
    }
    clockid_t c{};
    if (pthread_getcpuclockid(threads_.back().native_handle(), &c) == 0) clocks_.push_back(c);
  }
  if (auto e = error()) return *e;
  counters_->take();
  counters_->take_kernel_ns();
  return {};
}

uint64_t ProducerThreads::cpu_ns() const {
  uint64_t sum = 0;
  for (clockid_t c : clocks_) {
    timespec ts{};
    if (clock_gettime(c, &ts) == 0) sum += uint64_t(ts.tv_sec) * 1'000'000'000u + uint64_t(ts.tv_nsec);
  }
  return sum;
}

std::optional<Error> ProducerThreads::error() const {
  std::lock_guard<std::mutex> g(mu_);
  return error_;
}

void ProducerThreads::stop() {
  stop_.store(true);
  for (auto &t : threads_)
    if (t.joinable()) t.join();
  threads_.clear();
  clocks_.clear();
}

}  // namespace bpfbench
