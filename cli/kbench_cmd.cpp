#include "cli/kbench_cmd.hpp"

#include <fmt/format.h>

#include <optional>

#include "cli/commands.hpp"
#include "cli/options.hpp"
#include "cli/run_commands.hpp"
#include "cli/values.hpp"
#include "runtime/probe.hpp"

namespace bpfbench::cli {
namespace {

// --list-scenarios, and a --scenario the family does not have: the kernel bench's words.
std::optional<int> scenario_options(const KbenchName &n, const KbenchArgs &a) {
  FamilyRegistry reg;
  std::string error;
  const ParamSpec *spec = kbench_scenario_spec(n, reg, error);
  if (!spec) {
    fmt::print(stderr, "bpfbench: error: bench: {}\n", error);
    return kExitBadInput;
  }
  if (kbench_given(a, "--list-scenarios")) {
    fmt::print("Available scenarios:\n");
    for (const auto &c : spec->choices) {
      auto doc = spec->choice_docs.find(c);
      fmt::print("  {:<20}  {}\n", c, doc == spec->choice_docs.end() ? "" : doc->second);
    }
    return kExitOk;
  }
  if (std::string why = kbench_unknown_scenario(a, *spec); !why.empty()) {
    fmt::print(stderr, "bpfbench: error: bench: {}\n", why);
    return kExitBadInput;
  }
  return std::nullopt;
}

}  // namespace

CLI::App *add_kbench_command(CLI::App &app, KbenchArgs &a) {
  auto *b =
      app.add_subcommand("bench", "Run a kernel selftests `bench` benchmark by its name, with its options and output");
  b->add_option("NAME", a.name, "The kernel bench's benchmark name (see --list)");
  b->add_flag("-l,--list", a.list, "List the benchmarks");
  b->add_flag("-q,--quiet", a.quiet, "Be more quiet (no set-up lines)");
  b->add_flag("-v,--verbose", a.verbose, "Also print libbpf/verifier details");
  b->add_flag("-a,--affinity", a.affinity, "Pin consumers to CPUs 0.. and producers after them");
  add_value<int64_t>(
      b, "-w,--warmup", integer_in(0, 3600), [&a](int64_t v) { a.warmup_s = v; }, "Warmup seconds (default 1)", "SEC");
  add_value<int64_t>(
      b, "-d,--duration", integer_in(1, 86399), [&a](int64_t v) { a.duration_s = v; },
      "Duration in seconds (default 5); as in the kernel bench, d + 1 one-second intervals are measured", "SEC");
  add_value<int64_t>(
      b, "-p,--producers", integer_in(1, 1024), [&a](int64_t v) { a.producers = v; }, "Producer threads (default 1)",
      "NUM");
  add_value<int64_t>(
      b, "-c,--consumers", integer_in(0, 64), [&a](int64_t v) { a.consumers = v; }, "Consumer threads (default 0)",
      "NUM");
  auto cpuset = cpuset_validator();
  b->add_option("--prod-affinity", a.prod_cpus, "CPUs for producers; implies --affinity")->check(cpuset);
  b->add_option("--cons-affinity", a.cons_cpus, "CPUs for consumers; implies --affinity")->check(cpuset);
  for (const auto &o : kbench_options()) {
    std::string name = o.name;
    if (b->get_option_no_throw(name)) continue;  // a second row of the same option
    if (o.flag)
      b->add_flag_function(
          name, [&a, name](int64_t) { a.options.emplace_back(name, ""); }, "Benchmark option");
    else if (o.takes_name)
      b->add_option_function<std::string>(
           name, [&a, name](const std::string &v) { a.options.emplace_back(name, v); }, "Benchmark option")
          ->type_name("NAME");
    else if (o.words)
      b->add_option_function<std::string>(
           name, [&a, name](const std::string &v) { a.options.emplace_back(name, v); }, "Benchmark option")
          ->check(CLI::IsMember(kbench_option_words(o)))
          ->type_name(o.words);
    else
      add_value<int64_t>(
          b, name, integer_in(0, INT64_MAX), [&a, name](int64_t v) { a.options.emplace_back(name, std::to_string(v)); },
          "Benchmark option", "N");
  }
  return b;
}

int cmd_kbench(const KbenchArgs &a) {
  if (a.list) {
    fmt::print("Available benchmarks:\n");
    for (const auto &n : kbench_names()) fmt::print("- {}\n", n.name);
    return kExitOk;
  }
  if (a.name.empty()) {
    fmt::print(stderr, "bpfbench: error: bench: a benchmark name is required (bpfbench bench --list)\n");
    return kExitBadInput;
  }
  const KbenchName *n = find_kbench_name(a.name);
  if (n && n->scenario_param && (kbench_given(a, "--list-scenarios") || kbench_given(a, "--scenario")))
    if (std::optional<int> done = scenario_options(*n, a)) return *done;
  FeatureProber prober;  // really loads and attaches a probe program (runtime/probe.hpp)
  KbenchText t = kbench_bdsl(a, [&prober](const std::string &req) { return prober.check(req).available; });
  if (!t.error.empty()) {
    fmt::print(stderr, "bpfbench: error: bench: {}\n", t.error);
    return kExitBadInput;
  }
  // The benchmark's run, then (when it has one and the first went well) its fallback's.
  int rc = kExitOk;
  for (const RunArgs &r : kbench_runs(a, t))
    if ((rc = cmd_run(r)) != kExitOk) break;
  return rc;
}

}  // namespace bpfbench::cli
