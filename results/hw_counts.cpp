#include "results/hw_counts.hpp"

#include <fmt/format.h>

#include "results/json_values.hpp"

namespace bpfbench {

std::optional<HwPerOp> per_op(const HwCounts &c) {
  if (c.ops == 0 || c.cycles == 0) return std::nullopt;
  const double ops = double(c.ops), s = c.scale > 0 ? c.scale : 1.0;
  HwPerOp r;
  r.cycles = double(c.cycles) * s / ops;
  r.instructions = double(c.instructions) * s / ops;
  r.ipc = double(c.instructions) / double(c.cycles);  // the scale cancels
  if (c.has_cache_misses) r.cache_misses = double(c.cache_misses) * s / ops;
  return r;
}

std::string format_hw(const HwCounts &c) {
  auto r = per_op(c);
  if (!r) return "hw: no operations counted";
  std::string out =
      fmt::format("hw: {:.1f} cycles/op, {:.1f} instructions/op, IPC {:.2f}", r->cycles, r->instructions, r->ipc);
  if (r->cache_misses) out += fmt::format(", {:.3f} cache-misses/op", *r->cache_misses);
  if (c.scale > 1.0001) out += fmt::format(" (multiplexed, scaled x{:.2f})", c.scale);
  return out;
}

nlohmann::json hw_to_json(const HwCounts &c) {
  nlohmann::json j = {{"cycles", c.cycles}, {"instructions", c.instructions}, {"ops", c.ops}, {"scale", c.scale}};
  j["cache_misses"] = c.has_cache_misses ? nlohmann::json(c.cache_misses) : nlohmann::json(nullptr);
  if (auto r = per_op(c)) {
    j["per_op"] = {{"cycles", r->cycles}, {"instructions", r->instructions}, {"ipc", r->ipc}};
    j["per_op"]["cache_misses"] = json_or_null(r->cache_misses);
  }
  return j;
}

}  // namespace bpfbench
