// `bpfbench ab`: load and compile both variants (their diagnostics printed), then the
// session matches their points, verifies and runs them (session/ab_session.hpp); the
// progress, the report and the exit code are said here.
#include <fmt/format.h>

#include <cstdio>

#include <unistd.h>

#include "cli/ab.hpp"
#include "cli/front.hpp"
#include "cli/kernel_cmd.hpp"
#include "cli/verify_report.hpp"
#include "util/escape.hpp"
#include "results/ab_report.hpp"
#include "runtime/privileges.hpp"
#include "runtime/stop.hpp"
#include "runtime/verifier_log.hpp"
#include "session/ab_kernels.hpp"
#include "session/ab_session.hpp"
#include "session/point_select.hpp"

namespace bpfbench::cli {

namespace {

void say(const std::string &msg) {
  fmt::print(stderr, "bpfbench: {}\n", msg);
  std::fflush(stderr);
}

// Front end with the side's settings; false (diagnostics printed) when it has no plan.
bool load_variant(const AbArgs &a, const std::string &file, const std::vector<std::string> &sets, const char *opt,
                  const std::string &templates, AbVariant &v, const AbVariant *shown = nullptr) {
  Result<FileArgs> in = ab_variant_input(a, file, sets, opt, templates);
  if (!in) {
    fmt::print(stderr, "bpfbench: error: {}\n", in.error().message);
    return false;
  }
  v.name = ab_variant_name(file, sets, opt, templates);
  if (shown) v.fe->shown_notes = shown->fe->shown_notes;  // A's notes (a shadowed family) are not said twice
  return load_frontend(*in, *v.fe);
}

// The checked, bounded reader (results/floor_file.hpp): never waits on a FIFO.
std::optional<FloorMap> read_floors(const std::string &path) {
  Result<FloorMap> floors = read_floor_file(path);
  if (!floors) fmt::print(stderr, "bpfbench: error: {}\n", floors.error().message);
  return floors ? std::optional(*floors) : std::nullopt;
}

void print_report(const AbReport &rep, const std::string &format) {
  if (format == "json") fmt::print("{}\n", json_text(ab_to_json(rep), 2));
  else if (format == "markdown") fmt::print("{}", ab_to_markdown(rep));
  else fmt::print("{}", ab_to_text(rep));
  std::fflush(stdout);
}

// Exit code after the report: interrupted, failed turns, a regression, or fine.
int ab_exit_code(const AbArgs &a, const AbReport &rep, const StopSource &stop) {
  if (int code = exit_code_for(stop); code != 0) {
    fmt::print(stderr, "bpfbench: interrupted\n");
    return code;
  }
  const AbTally t = ab_tally(rep);
  if (t.failed > 0) fmt::print(stderr, "bpfbench: {} point{} failed\n", t.failed, t.failed == 1 ? "" : "s");
  if (t.no_ratio > 0)
    fmt::print(stderr, "bpfbench: {} point{} without a ratio (its note says why)\n", t.no_ratio,
               t.no_ratio == 1 ? "" : "s");
  if (t.failed + t.no_ratio > 0) return kExitBadInput;
  if (a.fail_on_regression_pct && rep.worst_regression_pct() > *a.fail_on_regression_pct) {
    fmt::print(stderr, "bpfbench: {}\n", ab_regression_message(rep, *a.fail_on_regression_pct));
    return kExitPartial;
  }
  return kExitOk;
}

// Both variants loaded and compiled (B is A in a control run); false when one is not.
bool prepare(const AbArgs &a, AbVariant &va, AbVariant &vb, StopSource &stop) {
  bool two_files = a.files.size() == 2;
  if (!load_variant(a, a.files[0], a.a_sets, "--a", a.a_templates, va)) return false;
  if (!a.control && !load_variant(a, two_files ? a.files[1] : a.files[0], a.b_sets, "--b", a.b_templates, vb, &va))
    return false;
  // An --only that matches none of A's labels is that, before anything is compiled (it
  // was "no point of A matches a point of B").
  if (!a.only.empty()) {
    RunPlan labels = *va.fe->plan;
    if (auto kept = select_points(labels, {a.only}); !kept) {
      fmt::print(stderr, "bpfbench: error: {}\n", printable_text(kept.error().message));
      return false;
    }
  }
  if (auto allowed = check_privileges(); !allowed) {
    fmt::print(stderr, "bpfbench: error: {}\n", allowed.error().message);
    return false;
  }
  for (AbVariant *v : {&va, &vb}) {
    if (a.control && v == &vb) break;
    bool compiled = compile_programs(*v->fe, v->programs, &stop.flag());
    print_diagnostics(*v->fe);
    if (!compiled) return false;
  }
  return true;
}

// --a-kernel/--b-kernel: the file's plan on the host names the points; their turns run in
// guests (session/ab_kernels.hpp). Whatever was measured is reported, also after a failed guest.
int ab_on_kernels(const AbArgs &a, const AbFloors &floors, StopSource &stop) {
  if (geteuid() != 0) {
    fmt::print(stderr, "bpfbench: error: --a-kernel/--b-kernel need root (the guests run bpfbench as root over the "
                       "host's files)\n");
    return kExitBadInput;
  }
  AbVariant va;
  if (!load_variant(a, a.files[0], {}, "--a", "", va)) return kExitBadInput;
  AbReport rep = ab_kernels_report(a, va);
  if (rep.points.empty()) {
    fmt::print(stderr, "bpfbench: error: --only '{}' matches no point\n", printable_text(a.only));
    return kExitBadInput;
  }
  GuestTurnsIo io{own_executable(), say, [](const std::string &text) { fmt::print(stderr, "{}", text); }};
  const bool ok = run_kernel_turns(a, io, stop, rep.points, rep.timing_note);
  judge_ab_points(a, floors, rep);
  print_report(rep, a.format);
  int code = ab_exit_code(a, rep, stop);
  return ok || code != kExitOk ? code : kExitBadInput;
}

}  // namespace

int cmd_ab(const AbArgs &a) {
  if (auto usage = check_ab_usage(a); !usage) {
    fmt::print(stderr, "bpfbench: error: {}\n", usage.error().message);
    return kExitBadInput;
  }
  AbFloors floors;
  if (!a.floor_from.empty() && !(floors = read_floors(a.floor_from))) return kExitBadInput;
  block_stop_signals();
  StopSource stop;
  SignalWatcher signals(stop);
  if (ab_kernels(a)) return ab_on_kernels(a, floors, stop);
  AbVariant va, vb;
  if (!prepare(a, va, vb, stop)) return kExitBadInput;
  const AbVariant &b = a.control ? va : vb;

  AbReport rep = ab_report_head(a, va, b);
  std::vector<AbMatchedPoint> matched = match_ab_points(va, b, ab_match_by_position(a) || a.control, a.only, rep);
  if (matched.empty()) {
    fmt::print(stderr, "bpfbench: error: no point of A matches a point of B (by suite and label)\n");
    return kExitBadInput;
  }
  // --a-templates/--b-templates: a point whose two programs are the same C measures A
  // against itself; said, not refused (the other points may differ).
  if (!a.a_templates.empty() || !a.b_templates.empty())
    for (const auto &name : same_program_points(va, b, matched))
      fmt::print(stderr,
                 "bpfbench: warning: {}: A and B generate the same program (the template folders agree on it)\n",
                 printable_text(name));
  // Both sides of every matched point through the verifier (A alone in a control run), before
  // the first turn: a B refused at its last point fails in seconds, with nothing measured.
  if (std::optional<int> refused = verify_before_measuring(ab_verify_sides(va, b, matched, a.control), stop))
    return *refused;
  FeatureProber prober;
  VerifierLogFolder logs;  // a turn's refused load: its note names the log's file
  AbRunOptions options = ab_run_options(a, prober);
  options.logs = &logs;
  options.progress = [](const std::string &line) { fmt::print(stderr, "{}\n", line); };
  run_ab_points(va, b, matched, a, floors, options, stop, rep);
  print_report(rep, a.format);
  return ab_exit_code(a, rep, stop);
}

}  // namespace bpfbench::cli
