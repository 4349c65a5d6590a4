#include "results/doctor.hpp"

#include <algorithm>
#include <array>

#include <fmt/format.h>

namespace bpfbench {

namespace {

// Text order: what to act on first.
int rank(DoctorSeverity s) {
  switch (s) {
  case DoctorSeverity::warn: return 0;
  case DoctorSeverity::unknown: return 1;
  case DoctorSeverity::info: return 2;
  case DoctorSeverity::ok: return 3;
  }
  return 3;
}

}  // namespace

const char *to_string(DoctorSeverity s) {
  switch (s) {
  case DoctorSeverity::ok: return "ok";
  case DoctorSeverity::info: return "info";
  case DoctorSeverity::warn: return "warn";
  case DoctorSeverity::unknown: return "unknown";
  }
  return "unknown";
}

nlohmann::json doctor_to_json(const DoctorReport &r) {
  std::array<int, 4> counts{};
  nlohmann::json findings = nlohmann::json::array();
  for (const Finding &f : r.findings) {
    ++counts[size_t(f.severity)];
    nlohmann::json numbers = nlohmann::json::object();
    for (const auto &[name, v] : f.numbers) numbers[name] = v;
    findings.push_back({{"id", f.id},
                        {"severity", to_string(f.severity)},
                        {"title", f.title},
                        {"value", f.value},
                        {"detail", f.detail},
                        {"fix", f.fix},
                        {"numbers", numbers}});
  }
  nlohmann::json summary = nlohmann::json::object();
  for (DoctorSeverity s : {DoctorSeverity::ok, DoctorSeverity::info, DoctorSeverity::warn, DoctorSeverity::unknown})
    summary[to_string(s)] = counts[size_t(s)];
  return {{"schema", kDoctorSchema},
          {"sampled", r.sampled},
          {"sample_s", r.sample_s},
          {"summary", summary},
          {"findings", findings}};
}

std::string doctor_to_text(const DoctorReport &r) {
  std::vector<const Finding *> order;
  for (const Finding &f : r.findings) order.push_back(&f);
  std::stable_sort(order.begin(), order.end(),
                   [](const Finding *a, const Finding *b) { return rank(a->severity) < rank(b->severity); });
  std::array<int, 4> counts{};
  for (const Finding &f : r.findings) ++counts[size_t(f.severity)];
  std::string out =
      fmt::format("bpfbench doctor: {} warn, {} unknown, {} info, {} ok{}\n", counts[size_t(DoctorSeverity::warn)],
                  counts[size_t(DoctorSeverity::unknown)], counts[size_t(DoctorSeverity::info)],
                  counts[size_t(DoctorSeverity::ok)], r.sampled ? "" : " (timed probes skipped)");
  for (const Finding *f : order) {
    out += fmt::format("[{}] {}: {}\n", to_string(f->severity), f->title, f->value);
    if (!f->detail.empty()) out += fmt::format("    {}\n", f->detail);
    if (!f->fix.empty()) out += fmt::format("    fix: {}\n", f->fix);
  }
  out += "doctor changed nothing; run the fix commands yourself (as root).\n";
  return out;
}

}  // namespace bpfbench
