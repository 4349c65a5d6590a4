// Benchmark families are data: bpf_templates/<family>/family.json + a mustache BPF C template.
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include "compiler/diagnostics.hpp"

namespace bpfbench {

// int: plain count (K/M/G = 10^3/10^6/10^9); size: bytes (K/M/G = 2^10/2^20/2^30);
// duration: nanoseconds (s/ms/us/ns; a bare number means seconds); bool: flag
// (`name;` = true, or `name true|false|1|0`); enum: one of `choices`.
enum class ParamType { Int, Size, Duration, Bool, Enum, Cpuset };

// Where a resolved value goes:
//   rodata   - a `const volatile` global the emitter declares; set before load
//   map_size - max_entries of map `map` (set before load)
//   template - a mustache value: changes the generated C (one object per distinct value)
//   runtime  - an option of a runtime component (producer/consumer/harness)
enum class ParamDest { Rodata, MapSize, Template, Runtime };

struct ParamValue {
  // Int/Size/Duration/Bool hold `i`; Enum/Cpuset hold `s`.
  bool is_int = true;
  int64_t i = 0;
  std::string s;

  std::string to_string() const { return is_int ? std::to_string(i) : s; }
  bool operator==(const ParamValue &o) const { return is_int == o.is_int && i == o.i && s == o.s; }
  bool operator<(const ParamValue &o) const;
};

struct ParamSpec {
  std::string name;
  ParamType type = ParamType::Int;
  ParamDest dest = ParamDest::Rodata;
  ParamValue default_value;
  int64_t min = 0;
  int64_t max = INT64_MAX;
  std::vector<std::string> choices;  // enum only
  std::string c_type = "__u64";      // rodata only: the C type of the global
  std::string map;                   // map_size only
  bool power_of_two = false;         // value must be a power of two (sizes)
  bool sweepable = true;
  // template only: a C constant expression over BB_<NAME> the emitter asserts at the
  // .bdsl line that set the value, so a value the template cannot take errors there.
  std::string c_assert;
  std::string doc;
};

// A runtime setup step, run after load and before attach (runtime/setup_actions.cpp).
// `args` hold the manifest values as text (numbers as decimal); compiler/setup_spec.cpp
// checks them per action.
struct SetupActionSpec {
  std::string action;  // inner_maps | prefill | fork
  std::map<std::string, std::string> args;
};

// Per-CPU rates printed after a point's summary (`per_cpu` in family.json): rate of CPU
// c = ops[c] * 1e9 / ns[c], both `struct bb_counter` arrays in .bss, over the measured
// intervals. `line` holds {cpu} and {rate}.
struct PerCpuSpec {
  std::string ops, ns, line;
  bool enabled() const { return !ops.empty(); }
};

struct ProgramSpec {
  std::string name;      // the variant name users write: `prog tp;`
  std::string section;   // e.g. "?tp/syscalls/sys_enter_getpgid"
  std::string function;  // the C function name in the template
  std::string attach;    // auto | uprobe | uretprobe | test_run | none
  std::string target;    // attach target (uprobe function name, ...), "" when none
  std::string producer;  // runtime producer kind, "" = the family default
  std::string consumer;  // runtime consumer kind, "" = the family default
  std::vector<std::string> extra_programs;  // other functions loaded with it (drivers)
  std::vector<std::string> requires_features;  // probed before load; skipped if missing
  std::map<std::string, std::string> metric_sources;  // per-program overrides
  std::vector<SetupActionSpec> setup;  // after the family's setup actions
  std::string doc;
};

// source: "counter:<var>" (per-CPU aligned counters in BPF .bss), "producer" (user-side
// count of producer operations), "ratio:<num>/<den>" (derived).
struct MetricSpec {
  std::string name;
  std::string source;
  std::string unit;  // how it is reported: "M/s", "ns/op", ...
  std::string doc;
};

// A rule every plan point of the family must satisfy (family.json `constraints`): when
// `when` holds (always, when empty), `require` must hold, else the checker reports
// `message` at the setting that breaks it. Conditions: `name op value [&& ...]`
// (compiler/constraints.hpp).
struct ConstraintSpec {
  std::string when, require, message;
};

// A place in the template for a bench's inline BPF C (`code <name> { ... }` in .bdsl):
// the template writes {{code_<name>}} on a line of its own and may test
// {{#has_code_<name>}} / {{^has_code_<name>}} (compiler/code_hooks.hpp).
struct HookSpec {
  std::string name;
  std::string doc;
};

struct FamilyManifest {
  std::string name;
  std::string description;
  std::string dir;            // the folder it was read from
  std::string template_path;  // absolute path of the BPF C template
  std::string template_text;
  std::vector<ParamSpec> params;
  std::vector<ProgramSpec> programs;
  std::string default_program;
  std::vector<MetricSpec> metrics;
  std::vector<std::string> default_report;
  std::string producer;  // default producer kind
  std::string consumer;  // consumer kind ("none" when the family has none)
  std::vector<ConstraintSpec> constraints;
  std::vector<SetupActionSpec> setup;  // every program's setup actions, in order
  PerCpuSpec per_cpu;
  std::vector<HookSpec> hooks;  // `hooks`: where inline C may go

  const ParamSpec *param(const std::string &n) const;
  const ProgramSpec *program(const std::string &n) const;
  const MetricSpec *metric(const std::string &n) const;
};

class FamilyRegistry {
 public:
  // Reads every <dir>/<family>/family.json below each dir. Problems become diagnostics
  // (without a .bdsl location: they name the manifest file).
  static FamilyRegistry load(const std::vector<std::string> &dirs, Diagnostics &diags);

  const FamilyManifest *find(const std::string &name) const;
  std::vector<std::string> names() const;
  const std::vector<FamilyManifest> &all() const { return families_; }
  // The folder holding the shared header (include/bpfbench_shared.h).
  const std::string &include_dir() const { return include_dir_; }

 private:
  std::vector<FamilyManifest> families_;
  std::string include_dir_;
};

// The shipped template folder (source tree or install prefix) followed by the folders of
// $BPFBENCH_TEMPLATE_PATH (colon-separated); compiler/template_path.hpp adds the rest.
std::vector<std::string> default_template_dirs();

const char *to_string(ParamType t);
const char *to_string(ParamDest d);

}  // namespace bpfbench
