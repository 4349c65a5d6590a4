#include "runtime/map_churn.hpp"

#include <bpf/bpf.h>
#include <unistd.h>

#include <cerrno>
#include <string>

#include "util/error.hpp"
#include "runtime/map_prefill.hpp"

namespace bpfbench {
namespace {

class MapChurnProducer final : public Producer {
 public:
  MapChurnProducer(int template_fd, uint64_t entries, uint32_t prefix_len)
      : template_fd_(template_fd), entries_(entries), prefix_len_(prefix_len) {}

  Result<void> run(int index, ProducerSlot &slot, const std::atomic<bool> &stop) override {
    if (index != 0)
      return Error("map_churn producer: one producer (the kernel's lpm-trie-free requires a single producer)");
    bpf_map_info info{};
    uint32_t len = sizeof(info);
    if (bpf_obj_get_info_by_fd(template_fd_, &info, &len) != 0)
      return Error(std::string("map_churn producer: cannot read map '") + kChurnTemplateMap +
                   "': " + errno_text(errno));
    LIBBPF_OPTS(bpf_map_create_opts, opts, .map_flags = info.map_flags);
    while (!stop.load(std::memory_order_relaxed)) {
      int fd = bpf_map_create(static_cast<bpf_map_type>(info.type), kChurnMapName, info.key_size, info.value_size,
                              info.max_entries, &opts);
      if (fd < 0) return Error("map_churn producer: creating a map failed: " + errno_text(errno));
      Result<> filled = prefill_map(fd, entries_, prefix_len_);
      close(fd);
      if (!filled) return Error("map_churn producer: filling a map failed: " + filled.error().message);
      slot.add(1);
    }
    return {};
  }

 private:
  int template_fd_;
  uint64_t entries_;
  uint32_t prefix_len_;
};

}  // namespace

std::unique_ptr<Producer> make_map_churn_producer(int template_fd, uint64_t entries, uint32_t prefix_len) {
  return std::make_unique<MapChurnProducer>(template_fd, entries, prefix_len);
}

}  // namespace bpfbench
