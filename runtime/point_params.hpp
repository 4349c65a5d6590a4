// A point's params as a kind's configure reads them (runtime/producer_config.cpp,
// runtime/consumer_setup.cpp): by their KindParam only, each read noted when a test asks,
// so a test can hold a kind's reads against the params its row lists (compiler/family/kinds.cpp).
#pragma once

#include <cstdint>
#include <string>
#include <vector>

#include "compiler/bdsl/plan.hpp"
#include "compiler/family/kinds.hpp"

namespace bpfbench {

class PointParams {
 public:
  // `reads`, when set, gets the name of every param read (repeats included).
  explicit PointParams(const PlanPoint &p, std::vector<std::string> *reads = nullptr) : p_(p), reads_(reads) {}

  // The point's value, or null when the family does not declare the param.
  const ParamValue *param(const KindParam &k) const {
    note(k);
    return p_.param(k);
  }
  // An integer param, or the row's fallback (PlanPoint's rule).
  int64_t int_param(const KindParam &k) const {
    note(k);
    return p_.int_param(k);
  }
  // An enum param's choice, or "" when the point has none.
  std::string choice(const KindParam &k) const {
    const ParamValue *v = param(k);
    return v && !v->is_int ? v->s : "";
  }
  // A positive integer param, or 0.
  uint64_t positive(const KindParam &k) const {
    const ParamValue *v = param(k);
    return v && v->is_int && v->i > 0 ? static_cast<uint64_t>(v->i) : 0;
  }

 private:
  void note(const KindParam &k) const {
    if (reads_) reads_->emplace_back(k.name);
  }

  const PlanPoint &p_;
  std::vector<std::string> *reads_;
};

}  // namespace bpfbench
