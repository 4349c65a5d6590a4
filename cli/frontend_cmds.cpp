// check and plan: commands that stop before the kernel (emit: emit_cmd.cpp, list: list_cmd.cpp).
#include <fmt/format.h>

#include <cstdio>
#include <iostream>
#include <map>
#include <optional>

#include "cli/commands.hpp"
#include "util/escape.hpp"
#include "cli/front.hpp"
#include "cli/verify_report.hpp"
#include "compiler/bdsl/ast_dump.hpp"
#include "compiler/bpf/emit_bpf.hpp"
#include "compiler/bdsl/plan_dump.hpp"
#include "compiler/pipeline.hpp"
#include "results/prog_info.hpp"
#include "runtime/privileges.hpp"
#include "runtime/prog_dump.hpp"
#include "runtime/stop.hpp"

namespace bpfbench::cli {

namespace {

// check --verify: every point's programs through the verifier, after the compile. The
// exit code, with the summary or the refusals printed.
int verify_for_check(const CheckArgs &a, Frontend &fe, const CompiledPrograms &compiled, const StopSource &stop,
                     const std::string &compiled_text) {
  VerifyTally t = verify_and_print({plan_side(fe, compiled)}, stop);
  if (t.interrupted) {
    fmt::print(stderr, "bpfbench: interrupted\n");
    return exit_code_for(stop);
  }
  const size_t n = fe.plan->points.size();
  if (t.refused > 0) {
    fmt::print(stderr, "{}: {} of {} point{} refused, {}\n", a.in.file, t.refused, n, n == 1 ? "" : "s", tally_text(t));
    return kExitBadInput;
  }
  fmt::print("{}: ok, {} point{}{}, {}\n", a.in.file, n, n == 1 ? "" : "s", compiled_text, tally_text(t));
  return kExitOk;
}

}  // namespace

int cmd_check(const CheckArgs &a) {
  // --compile polls the stop flag (main.cpp holds the signals for it): a signal kills
  // the compile child and ends the check with the signal's exit code.
  const bool compile = a.compile || a.verify;
  StopSource stop;
  std::optional<SignalWatcher> signals;
  if (compile) signals.emplace(stop);
  Frontend fe;
  if (!load_frontend(a.in, fe)) return kExitBadInput;
  if (a.verify)
    for (const Result<void> &allowed : {check_privileges(), check_bpf_loading()})
      if (!allowed) {
        fmt::print(stderr, "bpfbench: error: check --verify loads the programs: {}\n", allowed.error().message);
        return kExitBadInput;
      }
  size_t programs = 0;
  std::string vmlinux;  // what the programs that include vmlinux.h were compiled with
  CompiledPrograms compiled;
  if (compile) {
    compile_programs(fe, compiled, &stop.flag());
    programs = compiled.compiled;
    if (compiled.vmlinux)
      vmlinux = compiled.vmlinux->cached ? " (vmlinux.h: the cached PCH)"
                                         : fmt::format(" (vmlinux.h precompiled for this kernel in {:.2f} s)",
                                                       compiled.vmlinux->build_seconds);
    if (compiled.interrupted) {
      print_diagnostics(fe);
      fmt::print(stderr, "bpfbench: interrupted\n");
      return exit_code_for(stop);
    }
    print_diagnostics(fe);
    if (fe.diags.has_errors()) return kExitBadInput;
  }
  const std::string compiled_text =
      compile ? fmt::format(", {} BPF program{} compiled{}", programs, programs == 1 ? "" : "s", vmlinux) : "";
  if (a.verify) return verify_for_check(a, fe, compiled, stop, compiled_text);
  fmt::print("{}: ok, {} point{}{}\n", a.in.file, fe.plan->points.size(), fe.plan->points.size() == 1 ? "" : "s",
             compiled_text);
  return kExitOk;
}

namespace {

// plan --facts: every point's programs compiled and loaded (nothing attached), their
// verifier/JIT facts by point index, all before anything is printed. The exit code:
// kExitOk, kExitBadInput after the message when a compile or load fails, 128+N on signal N.
int load_plan_facts(Frontend &fe, std::map<size_t, std::vector<ProgFacts>> &facts) {
  if (auto allowed = check_privileges(); !allowed) {
    fmt::print(stderr, "bpfbench: error: plan --facts loads the programs: {}\n", allowed.error().message);
    return kExitBadInput;
  }
  StopSource stop;  // a signal kills the compile child, or ends the loads between points
  SignalWatcher signals(stop);
  CompiledPrograms compiled;
  const bool ok = compile_programs(fe, compiled, &stop.flag());
  print_diagnostics(fe);
  if (compiled.interrupted || stop.stop_requested()) {
    fmt::print(stderr, "bpfbench: interrupted\n");
    return exit_code_for(stop);
  }
  if (!ok || fe.diags.has_errors()) return kExitBadInput;
  for (const auto &p : fe.plan->points) {
    if (stop.stop_requested()) {
      fmt::print(stderr, "bpfbench: interrupted\n");
      return exit_code_for(stop);
    }
    auto obj = compiled.objects.find(p.index);
    auto f = load_prog_facts(p, *fe.families.find(p.family),
                             obj == compiled.objects.end() ? std::vector<uint8_t>{} : obj->second);
    if (!f) {
      fmt::print(stderr, "{}: error: bench '{}': {}\n", source_location(fe, p.bench_range), p.label, f.error().message);
      return kExitBadInput;
    }
    facts[p.index] = std::move(*f);
  }
  return kExitOk;
}

}  // namespace

int cmd_plan(const PlanArgs &a) {
  Frontend fe;
  if (!load_frontend(a.in, fe)) return kExitBadInput;
  std::map<size_t, std::vector<ProgFacts>> facts;
  PlanExtras extras;
  if (a.facts) {
    if (int rc = load_plan_facts(fe, facts); rc != kExitOk) return rc;
    extras.json = [&facts](const PlanPoint &p, nlohmann::json &j) {
      j["prog_facts"] = prog_facts_to_json(facts[p.index]);
    };
    extras.text = [&facts](const PlanPoint &p) {
      std::string lines;
      for (const auto &f : facts[p.index]) lines += "        " + format_prog_facts(f) + "\n";
      return lines;
    };
  }
  // Streamed: a plan of a million points is ~600 MB of JSON, which as one nlohmann
  // document took 8 GB (and aborted where that was not there).
  auto to_stdout = [](const std::string &s) { std::fwrite(s.data(), 1, s.size(), stdout); };
  if (a.json) {
    write_plan_json(*fe.plan, fe.sources, to_stdout, extras);
    to_stdout("\n");
  } else {
    write_plan_text(*fe.plan, to_stdout, extras);
  }
  return kExitOk;
}

}  // namespace bpfbench::cli
