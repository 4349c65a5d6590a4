// Benchmark families are data: bpf_templates/<family>/family.json + a mustache BPF C template.
#pragma once

#include <cstdint>
#include <map>
#include <optional>
#include <string>
#include <vector>

#include <nlohmann/json_fwd.hpp>

#include "compiler/bdsl/diagnostics.hpp"
#include "compiler/family/kinds.hpp"
#include "compiler/family/template_path.hpp"
#include "util/error.hpp"

namespace bpfbench {

// int: plain count (K/M/G = 10^3/10^6/10^9); size: bytes (K/M/G = 2^10/2^20/2^30);
// duration: nanoseconds (s/ms/us/ns; a bare number means seconds); bool: flag
// (`name;` = true, or `name true|false|1|0`); enum: one of `choices`; cpuset: a CPU set
// string ("0-3,8"); address: an IPv4/IPv6 address or MAC string (compiler/family/address.hpp).
enum class ParamType { Int, Size, Duration, Bool, Enum, Cpuset, Address };

// A type whose values are integers (with units for sizes and durations).
inline bool is_numeric(ParamType t) { return t == ParamType::Int || t == ParamType::Size || t == ParamType::Duration; }

// Where a resolved value goes:
//   rodata   - a `const volatile` global the emitter declares; set before load
//   map_size - max_entries of map `map` (set before load)
//   map_extra - map_extra of map `map` (set before load; a bloom filter's hash count)
//   template - a mustache value: changes the generated C (one object per distinct value)
//   runtime  - an option of a runtime component (producer/consumer/harness)
enum class ParamDest { Rodata, MapSize, MapExtra, Template, Runtime };

struct ParamValue {
  // Int/Size/Duration/Bool hold `i`; Enum/Cpuset/Address hold `s`.
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
  std::string map;                   // map_size and map_extra only
  bool power_of_two = false;         // value must be a power of two (sizes)
  bool sweepable = true;
  // template only: a C constant expression over BB_<NAME> the emitter asserts at the
  // .bdsl line that set the value, so a value the template cannot take errors there.
  std::string c_assert;
  std::string doc;
  // enum only (`presets`): per choice, values of other params of the family that a point
  // choosing it takes unless its file sets them (compiler/family/enum_choices.hpp).
  std::map<std::string, std::vector<std::pair<std::string, ParamValue>>> presets;
  std::map<std::string, std::string> choice_docs;  // enum only (`choice_docs`): one line per choice
};

// A runtime setup step, run after load and before attach (runtime/setup_actions.cpp).
// `args` hold the manifest values as text (numbers as decimal); compiler/family/setup_spec.cpp
// checks them per action.
struct SetupActionSpec {
  SetupActionKind action = SetupActionKind::Prefill;
  std::map<std::string, std::string> args;
};

// Per-CPU rates printed after a point's summary (`per_cpu` in family.json): rate of CPU
// c = ops[c] * 1e9 / ns[c], both `struct bb_counter` arrays in .bss, over the measured
// intervals. `line` holds {cpu} and {rate}.
struct PerCpuSpec {
  std::string ops, ns, line;
  bool total = true;  // a `total` line after the per-CPU ones (the kernel bench has none)
  bool enabled() const { return !ops.empty(); }
};

struct ProgramSpec {
  std::string name;      // the variant name users write: `prog tp;`
  std::string section;   // e.g. "?tp/syscalls/sys_enter_getpgid"
  std::string function;  // the C function name in the template
  AttachKind attach = AttachKind::Auto;
  std::string target;                                  // attach target (uprobe function name, ...), "" when none
  std::optional<ProducerKind> producer;                // unset = the family default
  std::optional<ConsumerKind> consumer;                // unset = the family default
  std::vector<std::string> extra_programs;             // other functions loaded with it (drivers)
  std::vector<std::string> requires_features;          // probed before load; skipped if missing
  std::map<std::string, MetricSource> metric_sources;  // per-program overrides
  std::vector<SetupActionSpec> setup;                  // after the family's setup actions
  // Times batches in BPF (bpfbench_shared.h BB_BATCH_LOOP): the runtime sizes the batches,
  // collects the samples and serves the batch_timing:<stat> metrics (runtime/batch_timing.hpp).
  bool batch_timing = false;
  std::string doc;
};

// A metric (compiler/family/kinds.hpp has the sources). The rules the summary and `compare`
// follow are fields; unset, each takes the default that the accessor below documents.
struct MetricSpec {
  std::string name;
  MetricSource source;
  std::string unit;  // how it is reported: "M/s", "ns/op", ...
  std::string doc;
  std::optional<MetricReport> reported;  // `reported`: "rate" | "as_is"
  std::optional<bool> higher_is_better;  // `better`: "higher" | "lower"
  std::optional<bool> throughput;        // `throughput`: true | false
  std::optional<bool> in_total_ops;      // `total_ops`: true | false
};

// Rate or as it is; default: by source kind (ratios and kthread ticks as they are).
MetricReport report_of(const MetricSpec &m);
// The unit a summary carries: "M/s" for rates, the metric's own unit otherwise.
std::string reported_unit(const MetricSpec &m);
// Default: default_higher_is_better(name, reported unit) (lower for ns/op or "latency").
bool higher_is_better(const MetricSpec &m);
// The throughput metric derives `latency` (1000 / its M/s per producer, in ns/op, when a
// bench reports latency and the family declares none) and is the summary's primary metric
// when the report names none it has. Default: the metric named "hits".
bool is_throughput(const MetricSpec &m);
// Summed into the `total_ops` summary. Default: the metrics named "hits" and "drops".
bool counts_in_total_ops(const MetricSpec &m);

// A rule every plan point of the family must satisfy (family.json `constraints`): when
// `when` holds (always, when empty), `require` must hold, else the checker reports
// `message` at the setting that breaks it. Conditions: `name op value [&& ...]`
// (compiler/family/constraints.hpp).
struct ConstraintSpec {
  std::string when, require, message;
};

// A place in the template for a bench's inline BPF C (`code <name> { ... }` in .bdsl):
// the template writes {{code_<name>}} on a line of its own and may test
// {{#has_code_<name>}} / {{^has_code_<name>}} (compiler/bpf/code_hooks.hpp).
struct HookSpec {
  std::string name;
  std::string doc;
};

// One side of a self-check: a family metric (its source, with the program's override) or a
// source written out (`producer`, `consumer`, `counter:<var>`). Only counts of events add up.
struct SelfCheckTerm {
  std::string metric;   // set: the metric of that name
  MetricSource source;  // metric empty: this source
  std::string text() const { return metric.empty() ? source.text() : metric; }
};

// A run-time self-check (family.json `self_checks`, compiler/family/self_checks.hpp): two counts of
// the same events, each a sum of terms, must be equal over the whole point; when not, the
// point fails with both.
struct SelfCheckSpec {
  std::string name;
  std::vector<SelfCheckTerm> expected, observed;
  std::vector<std::string> programs;     // the programs it applies to; empty = all of them
  std::vector<std::string> unless_code;  // hooks whose inline C may change what is counted
  std::string when;                      // a condition over the point's settings ("" = always)
  std::string doc;
};

// A name family.json gives a global or a map of the compiled BPF object, and where it says
// it: checked against each compiled object (compiler/bpf/object_check.hpp), so a typo is an
// error at the manifest's line and column before anything is loaded.
struct ObjectRef {
  enum class Kind { Counter, Map };  // a `struct bb_counter` array in .bss; a map in .maps
  Kind kind = Kind::Counter;
  std::string name;
  std::string where;    // the manifest entry: "metric 'hits'", "param 'nr_entries'", "setup[0] (prefill)"
  std::string program;  // "": every program's object; else only that program's
  std::string metric;   // the metric whose source it is ("" for others): a program may override it
  SourceRange at;       // in FamilyManifest::manifest_text; `file` is set when it is reported
};

struct FamilyManifest {
  std::string name;
  std::string description;
  std::string dir;            // the folder it was read from
  std::string origin;         // why its template folder is searched (TemplateDir::origin; "" = not said)
  std::string template_path;  // absolute path of the BPF C template
  std::string template_text;
  std::vector<ParamSpec> params;
  std::vector<ProgramSpec> programs;
  std::string default_program;
  std::vector<MetricSpec> metrics;
  std::vector<std::string> default_report;
  ProducerKind producer = ProducerKind::None;  // default producer kind
  ConsumerKind consumer = ConsumerKind::None;  // default consumer kind
  std::vector<ConstraintSpec> constraints;
  std::vector<SetupActionSpec> setup;  // every program's setup actions, in order
  PerCpuSpec per_cpu;
  std::vector<HookSpec> hooks;  // `hooks`: where inline C may go
  std::vector<SelfCheckSpec> self_checks;
  std::vector<ObjectRef> object_refs;  // every counter and map name the manifest mentions
  std::string manifest_path;           // the family.json read, and its text: diagnostics
  std::string manifest_text;           // found after load (object_refs) point into it

  const ParamSpec *param(const std::string &n) const;
  const ProgramSpec *program(const std::string &n) const;
  const MetricSpec *metric(const std::string &n) const;
  ProducerKind producer_of(const ProgramSpec &p) const { return p.producer.value_or(producer); }
  ConsumerKind consumer_of(const ProgramSpec &p) const { return p.consumer.value_or(consumer); }
  // The metric is_throughput() picks (at most one; the manifest reader checks), or nullptr.
  const MetricSpec *throughput_metric() const;
  // Whether a report may name `latency` without the family declaring it.
  bool derives_latency() const { return throughput_metric() && !metric("latency"); }
};

// A problem a family.json block reader (setup, per_cpu, hooks) found: at node `at` (or
// the key `key` of object `at`, when set); the manifest reader gives it its place.
struct ManifestProblem {
  const nlohmann::json *at = nullptr;
  std::string key;
  std::string message;
};

// A family folder that is not used: a template folder earlier on the search path has a
// family of the same name, which is used instead (like a command earlier on $PATH).
struct ShadowedFamily {
  std::string name;
  std::string dir;       // the family folder not used
  std::string origin;    // why its template folder is searched ("" = not said)
  std::string used_dir;  // the folder of the family used instead
};

class FamilyRegistry {
 public:
  // Reads every <dir>/<family>/family.json below each dir, `dirs` in precedence order
  // (compiler/family/template_path.hpp): a family is taken from the first dir that has one of its
  // name; the same name in a later dir is shadowed (not read), listed in shadowed() and
  // said in a note naming both folders. Problems become diagnostics located in the
  // manifest; a manifest with diagnostics is added to `sources` (and only then, so the
  // files of a clean load are not there) for the renderer. Each dir is resolved once and
  // every file of it (family.json, the template, the shared header) is read inside it
  // (read_input_file_in): a symlink out of it is an error, never followed.
  static FamilyRegistry load(const std::vector<TemplateDir> &dirs, SourceManager &sources, Diagnostics &diags);
  // The same for folders without an origin to name.
  static FamilyRegistry load(const std::vector<std::string> &dirs, SourceManager &sources, Diagnostics &diags);

  const FamilyManifest *find(const std::string &name) const;
  std::vector<std::string> names() const;
  const std::vector<FamilyManifest> &all() const { return families_; }
  // The families of later template folders hidden by one of the same name, in load order.
  const std::vector<ShadowedFamily> &shadowed() const { return shadowed_; }
  // The folder holding the shared header (include/bpfbench_shared.h of the first template
  // dir that has one, by the same precedence as the families: a later dir's header is
  // shadowed, with a note; "" when none has), and the header's path and text, read at load
  // inside its template dir: the emitter inlines this text, diagnostics show its lines.
  const std::string &include_dir() const { return include_dir_; }
  std::string shared_header_path() const { return include_dir_.empty() ? "" : include_dir_ + "/bpfbench_shared.h"; }
  const std::string &shared_header_text() const { return shared_header_text_; }

 private:
  void read_shared_header(const TemplateDir &dir, const std::string &root, Diagnostics &diags);
  void load_dir(const TemplateDir &dir, SourceManager &sources, Diagnostics &diags);

  std::vector<FamilyManifest> families_;
  std::vector<ShadowedFamily> shadowed_;
  std::map<std::string, TemplateDir> family_dirs_;  // every family name seen -> its folder and origin
  std::string include_origin_;
  std::string include_dir_;
  std::string shared_header_text_;
};

// Nothing when `dir` is a template folder holding include/bpfbench_shared.h that can be
// read inside it, else why not: "is not a directory (it is a FIFO)", "no
// include/bpfbench_shared.h in it", "cannot read include/bpfbench_shared.h: 'include' is a
// symbolic link to '/etc'; only relative links that stay inside the folder '/t' are followed".
Result<> check_shared_header(const std::string &dir);

// The folders of $BPFBENCH_TEMPLATE_PATH (colon-separated) followed by the shipped
// template folder (source tree or install prefix), in precedence order;
// compiler/family/template_path.hpp adds the rest.
std::vector<std::string> default_template_dirs();

const char *to_string(ParamType t);
const char *to_string(ParamDest d);

}  // namespace bpfbench
