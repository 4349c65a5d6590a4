// bpfbench: the command line. CLI11 parses, a cmd_* function runs the pipeline.
#include <CLI/CLI.hpp>
#include <fmt/format.h>

#include <algorithm>
#include <csignal>
#include <cstdint>
#include <cstdio>
#include <exception>
#include <new>
#include <optional>
#include <sstream>
#include <string>
#include <string_view>
#include <vector>

#include "cli/cli_docs.hpp"
#include "cli/ab.hpp"
#include "cli/commands.hpp"
#include "cli/kbench_cmd.hpp"
#include "cli/options.hpp"
#include "cli/results_cmds.hpp"
#include "cli/text_output.hpp"
#include "cli/run_commands.hpp"
#include "cli/values.hpp"
#include "compiler/bdsl/diagnostics.hpp"
#include "util/escape.hpp"
#include "util/limit_hints.hpp"
#include "runtime/stop.hpp"

namespace bpfbench::cli {

namespace {

// CLI11 reports `bpfbench frob` as an unexpected argument or a missing subcommand, never
// naming it as a command: the first word that is not an option is the command.
std::string unknown_command(CLI::App &app, int argc, char **argv) {
  if (argc < 2 || argv[1][0] == '-') return "";
  std::string word = argv[1];
  std::vector<std::string> names;
  for (const CLI::App *sub : app.get_subcommands({})) {
    if (sub->check_name(word)) return "";
    names.push_back(sub->get_name());
  }
  std::string close = did_you_mean(word, names);
  return fmt::format("unknown command '{}'{} (commands: {})", word,
                     close.empty() ? "" : fmt::format("; did you mean '{}'?", close), fmt::join(names, ", "));
}

// CLI11 names the words it could not place, not why: an option the command does not have
// (`bench --cmp_str_len 64 strncmp-helper`) leaves its value to the positional, and CLI11
// then calls the benchmark name unexpected. The first word that looks like a long option
// and is none of the command's is the error, with the closest of its options.
std::string unknown_option(CLI::App &app, int argc, char **argv) {
  if (argc < 3) return "";
  const CLI::App *cmd = nullptr;
  for (const CLI::App *sub : app.get_subcommands({}))
    if (sub->check_name(argv[1])) cmd = sub;
  if (!cmd) return "";
  std::vector<std::string> names;
  for (const CLI::Option *o : cmd->get_options())
    for (const auto &l : o->get_lnames()) names.push_back("--" + l);
  for (int i = 2; i < argc; ++i) {
    std::string word = argv[i];
    if (word == "--") break;
    if (word.size() < 3 || word.compare(0, 2, "--") != 0) continue;
    word = word.substr(0, word.find('='));
    if (std::find(names.begin(), names.end(), word) != names.end()) continue;
    std::string close = did_you_mean(word, names);
    return fmt::format("{}: unknown option '{}'{}", cmd->get_name(), printable_text(word),
                       close.empty() ? "" : fmt::format("; did you mean '{}'?", close));
  }
  return "";
}

// A symlink named `bench` to bpfbench is the kernel bench's command line: `bench ARGS`
// runs as `bpfbench bench ARGS`, so the kernel's run_bench_*.sh scripts run unchanged.
bool invoked_as_bench(const char *argv0) {
  std::string_view name = argv0 ? argv0 : "";
  if (auto slash = name.rfind('/'); slash != std::string_view::npos) name.remove_prefix(slash + 1);
  return name == "bench";
}

int run_args(int argc, char **argv);

CLI::App *add_doctor_command(CLI::App &app, DoctorArgs &doctor) {
  auto *d = app.add_subcommand("doctor", "Report what makes numbers unstable on this machine (changes nothing)");
  d->add_flag("--json", doctor.json, "Print the findings as JSON");
  d->add_flag("--quick", doctor.quick, "Skip the timed probes (steal, background load, spin test: about 1 s)");
  return d;
}

int run(int argc, char **argv) {
  if (argc < 1 || !invoked_as_bench(argv[0])) return run_args(argc, argv);
  std::string word = "bench";
  std::vector<char *> args(argv, argv + argc);
  args.insert(args.begin() + 1, word.data());
  args.push_back(nullptr);
  return run_args(int(args.size() - 1), args.data());
}

CLI::App *add_check_command(CLI::App &app, CheckArgs &check) {
  auto *c = app.add_subcommand("check", "Parse and check a .bdsl file; report every problem");
  add_file_options(c, check.in);
  c->add_flag("--compile", check.compile, "Also generate and compile every BPF program");
  c->add_flag("--verify", check.verify,
              "Also load every point's programs into the kernel's verifier, nothing attached (root; implies --compile)");
  return c;
}

CLI::App *add_plan_command(CLI::App &app, PlanArgs &plan) {
  auto *p = app.add_subcommand("plan", "Print the resolved run plan: every sweep point");
  add_file_options(p, plan.in);
  p->add_flag("--json", plan.json, "Print the plan as JSON");
  p->add_flag("--facts", plan.facts,
              "Also compile and load (not attach) every point's programs and add their verifier and JIT facts: "
              "verified insns, peak states, verification time, xlated and JITed sizes (needs root)");
  return p;
}

// --help and --version: CLI11 writes them to std::cout, which bypasses the checked stdout
// of TextOutput (std::cout holds the C library's stdout from before main); printed from
// here, they are checked like everything else.
int print_help(const CLI::App &app, const CLI::Error &ex) {
  std::ostringstream out, err;
  int code = app.exit(ex, out, err);
  fmt::print("{}", out.str());
  fmt::print(stderr, "{}", err.str());
  return code;
}

CLI::App *add_emit_command(CLI::App &app, EmitArgs &emit) {
  auto *e = app.add_subcommand("emit", "Print the generated BPF C");
  add_file_options(e, emit.in, true);
  e->add_option("--bench", emit.bench, "Only this bench (index from 0, or family name)")
      ->check(checked(non_empty("a bench index or family name"), "BENCH"))
      ->type_name("BENCH");
  // Signed, so that "-1" is refused as typed instead of wrapping to 18446744073709551615.
  add_value<int64_t>(
      e, "--point", integer_in(0, INT64_MAX), [&emit](int64_t i) { emit.point = size_t(i); },
      "Only the program of this plan point (index from `plan`)", "INDEX");
  return e;
}

CLI::App *add_list_command(CLI::App &app, ListArgs &list) {
  auto *l = app.add_subcommand("list", "List the benchmark families, their params and metrics");
  l->add_option("FILE", list.file, "A .bdsl file: also list the families in bpf_templates/ next to it")
      ->check(checked(non_empty("a .bdsl file name"), "FILE"));
  l->add_option("--templates", list.template_dirs, "Also look for families in this folder (repeatable)")
      ->allow_extra_args(false)
      ->check(checked(non_empty("a folder name"), "DIR"))
      ->type_name("DIR");
  auto *list_json = l->add_flag("--json", list.json, "Print as JSON");
  l->add_flag("--kinds", list.kinds,
              "List the runtime kinds a family.json can name (producers, consumers, attach kinds, setup actions, "
              "metric sources) and the params each reads")
      ->excludes(list_json);
  return l;
}

// Every command's options, and the subcommand CLI11 marks parsed: what dispatch() reads.
struct Commands {
  CheckArgs check;
  PlanArgs plan;
  EmitArgs emit;
  ListArgs list;
  RunCommand run;
  KbenchArgs kbench;
  ResultsCommands results;
  AbCommand ab;
  DoctorArgs doctor;
  CLI::App *check_cmd = nullptr, *plan_cmd = nullptr, *emit_cmd = nullptr, *list_cmd = nullptr,
           *kbench_cmd = nullptr, *doctor_cmd = nullptr;
};

void declare_commands(CLI::App &app, Commands &cmds) {
  app.require_subcommand(1);
  app.set_version_flag("--version", std::string("bpfbench ") + BPFBENCH_VERSION);
  cmds.check_cmd = add_check_command(app, cmds.check);
  cmds.plan_cmd = add_plan_command(app, cmds.plan);
  cmds.emit_cmd = add_emit_command(app, cmds.emit);
  cmds.list_cmd = add_list_command(app, cmds.list);
  add_run_commands(app, cmds.run);
  cmds.kbench_cmd = add_kbench_command(app, cmds.kbench);
  add_results_commands(app, cmds.results);
  add_ab_command(app, cmds.ab);
  // Last in the command list: a report about the machine, not a step of the pipeline.
  cmds.doctor_cmd = add_doctor_command(app, cmds.doctor);
}

// The command line into `app`'s options: an exit code when there is nothing to run
// (--help, --version, a generated page, bad input), else nothing.
std::optional<int> parse_command_line(CLI::App &app, int argc, char **argv) {
  if (auto code = print_generated(app, argc, argv)) return *code;
  if (std::string why = unknown_command(app, argc, argv); !why.empty()) {
    fmt::print(stderr, "bpfbench: error: {}\nRun with --help for more information.\n", why);
    return kExitBadInput;
  }
  try {
    app.parse(argc, argv);
  } catch (const CLI::CallForHelp &ex) {
    return print_help(app, ex);
  } catch (const CLI::CallForAllHelp &ex) {
    return print_help(app, ex);
  } catch (const CLI::CallForVersion &ex) {
    return print_help(app, ex);
  } catch (const CLI::ParseError &ex) {
    std::string why = unknown_option(app, argc, argv);
    fmt::print(stderr, "bpfbench: error: {}\nRun with --help for more information.\n", why.empty() ? ex.what() : why);
    return kExitBadInput;
  }
  return std::nullopt;
}

// The commands that poll a stop flag: main()'s held stop signals go to their SignalWatcher.
bool polls_stop_flag(const Commands &cmds) {
  return (cmds.check_cmd->parsed() && (cmds.check.compile || cmds.check.verify)) ||
         (cmds.plan_cmd->parsed() && cmds.plan.facts) || polls_stop_flag(cmds.run) ||
         (cmds.kbench_cmd->parsed() && !cmds.kbench.list) || cmds.ab.cmd->parsed();
}

int dispatch(const Commands &cmds) {
  if (cmds.kbench_cmd->parsed()) return cmd_kbench(cmds.kbench);
  if (cmds.check_cmd->parsed()) return cmd_check(cmds.check);
  if (cmds.plan_cmd->parsed()) return cmd_plan(cmds.plan);
  if (cmds.emit_cmd->parsed()) return cmd_emit(cmds.emit);
  if (cmds.list_cmd->parsed()) return cmd_list(cmds.list);
  if (cmds.doctor_cmd->parsed()) return cmd_doctor(cmds.doctor);
  if (auto code = dispatch_results_commands(cmds.results)) return *code;
  if (cmds.ab.cmd->parsed()) return cmd_ab(cmds.ab.args);
  return dispatch_run_commands(cmds.run);
}

int run_args(int argc, char **argv) {
  CLI::App app{"bpfbench: declarative BPF micro-benchmarks (.bdsl → BPF → numbers)", "bpfbench"};
  Commands cmds;
  declare_commands(app, cmds);
  if (auto code = parse_command_line(app, argc, argv)) return *code;
  // The stop signals main() holds go to the commands that poll a stop flag (their
  // SignalWatcher takes them over); the others end on a signal as any program does.
  if (!polls_stop_flag(cmds)) unblock_stop_signals();
  return dispatch(cmds);
}

}  // namespace

// The dynamic loader runs the executable's .preinit_array after relocating the libraries
// and before any of their constructors: LLVM's take tens of ms, a window in which a
// SIGINT would otherwise kill bpfbench before main(). From here on a stop signal is held
// for the command (main() blocks them again, for a static build). A constant loader
// hook, not state.
void hold_stop_signals(int, char **, char **) { bpfbench::block_stop_signals(); }
[[gnu::section(".preinit_array"), gnu::used]] constexpr void (*kHoldStopSignals)(int, char **,
                                                                                 char **) = hold_stop_signals;

}  // namespace bpfbench::cli

namespace {

int run_checked(int argc, char **argv) {
  // Stages report errors as values; this only catches what should never happen
  // (a library throwing), so the user sees one line, not a terminate(), and what a
  // machine limit kept from being created, with the limit to raise.
  try {
    return bpfbench::cli::run(argc, argv);
  } catch (const bpfbench::ResourceError &ex) {
    std::fprintf(stderr, "bpfbench: error: %s\n", ex.what());
  } catch (const std::bad_alloc &) {
    std::fprintf(stderr, "bpfbench: error: out of memory (%s)\n", bpfbench::memory_limit_hint().c_str());
  } catch (const std::exception &ex) {
    std::fprintf(stderr, "bpfbench: internal error: %s\n", ex.what());
  } catch (...) {
    std::fprintf(stderr, "bpfbench: internal error\n");
  }
  return bpfbench::kExitBadInput;
}

}  // namespace

int main(int argc, char **argv) {
  // First, before any work: a SIGINT/SIGTERM/SIGHUP/SIGPIPE from now on is held pending
  // for the command's SignalWatcher, never lost (runtime/stop.hpp).
  bpfbench::block_stop_signals();
  // RLIMIT_FSIZE is a full disk, not a kill: write() fails with EFBIG, the writer reports it and removes its temporary
  // file.
  std::signal(SIGXFSZ, SIG_IGN);
  // A closed stdout pipe is SIGPIPE (cli/text_output.hpp), also when the parent ignored it.
  std::signal(SIGPIPE, SIG_DFL);
  // Every byte printed from here on goes through one checked sink; finish() turns text
  // that was lost into the exit code.
  bpfbench::cli::TextOutput text;
  return text.finish(run_checked(argc, argv));
}
