#include "runtime/hw_counters.hpp"

#include <linux/perf_event.h>
#include <sys/ioctl.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>

namespace bpfbench {

namespace {

int open_counter(uint64_t config, bool inherit) {
  perf_event_attr attr{};
  attr.size = sizeof attr;
  attr.type = PERF_TYPE_HARDWARE;
  attr.config = config;
  attr.disabled = 1;
  attr.inherit = inherit ? 1 : 0;
  attr.exclude_hv = 1;
  attr.read_format = PERF_FORMAT_TOTAL_TIME_ENABLED | PERF_FORMAT_TOTAL_TIME_RUNNING;
  return static_cast<int>(::syscall(SYS_perf_event_open, &attr, 0, -1, -1, PERF_FLAG_FD_CLOEXEC));
}

struct Reading {
  uint64_t value = 0, enabled = 0, running = 0;
};

Result<Reading> read_counter(int fd) {
  Reading r;
  if (::read(fd, &r, sizeof r) != static_cast<ssize_t>(sizeof r))
    return Error(std::string("reading a hardware counter: ") + std::strerror(errno));
  return r;
}

}  // namespace

HwProbe probe_hw_counters() {
  HwProbe p;
  int fd = open_counter(PERF_COUNT_HW_CPU_CYCLES, false);
  if (fd < 0) {
    const int e = errno;
    // ENOENT/EOPNOTSUPP: no PMU (a VM without a virtual one); EACCES/EPERM: perf_event_paranoid.
    const bool no_pmu = e == ENOENT || e == EOPNOTSUPP || e == ENODEV;
    p.reason = std::string(no_pmu ? "no hardware PMU" : "hardware counters not permitted") +
               ": perf_event_open(cycles): " + errno_text(e);
    return p;
  }
  ::close(fd);
  p.available = true;
  return p;
}

HwCounters::~HwCounters() {
  for (int fd : {cycles_, instructions_, cache_misses_})
    if (fd >= 0) ::close(fd);
}

Result<> HwCounters::open() {
  cycles_ = open_counter(PERF_COUNT_HW_CPU_CYCLES, true);
  if (cycles_ < 0) return Error("perf_event_open(cycles): " + errno_text(errno));
  instructions_ = open_counter(PERF_COUNT_HW_INSTRUCTIONS, true);
  if (instructions_ < 0) return Error("perf_event_open(instructions): " + errno_text(errno));
  cache_misses_ = open_counter(PERF_COUNT_HW_CACHE_MISSES, true);  // optional
  return {};
}

void HwCounters::enable() {
  for (int fd : {cycles_, instructions_, cache_misses_})
    if (fd >= 0) ::ioctl(fd, PERF_EVENT_IOC_ENABLE, 0);
}

void HwCounters::disable() {
  for (int fd : {cycles_, instructions_, cache_misses_})
    if (fd >= 0) ::ioctl(fd, PERF_EVENT_IOC_DISABLE, 0);
}

Result<HwCounts> HwCounters::read() const {
  HwCounts c;
  auto cy = read_counter(cycles_);
  if (!cy) return cy.error();
  auto in = read_counter(instructions_);
  if (!in) return in.error();
  c.cycles = cy->value;
  c.instructions = in->value;
  if (cy->running > 0 && cy->running < cy->enabled) c.scale = double(cy->enabled) / double(cy->running);
  if (cache_misses_ >= 0)
    if (auto cm = read_counter(cache_misses_)) {
      c.cache_misses = cm->value;
      c.has_cache_misses = true;
    }
  return c;
}

}  // namespace bpfbench
