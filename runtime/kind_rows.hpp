// The check the runtime's per-kind tables share (runtime/producer_config.cpp,
// runtime/consumer_setup.cpp): row i is the enum's value i. With the table's size held
// against the enum's count, a kind without a row fails to build.
#pragma once

#include <cstddef>

namespace bpfbench {

template <typename Row, size_t N>
constexpr bool rows_in_enum_order(const Row (&rows)[N]) {
  for (size_t i = 0; i < N; ++i)
    if (static_cast<size_t>(rows[i].kind) != i) return false;
  return true;
}

}  // namespace bpfbench
