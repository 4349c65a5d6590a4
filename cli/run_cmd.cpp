// `bpfbench run`: the whole pipeline, from .bdsl to numbers.
#include <fmt/format.h>

#include <cstdio>
#include <cstdlib>

#include "cli/front.hpp"
#include "cli/run_commands.hpp"
#include "cli/run_printer.hpp"
#include "cli/verify_report.hpp"
#include "util/escape.hpp"
#include "runtime/hw_counters.hpp"
#include "runtime/privileges.hpp"
#include "runtime/probe.hpp"
#include "runtime/stop.hpp"
#include "session/run_observers.hpp"
#include "session/run_session.hpp"

namespace bpfbench::cli {

namespace {

// --calibration, else $BPFBENCH_CALIBRATION (tests set it off), else 1 s; nullopt (after
// saying why) for a bad environment value.
std::optional<int64_t> calibration_ns(const RunArgs &a) {
  if (a.calibration_ns) return a.calibration_ns;
  const char *env = std::getenv("BPFBENCH_CALIBRATION");
  if (!env || !*env) return int64_t{1'000'000'000};
  std::string why;
  std::optional<int64_t> ns = calibration_value()(env, &why);
  if (!ns) fmt::print(stderr, "bpfbench: error: BPFBENCH_CALIBRATION={}: {}\n", printable_text(env), why);
  return ns;
}

}  // namespace

int cmd_run(const RunArgs &a) {
  // First, before any thread exists: SIGINT/SIGTERM become a stop request, not a kill,
  // and stay blocked after the watcher is gone (a late signal must not kill a finished run).
  // `| head`: the closed pipe is a SIGPIPE too (cli/text_output.hpp), the results are kept.
  block_stop_signals();
  StopSource stop;
  SignalWatcher signals(stop);

  std::optional<int64_t> calibration = calibration_ns(a);
  if (!calibration) return kExitBadInput;
  Frontend fe;
  if (!load_frontend(a.in, fe)) return kExitBadInput;
  if (std::string why = export_paths_problem({a.json_out, a.csv_out, a.markdown_out}, fe); !why.empty()) {
    fmt::print(stderr, "bpfbench: error: {}\n", why);
    return kExitBadInput;
  }
  if (auto allowed = check_privileges(); !allowed) {
    fmt::print(stderr, "bpfbench: error: {}\n", allowed.error().message);
    return kExitBadInput;
  }
  std::vector<std::string> said;  // --profile, --hw-counters: probed once, said once when missing
  Result<RunObservers> observers = prepare_observers(a, fe, said);
  for (const auto &line : said) fmt::print(stderr, "bpfbench: {}\n", line);
  if (!observers) {
    fmt::print(stderr, "bpfbench: error: {}\n", observers.error().message);
    return kExitBadInput;
  }
  CompiledPrograms programs;
  bool compiled = compile_programs(fe, programs, &stop.flag());
  print_diagnostics(fe);
  if (!compiled) return kExitBadInput;
  // Every point's programs through the verifier before the first measurement: a refused
  // point costs the seconds of the loads, not the minutes of the points before it.
  if (std::optional<int> refused = verify_before_measuring({plan_side(fe, programs)}, stop)) return *refused;

  RunPrinter printer(a, fe);
  RunSession session(a, fe, std::move(programs), stop, printer, std::move(*observers), *calibration);
  session.measure();
  session.finish_unfinished();
  return printer.conclude(session.conclude());
}

int cmd_probe(const ProbeArgs &a) {
  if (auto allowed = check_privileges(); !allowed) {
    fmt::print(stderr, "bpfbench: error: {}\n", allowed.error().message);
    return kExitBadInput;
  }
  FeatureProber prober;
  auto rows = prober.probe_all();
  // Not a kernel feature but the machine's: a VM often has no PMU (then no --hw-counters,
  // and --profile samples the software cpu-clock event).
  HwProbe hw = probe_hw_counters();
  rows.push_back({"hardware counters", "cycles/instructions (PMU)", hw.available, hw.reason});
  if (a.json) fmt::print("{}\n", json_text(probe_to_json(rows), 2));
  else fmt::print("{}", render_probe_text(rows));
  return kExitOk;
}

}  // namespace bpfbench::cli
