// Kernel feature probing (`bpfbench probe`, and `requires` checks before a point loads).
#pragma once

#include <map>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

namespace bpfbench {

struct FeatureStatus {
  bool available = false;
  std::string reason;  // why not (errno text, missing BTF, not configured); "" when available
  // Not a missing kernel feature but this machine's setup (tracefs cannot be mounted, the
  // probe cannot be compiled): a point needing it fails instead of being skipped.
  bool environment = false;
};

// One probed feature. `kind` is prog_type | attach | helper | kfunc, `name` as written
// in a manifest's `requires` entry (`kind:name`).
struct FeatureRow {
  std::string kind;
  std::string name;
  bool available = false;
  std::string reason;
};

// Probes lazily and caches every answer for the prober's lifetime (one run).
// Attach kinds are probed by really loading and attaching a tiny program, so the reason
// is exactly what a benchmark of that kind would hit (fentry: EPERM at load; kprobe:
// no kprobe PMU / attach failure).
class FeatureProber {
 public:
  // `requirement` is "kind:name". Unknown kinds/names are reported unavailable with a
  // reason saying so.
  FeatureStatus check(const std::string &requirement);

  // Every feature the shipped families need, in a stable order.
  std::vector<FeatureRow> probe_all();

  // "program type tracing", "helper bpf_loop", "kfunc X", "fentry" (attach kinds).
  static std::string describe(const std::string &requirement);

 private:
  FeatureStatus probe(const std::string &kind, const std::string &name);
  std::map<std::string, FeatureStatus> cache_;
};

// The probe rows the `probe` command shows, in order.
const std::vector<std::string> &default_probe_list();

std::string render_probe_text(const std::vector<FeatureRow> &rows);
nlohmann::json probe_to_json(const std::vector<FeatureRow> &rows);

}  // namespace bpfbench
