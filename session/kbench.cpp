#include "session/kbench.hpp"

#include <fmt/format.h>
#include <unistd.h>

#include <algorithm>

#include "compiler/bdsl/diagnostics.hpp"
#include "compiler/family/kinds.hpp"
#include "compiler/family/manifest.hpp"
#include "runtime/kthread_stat.hpp"

namespace bpfbench {
namespace {

// The kernel bench's MAX_SLEEP_PROCS (local-storage-tasks-trace), the family's nr_procs max.
constexpr int64_t kMaxSleepProcs = 150000;

constexpr KbenchOption kOptions[] = {
    {"--trig-batch-iters", "batch_iters {}", false, KbenchOptions::Trigger},
    {"--rb-b2b", "back2back", true, KbenchOptions::Ringbuf},
    {"--rb-use-output", "prog output", true, KbenchOptions::Ringbuf},
    {"--rb-batch-cnt", "batch {}", false, KbenchOptions::Ringbuf},
    {"--rb-sampled", "sampled", true, KbenchOptions::Ringbuf},
    {"--rb-sample-rate", "sample_rate {}", false, KbenchOptions::Ringbuf},
    {"--cmp-str-len", "cmp_str_len {}", false, KbenchOptions::Strncmp},
    {"--nr_loops", "nr_loops {}", false, KbenchOptions::BpfLoop},
    {"--nr_maps", "nr_maps {}", false, KbenchOptions::LocalStorage},
    {"--hashmap_nr_keys_used", "hashmap_nr_keys_used {}", false, KbenchOptions::LocalStorage},
    // One row per benchmark group that takes the option (--nr_entries means the same in three).
    {"--nr_entries", "nr_entries {}", false, KbenchOptions::Bloom},
    {"--nr_hash_funcs", "nr_hash_funcs {}", false, KbenchOptions::Bloom},
    {"--value_size", "value_size {}", false, KbenchOptions::Bloom},
    {"--key_size", "key_size {}", false, KbenchOptions::HashmapLookup},
    {"--map_flags", "map_flags {}", false, KbenchOptions::HashmapLookup},
    {"--max_entries", "max_entries {}", false, KbenchOptions::HashmapLookup},
    {"--nr_entries", "nr_entries {}", false, KbenchOptions::HashmapLookup},
    {"--nr_loops", "nr_loops {}", false, KbenchOptions::HashmapLookup},
    {"--nr_entries", "nr_entries {}", false, KbenchOptions::LpmTrie},
    {"--prefix_len", "prefix_len {}", false, KbenchOptions::LpmTrie},
    {"--random", "random", true, KbenchOptions::LpmTrie},
    {"--crypto-len", "packet_len {}", false, KbenchOptions::Crypto},
    {"--batch-size", "batch_size {}", false, KbenchOptions::LocalStorageCreate},
    {"--storage-type", "prog {}", false, KbenchOptions::LocalStorageCreate, "socket|task"},
    {"--use-case", "prog {}", false, KbenchOptions::HtabMem, "overwrite|batch_add_batch_del|add_del_on_diff_cpu"},
    {"--preallocated", "preallocated", true, KbenchOptions::HtabMem},
    {"--value-size", "value_size {}", false, KbenchOptions::HtabMem},
    {"--rx-normal", "prog rx_normal", true, KbenchOptions::Sockmap},
    {"--rx-pass", "prog rx_pass", true, KbenchOptions::Sockmap},
    {"--rx-verdict-egress", "prog rx_verdict_egress", true, KbenchOptions::Sockmap},
    {"--rx-verdict-ingress", "prog rx_verdict_ingress", true, KbenchOptions::Sockmap},
    {"--tx-normal", "prog tx_normal", true, KbenchOptions::Sockmap},
    {"--tx-pass", "prog tx_pass", true, KbenchOptions::Sockmap},
    {"--tx-verdict-ingress", "prog tx_verdict_ingress", true, KbenchOptions::Sockmap},
    {"--tx-verdict-egress", "prog tx_verdict_egress", true, KbenchOptions::Sockmap},
    // No setting: --list-scenarios lists and exits, --machine-readable shapes the output.
    {"--scenario", "scenario {}", false, KbenchOptions::XdpLb, nullptr, true},
    {"--list-scenarios", "", true, KbenchOptions::XdpLb},
    {"--machine-readable", "", true, KbenchOptions::XdpLb},
    {"--nr_procs", "nr_procs {}", false, KbenchOptions::TasksTrace},
    {"--kthread_pid", "kthread_pid {}", false, KbenchOptions::TasksTrace},
};

// A benchmark whose measurement needs a feature this kernel may lack, and the part of it
// that runs without: where `needs` is missing, the benchmark's point still runs (the
// run skips it, saying why) and then this part does.
struct KbenchFallback {
  const char *name;
  const char *needs;         // a FeatureProber requirement ("attach:fentry")
  const char *skipped_part;  // what the benchmark's own point measures, named in its label
  const char *part;          // what runs instead, named in its label
  const char *settings;      // its .bdsl settings (the benchmark options are added)
  KernelReport report;
};

constexpr KbenchFallback kFallbacks[] = {
    // Grace periods are timed by fentry on rcu_tasks_trace_pregp_step/postgp: without
    // fentry, the task storage churn and the kthread's ticks per second still run.
    {"local-storage-tasks-trace", "attach:fentry", "grace periods", "task storage churn", "prog churn",
     KernelReport::TasksTraceChurn},
};

const KbenchFallback *fallback_of(const KbenchName &n) {
  for (const auto &f : kFallbacks)
    if (std::string(f.name) == n.name) return &f;
  return nullptr;
}

// The row of `name` for benchmarks taking `options`, else any row of `name` (the option
// exists but does not apply), else null.
const KbenchOption *find_option(const std::string &name, KbenchOptions options) {
  const KbenchOption *any = nullptr;
  for (const auto &o : kOptions)
    if (name == o.name) {
      if (o.applies_to == options) return &o;
      if (!any) any = &o;
    }
  return any;
}

// The last value of a number option (argp keeps the last), if given; its digits were
// checked when parsed.
std::optional<int64_t> number_of(const KbenchArgs &a, const char *option) {
  std::optional<int64_t> v;
  for (const auto &[name, value] : a.options)
    if (name == option) v = std::strtoll(value.c_str(), nullptr, 10);
  return v;
}

// local-storage-tasks-trace's parse_arg() and validate(): its words. A --kthread_pid
// whose /proc/PID/stat cannot be read is refused before the tasks are forked (the kernel
// bench finds out after, "couldn't open …, exiting").
std::string tasks_trace_refused(const KbenchArgs &a) {
  if (a.producers != 1) return "benchmark doesn't support multi-producer!";
  const std::optional<int64_t> procs = number_of(a, "--nr_procs"), pid = number_of(a, "--kthread_pid");
  if (procs && *procs < 1) return "invalid nr_procs";
  if (procs && *procs > kMaxSleepProcs)
    return fmt::format("benchmark supports up to {} sleeper procs!", kMaxSleepProcs);
  if (pid && *pid < 1) return "invalid kthread_pid";
  if (pid && (*pid > INT32_MAX || !read_stime_ticks(static_cast<pid_t>(*pid))))
    return fmt::format("--kthread_pid {}: couldn't open /proc/{}/stat (no such process)", *pid, *pid);
  return "";
}

// What the kernel bench's validate() and setup() callbacks refuse (it exits 1; we exit 2).
std::string refused(const KbenchName &n, const KbenchArgs &a, bool b2b) {
  if (n.report == KernelReport::BatchTiming && a.consumers != 0) return "benchmark doesn't support consumers";
  if (n.consumers == 0 && a.consumers != 0) return "benchmark doesn't support consumer!";
  if (n.consumers == 1 && a.consumers != 1) return fmt::format("{} benchmark needs one consumer!", n.name);
  if (b2b && a.producers > 1) return "back-to-back mode makes sense only for single-producer case!";
  if (n.options == KbenchOptions::LpmTrie && !kbench_given(a, "--nr_entries")) return "Missing --nr_entries parameter";
  if (n.options == KbenchOptions::Rename && a.producers != 1) return "benchmark doesn't support multi-producer!";
  if (n.options == KbenchOptions::Sockmap && (a.consumers != 2 || a.producers != 1 || !a.affinity))
    return "argument '-c 2 -p 1 -a' is necessary";
  if (n.scenario_param && !kbench_given(a, "--scenario"))
    return "--scenario is required. Use --list-scenarios to see options.";
  if (n.options == KbenchOptions::TasksTrace) return tasks_trace_refused(a);
  return "";
}

// sockmap runs -c 2 -p 1 -a: the kernel bench pins consumer k to CPU k and the producer
// to CPU 2 mod the CPU count (it wraps), and its second consumer only proxies in
// rx-normal. bpfbench runs the one reading consumer where the kernel bench's first is
// and the producer where its producer is (on 2 CPUs, both on CPU 0).
std::string sockmap_placement(const KbenchArgs &a) {
  std::string out;
  const long cpus = std::max(1L, sysconf(_SC_NPROCESSORS_ONLN));
  if (a.cons_cpus.empty()) out += " cons_affinity \"0\";";
  if (a.prod_cpus.empty()) out += fmt::format(" prod_affinity \"{}\";", 2 % cpus);
  return out;
}

// The metrics a kernel report style reads.
const char *report_metrics(KernelReport r) {
  switch (r) {
  case KernelReport::LocalStorage: return "hits, important_hits";
  case KernelReport::Creates: return "hits, kmallocs";
  case KernelReport::HtabMem: return "hits, memory, peak_memory";
  case KernelReport::Sockmap: return "send, bpf, recv";
  case KernelReport::TasksTrace: return "gp_latency, ticks_per_gp, kthread_ticks, hits";
  case KernelReport::TasksTraceChurn: return "hits, kthread_ticks";
  default: return "hits";
  }
}

// One point of the benchmark: its family with `settings` (its program and the options).
std::string point_text(const KbenchName &n, const KbenchArgs &a, const std::string &label, std::string settings,
                       KernelReport report) {
  if (!settings.empty()) settings += "; ";
  // Batch-timed benchmarks run until their sample target, 600 s at most, whatever -d says.
  // The others measure -d + 1 intervals, as the kernel bench does: its collect_measurements
  // (bench.c) stops after iteration warmup + d, and its Summary is over iterations warmup
  // to warmup + d, so `-w1 -d3` prints Iter 0 to 4 there and averages 1 to 4.
  const int64_t duration = report == KernelReport::BatchTiming ? 600 : a.duration_s + 1;
  std::string text = fmt::format("bench {} as \"{}\" < {}warmup {}s; duration {}s; producers {}; report {};", n.family,
                                 label, settings, a.warmup_s, duration, a.producers, report_metrics(report));
  if (a.affinity || !a.prod_cpus.empty() || !a.cons_cpus.empty()) text += " affinity;";
  // Checked by cpuset_validator when parsed: digits, commas and dashes, CPUs online here.
  if (!a.prod_cpus.empty()) text += fmt::format(" prod_affinity \"{}\";", a.prod_cpus);
  if (!a.cons_cpus.empty()) text += fmt::format(" cons_affinity \"{}\";", a.cons_cpus);
  if (n.options == KbenchOptions::Sockmap) text += sockmap_placement(a);
  return text + " >\n";
}

}  // namespace

std::span<const KbenchOption> kbench_options() { return kOptions; }

std::vector<std::string> kbench_option_words(const KbenchOption &o) {
  const char *words = o.words ? o.words : "";
  std::vector<std::string> out(1);
  for (const char *c = words; *c; ++c)
    if (*c == '|') out.emplace_back();
    else out.back() += *c;
  return out;
}

bool kbench_given(const KbenchArgs &a, const char *option) {
  return std::any_of(a.options.begin(), a.options.end(), [&](const auto &o) { return o.first == option; });
}

const ParamSpec *kbench_scenario_spec(const KbenchName &n, FamilyRegistry &reg, std::string &error) {
  SourceManager sources;
  Diagnostics diags;
  reg = FamilyRegistry::load(default_template_dirs(), sources, diags);
  const FamilyManifest *f = n.scenario_param ? reg.find(n.family) : nullptr;
  const ParamSpec *spec = f ? f->param(n.scenario_param) : nullptr;
  if (!n.scenario_param) {
    error = fmt::format("benchmark '{}' has no scenarios", n.name);
    return nullptr;
  }
  if (!spec) error = fmt::format("family '{}' or its param '{}' was not found", n.family, n.scenario_param);
  return spec;
}

std::string kbench_unknown_scenario(const KbenchArgs &a, const ParamSpec &spec) {
  for (const auto &[name, value] : a.options)
    if (name == "--scenario" && std::find(spec.choices.begin(), spec.choices.end(), value) == spec.choices.end()) {
      std::string close = did_you_mean(value, spec.choices);
      return fmt::format("unknown scenario: '{}' (use --list-scenarios to see options{})", value,
                         close.empty() ? "" : fmt::format("; did you mean '{}'?", close));
    }
  return "";
}

KbenchText kbench_bdsl(const KbenchArgs &a, const FeatureCheck &available) {
  const KbenchName *n = find_kbench_name(a.name);
  if (!n) {
    std::vector<std::string> names;
    for (const auto &k : kbench_names()) names.push_back(k.name);
    std::string close = did_you_mean(a.name, names);
    return {"", fmt::format("benchmark '{}' not found{} (bpfbench bench --list names them)", a.name,
                            close.empty() ? "" : fmt::format("; did you mean '{}'?", close))};
  }
  std::string settings = n->settings;
  bool b2b = false;
  for (const auto &[name, value] : a.options) {
    const KbenchOption *o = find_option(name, n->options);
    if (!o) return {"", fmt::format("unknown benchmark option {}", name)};
    if (o->applies_to != n->options) return {"", fmt::format("{} does not apply to benchmark '{}'", name, n->name)};
    if (name == "--rb-use-output" && std::string(n->name).rfind("rb-", 0) != 0)
      return {"", fmt::format("--rb-use-output applies to the rb-* benchmarks, not '{}'", n->name)};
    b2b |= name == "--rb-b2b";
    if (!*o->setting) continue;
    // Only a name reaches the text (cmd_kbench checked it is one of the family's).
    if (o->takes_name && !is_name(value)) return {"", fmt::format("{}: '{}' is not a name", name, value)};
    // Two options setting one thing (two sockmap modes) meet the checker's "set twice" error.
    settings += (settings.empty() ? "" : "; ") +
                (o->flag ? std::string(o->setting) : fmt::format(fmt::runtime(o->setting), value));
  }
  if (n->options == KbenchOptions::LocalStorage && !kbench_given(a, "--nr_maps"))
    settings += "; nr_maps 1000";  // the kernel bench's default
  if (n->options == KbenchOptions::TasksTrace && !kbench_given(a, "--nr_procs"))
    settings += "; nr_procs 1000";  // the kernel bench's default (the family's is 15000)
  if (std::string why = refused(*n, a, b2b); !why.empty()) return {"", why};
  const KbenchFallback *fb = fallback_of(*n);
  if (!fb || !available || available(fb->needs)) return {point_text(*n, a, n->name, settings, n->report), ""};
  // Without the feature: the benchmark's point (the run skips it and says why), then the
  // part that runs, both labelled by what they measure.
  std::string options = settings.substr(std::string(n->settings).size()), part = fb->settings;
  if (options.rfind("; ", 0) == 0) options.erase(0, 2);
  if (!options.empty()) part += "; " + options;
  KbenchText t{point_text(*n, a, fmt::format("{} {}", n->name, fb->skipped_part), settings, n->report), ""};
  t.fallback_text = point_text(*n, a, fmt::format("{} {}", n->name, fb->part), part, fb->report);
  t.fallback_report = fb->report;
  return t;
}

std::vector<RunArgs> kbench_runs(const KbenchArgs &a, const KbenchText &t) {
  const KbenchName *n = find_kbench_name(a.name);
  if (!n || !t.error.empty()) return {};
  RunArgs r;
  r.in.file = "<bench " + a.name + ">";
  r.in.text = t.text;
  r.verbose = a.verbose;
  r.kernel_report = n->report;
  r.kernel_title_param = n->scenario_param ? n->scenario_param : "";
  // --machine-readable: the RESULT line alone (the kernel bench sets its -q too).
  r.machine_readable = kbench_given(a, "--machine-readable");
  r.setup_lines = !a.quiet && !r.machine_readable;
  // The kernel bench runs without BPF run-time stats (as `run` by default): two clock reads
  // per program run would be in bpfbench's numbers only.
  r.prog_stats = false;
  r.calibration_ns = 0;  // the kernel bench's output, nothing else
  // local-storage-tasks-trace's -q (the kernel bench's env.quiet) drops its Iter lines too.
  r.quiet = a.quiet && (n->report == KernelReport::TasksTrace);
  std::vector<RunArgs> runs = {r};
  if (!t.fallback_text.empty()) {
    r.in.text = t.fallback_text;
    r.kernel_report = t.fallback_report;
    runs.push_back(r);
  }
  return runs;
}

}  // namespace bpfbench
