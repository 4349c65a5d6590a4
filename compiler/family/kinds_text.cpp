#include "compiler/family/kinds_text.hpp"

#include <fmt/format.h>

#include <set>

#include "compiler/family/kinds.hpp"

namespace bpfbench {

namespace {

template <typename Kind>
void table_text(std::string &out, const char *title, std::vector<KindParam> &params) {
  out += fmt::format("{}:\n", title);
  for (const auto &row : kind_table<Kind>()) {
    out += fmt::format("  {:<16} {}\n", row.name, row.doc);
    if (*row.served_by) out += fmt::format("  {:<16} served by {}\n", "", row.served_by);
    if (row.params.empty()) continue;
    std::string names;
    for (const auto &p : row.params) {
      names += (names.empty() ? "" : ", ") + std::string(p.name);
      params.push_back(p);
    }
    out += fmt::format("  {:<16} reads {}\n", "", names);
  }
  out += "\n";
}

}  // namespace

std::string kinds_reference() {
  std::string out;
  std::vector<KindParam> params;
  table_text<ProducerKind>(out, "producer (family.json `producer`)", params);
  table_text<ConsumerKind>(out, "consumer (family.json `consumer`)", params);
  table_text<AttachKind>(out, "attach (a program's `attach`)", params);
  table_text<SetupActionKind>(out, "setup action (`setup`: docs/families.md has each one's keys)", params);
  table_text<MetricSourceKind>(out, "metric source (a metric's `source`)", params);
  out += "params the kinds read (a family declares each one it uses, dest `runtime`):\n";
  std::set<std::string> seen;
  for (const auto &p : params)
    if (seen.insert(p.name).second) out += fmt::format("  {:<18} {}\n", p.name, p.doc);
  return out;
}

}  // namespace bpfbench
