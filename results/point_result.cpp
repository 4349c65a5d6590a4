#include "results/point_result.hpp"

namespace bpfbench {
namespace {

std::string replace_all(std::string s, const std::string &from, const std::string &to) {
  for (size_t p = s.find(from); p != std::string::npos; p = s.find(from, p + to.size())) s.replace(p, from.size(), to);
  return s;
}

}  // namespace

const char *to_string(PointResult::Status s) {
  switch (s) {
  case PointResult::Status::Ok: return "ok";
  case PointResult::Status::Skipped: return "skipped";
  case PointResult::Status::Failed: return "failed";
  case PointResult::Status::Interrupted: return "interrupted";
  }
  return "?";
}

std::string format_per_cpu(const PerCpuSpec &spec, const std::vector<PerCpuRate> &rates) {
  std::string out;
  double total = 0;
  auto line = [&](const std::string &cpu, double rate) {
    std::string l = replace_all(spec.line, "{cpu}", cpu);
    out += replace_all(l, "{rate}", std::to_string(static_cast<long long>(rate))) + "\n";
  };
  for (const auto &r : rates) {
    line(std::to_string(r.cpu), r.rate);
    total += r.rate;
  }
  if (!rates.empty()) line("total", total);
  return out;
}

}  // namespace bpfbench
