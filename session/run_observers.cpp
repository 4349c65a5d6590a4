#include "session/run_observers.hpp"

#include <fmt/format.h>
#include <set>

#include "util/atomic_file.hpp"
#include "runtime/hw_counters.hpp"

namespace bpfbench {

namespace {

std::string dir_of(const std::string &path) {
  size_t slash = path.rfind('/');
  if (slash == std::string::npos) return ".";
  return slash == 0 ? "/" : path.substr(0, slash);
}

// Unique file stems per label: a second label that escapes to the same stem gets "-<index>".
std::map<std::string, std::string> stems_for(const RunPlan &plan) {
  std::map<std::string, std::string> out;
  std::set<std::string> used;
  for (const auto &p : plan.points) {
    if (out.count(p.label)) continue;
    std::string stem = profile_file_stem(p.label);
    if (!used.insert(stem).second) {
      stem += "-" + std::to_string(p.index);
      used.insert(stem);
    }
    out[p.label] = stem;
  }
  return out;
}

}  // namespace

std::string profiles_parent(const RunArgs &a) {
  for (const std::string *f : {&a.json_out, &a.csv_out, &a.markdown_out})
    if (!f->empty()) return dir_of(*f);
  return ".";
}

Result<RunObservers> prepare_observers(const RunArgs &a, const Frontend &fe, std::vector<std::string> &said) {
  RunObservers out;
  HwProbe hw;
  if (!a.profile.empty() || a.hw_counters) hw = probe_hw_counters();
  if (a.hw_counters) {
    out.hw_counters = hw.available;
    if (!hw.available)
      said.push_back(fmt::format("note: --hw-counters: {}; no cycles or instructions per op in this run", hw.reason));
  }
  if (a.profile.empty()) return out;
  if (std::string why = probe_perf(); !why.empty()) {
    said.push_back(fmt::format("warning: --profile: {}; the run goes on unprofiled", why));
    return out;
  }
  ProfileOptions po;
  po.folded = a.profile == "folded";
  po.event = hw.available ? "cycles" : "cpu-clock";  // no PMU: the software clock event
  po.stem_of = stems_for(*fe.plan);
  auto folders = open_profile_folders(profiles_parent(a));
  if (!folders) return Error("--profile: " + folders.error().message);
  po.folders = std::move(*folders);
  const std::string &dir = po.folders->out.path();
  if (size_t n = po.folders->stale_removed)
    said.push_back(fmt::format("note: --profile: removed {} temporary folder{} a killed run left in {}", n,
                               n == 1 ? "" : "s", dir));
  std::vector<OutputRequest> outputs;
  for (const std::string *f : {&a.json_out, &a.csv_out, &a.markdown_out})
    if (!f->empty()) outputs.push_back({"--json/--csv/--markdown", *f});
  for (const auto &[label, stem] : po.stem_of) {
    outputs.push_back({"--profile", dir + "/" + stem + ".perf.data"});
    if (po.folded) outputs.push_back({"--profile", dir + "/" + stem + ".folded"});
  }
  std::vector<std::string> inputs;
  for (size_t i = 0; i < fe.sources.size(); ++i) inputs.push_back(fe.sources.file(static_cast<uint32_t>(i)).path);
  BB_TRY(check_output_paths(outputs, inputs));
  out.profile = std::move(po);
  return out;
}

}  // namespace bpfbench
