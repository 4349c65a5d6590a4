// `bpfbench ab`: load and compile both variants, match their points, run each matched
// point's turns in ABBA order until the stop rule, report.
#include <fmt/format.h>

#include <algorithm>
#include <chrono>
#include <cstdio>
#include <filesystem>
#include <fstream>
#include <memory>

#include <unistd.h>

#include "cli/ab.hpp"
#include "cli/ab_kernels.hpp"
#include "session/point_select.hpp"
#include "cli/verify_report.hpp"

#include "cli/front.hpp"
#include "compiler/escape.hpp"
#include "compiler/manifest.hpp"
#include "results/ab_report.hpp"
#include "results/progress.hpp"
#include "runtime/ab/ab_runner.hpp"
#include "runtime/privileges.hpp"
#include "runtime/probe.hpp"
#include "runtime/run_point.hpp"
#include "runtime/stop.hpp"

namespace bpfbench::cli {

namespace {

// One side: its front end (plan, families) and compiled programs.
struct Variant {
  std::string name;
  std::unique_ptr<Frontend> fe = std::make_unique<Frontend>();
  CompiledPrograms programs;
  const std::vector<uint8_t> no_object;  // programs that load nothing (trigger base)
  const std::vector<uint8_t> &object(size_t point) const {
    auto it = programs.objects.find(point);
    return it == programs.objects.end() ? no_object : it->second;
  }
};

struct MatchedPoint {
  const PlanPoint *a = nullptr, *b = nullptr;
};

std::string variant_name(const std::string &file, const std::vector<std::string> &sets, const char *opt,
                         const std::string &templates) {
  std::string out = file;
  if (!templates.empty()) out += fmt::format(" {}-templates {}", opt, templates);
  for (const auto &s : sets) out += fmt::format(" {} {}", opt, s);
  return out;
}

// Front end with the side's settings; false (diagnostics printed) when it has no plan.
bool load_variant(const AbArgs &a, const std::string &file, const std::vector<std::string> &sets, const char *opt,
                  const std::string &templates, Variant &v, const Variant *shown = nullptr) {
  FileArgs in = a.in;
  in.file = file;
  if (!templates.empty()) {
    // The side's families compile against its own include/ (the shipped one is not searched).
    if (std::string why = shared_header_problem(templates); !why.empty()) {
      bool missing = why.starts_with("no include/");
      fmt::print(stderr, "bpfbench: error: {}-templates {}: {}{}\n", opt, printable_text(templates),
                 printable_text(why), missing ? " (copy bpf_templates/include there with the families)" : "");
      return false;
    }
    in.only_template_dirs = {TemplateDir{templates, std::string(opt) + "-templates"}};
  }
  for (const auto &s : sets) {
    ParamOverride o;
    if (std::string why = parse_param_override(s, opt, o); !why.empty()) {
      fmt::print(stderr, "bpfbench: error: {}\n", why);
      return false;
    }
    in.overrides.params.push_back(o);
  }
  v.name = variant_name(file, sets, opt, templates);
  if (shown) v.fe->shown_notes = shown->fe->shown_notes;  // A's notes (a shadowed family) are not said twice
  return load_frontend(in, *v.fe);
}

// SHA-256 of the C the point's program was generated from ("" when it loads none).
std::string program_sha(const Variant &v, size_t point) {
  for (const auto &p : v.programs.programs)
    if (std::find(p.points.begin(), p.points.end(), point) != p.points.end()) return p.sha256;
  return "";
}

// --a-templates/--b-templates: a point whose two programs are the same C measures A
// against itself; said, not refused (the other points may differ).
void warn_same_programs(const Variant &va, const Variant &vb, const std::vector<MatchedPoint> &matched) {
  for (const auto &m : matched)
    if (program_sha(va, m.a->index) == program_sha(vb, m.b->index))
      fmt::print(stderr,
                 "bpfbench: warning: {}: A and B generate the same program (the template folders agree on it)\n",
                 printable_text(point_name({m.a->suite, m.a->label})));
}

bool selected(const PlanPoint &p, const std::string &only) {
  return !p.is_baseline && (only.empty() || label_matches(only, p.label));
}

// Two files: by suite and label. One file: by plan position (both plans come from the same
// benches, `where` judged before the settings; --a/--b may change the labels, so --only
// reads A's).
std::vector<MatchedPoint> match_points(const Variant &va, const Variant &vb, bool same_file, const std::string &only,
                                       AbReport &rep) {
  const auto &all_a = va.fe->plan->points, &all_b = vb.fe->plan->points;
  std::vector<MatchedPoint> out;
  if (same_file) {
    for (size_t i = 0; i < all_a.size() && i < all_b.size(); ++i)
      if (selected(all_a[i], only)) out.push_back({&all_a[i], &all_b[i]});
    return out;
  }
  std::vector<const PlanPoint *> pa, pb;
  for (const auto &p : all_a)
    if (selected(p, only)) pa.push_back(&p);
  for (const auto &p : all_b)
    if (selected(p, only)) pb.push_back(&p);
  std::vector<AbPointKey> ka, kb;
  for (const auto *p : pa) ka.push_back({p->suite, p->label});
  for (const auto *p : pb) kb.push_back({p->suite, p->label});
  AbMatch m = match_by_suite_label(ka, kb);
  for (auto [i, j] : m.pairs) out.push_back({pa[i], pb[j]});
  rep.only_a = m.only_a;
  rep.only_b = m.only_b;
  return out;
}

// The runner's options from the command line: the turns' rule, the interleaving settings
// (--precision and --max-time apply to both), progress on stderr.
AbRunOptions run_options(const AbArgs &a, FeatureProber &prober) {
  AbRunOptions o;
  o.method = a.method;
  o.interleave = a.interleave;
  o.interleave.rule.precision_pct = a.rule.precision_pct;
  if (a.rule.max_time_s > 0) o.interleave.rule.max_time_s = a.rule.max_time_s;
  o.turns = a.rule;
  o.turn_value = a.turn_value;
  o.run.verbose = a.verbose;
  o.run.prober = &prober;
  o.progress = [](const std::string &line) { fmt::print(stderr, "{}\n", line); };
  return o;
}

// The checked, bounded reader (results/floor_file.hpp): never waits on a FIFO.
std::optional<std::map<std::string, double>> read_floors(const std::string &path) {
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
  size_t failed = 0, no_ratio = 0;
  for (const auto &p : rep.points) {
    failed += p.note.rfind("failed", 0) == 0;
    no_ratio += p.stop == AbStop::NoRatio;
  }
  if (failed > 0) fmt::print(stderr, "bpfbench: {} point{} failed\n", failed, failed == 1 ? "" : "s");
  if (no_ratio > 0)
    fmt::print(stderr, "bpfbench: {} point{} without a ratio (its note says why)\n", no_ratio,
               no_ratio == 1 ? "" : "s");
  if (failed + no_ratio > 0) return kExitBadInput;
  if (a.fail_on_regression_pct && rep.worst_regression_pct() > *a.fail_on_regression_pct) {
    fmt::print(stderr, "bpfbench: {}\n", ab_regression_message(rep, *a.fail_on_regression_pct));
    return kExitPartial;
  }
  return kExitOk;
}

// Both variants loaded and compiled (B is A in a control run); false when one is not.
bool prepare(const AbArgs &a, Variant &va, Variant &vb, StopSource &stop) {
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
  if (std::string why = check_privileges(); !why.empty()) {
    fmt::print(stderr, "bpfbench: error: {}\n", why);
    return false;
  }
  for (Variant *v : {&va, &vb}) {
    if (a.control && v == &vb) break;
    bool compiled = compile_programs(*v->fe, v->programs, &stop.flag());
    print_diagnostics(*v->fe);
    if (!compiled) return false;
  }
  return true;
}

// Both sides of every matched point through the verifier (A alone in a control run), before
// the first turn: a B refused at its last point fails in seconds, with nothing measured.
std::optional<int> verify_matched(const Variant &va, const Variant &vb, const std::vector<MatchedPoint> &matched,
                                  bool control, const StopSource &stop) {
  VerifySide sa{va.fe.get(), &va.programs, {}, "A"}, sb{vb.fe.get(), &vb.programs, {}, "B"};
  for (const auto &m : matched) {
    sa.points.push_back(m.a);
    sb.points.push_back(m.b);
  }
  if (control) return verify_before_measuring({sa}, stop);
  return verify_before_measuring({sa, sb}, stop);
}

using Floors = std::optional<std::map<std::string, double>>;

// The floor the user gives a point: --threshold or the control run's, the larger.
double user_floor(const AbArgs &a, const Floors &floors, const AbPointKey &k) {
  return std::max(a.threshold_pct, floors ? floor_for(*floors, k) : 0.0);
}

void judge(const AbArgs &a, const Floors &floors, AbPointReport &p) {
  p.floor_pct = user_floor(a, floors, {p.suite, p.label});
  p.judge();
}

// --a-kernel/--b-kernel: the file's plan on the host names the points; their turns run in
// guests (cli/ab_kernels.hpp). Whatever was measured is reported, also after a failed guest.
int ab_on_kernels(const AbArgs &a, const Floors &floors, StopSource &stop) {
  if (geteuid() != 0) {
    fmt::print(stderr, "bpfbench: error: --a-kernel/--b-kernel need root (the guests run bpfbench as root over the "
                       "host's files)\n");
    return kExitBadInput;
  }
  Variant va;
  if (!load_variant(a, a.files[0], {}, "--a", "", va)) return kExitBadInput;
  AbReport rep;
  rep.a = a.files[0] + " --a-kernel " + a.a_kernel;
  rep.b = a.files[0] + " --b-kernel " + a.b_kernel;
  rep.rule = a.rule;
  for (const auto &m : match_points(va, va, true, a.only, rep)) {
    AbPointReport p;
    p.suite = m.a->suite;
    p.label = m.a->label;
    p.method_note = "two kernels: each side's turns run in a guest of its own";
    rep.points.push_back(std::move(p));
  }
  if (rep.points.empty()) {
    fmt::print(stderr, "bpfbench: error: --only '{}' matches no point\n", printable_text(a.only));
    return kExitBadInput;
  }
  const bool ok = run_kernel_turns(a, stop, rep.points, rep.timing_note);
  for (auto &p : rep.points) judge(a, floors, p);
  print_report(rep, a.format);
  int code = ab_exit_code(a, rep, stop);
  return ok || code != kExitOk ? code : kExitBadInput;
}

}  // namespace

int cmd_ab(const AbArgs &a) {
  if (std::string why = ab_usage_error(a); !why.empty()) {
    fmt::print(stderr, "bpfbench: error: {}\n", why);
    return kExitBadInput;
  }
  Floors floors;
  if (!a.floor_from.empty() && !(floors = read_floors(a.floor_from))) return kExitBadInput;
  block_stop_signals();
  StopSource stop;
  SignalWatcher signals(stop);
  if (ab_kernels(a)) return ab_on_kernels(a, floors, stop);
  Variant va, vb;
  if (!prepare(a, va, vb, stop)) return kExitBadInput;
  const Variant &b = a.control ? va : vb;

  AbReport rep;
  rep.a = va.name;
  rep.b = a.control ? va.name : vb.name;
  rep.control = a.control;
  rep.rule = a.rule;
  rep.turn_value = a.turn_value;
  std::vector<MatchedPoint> matched = match_points(va, b, ab_match_by_position(a) || a.control, a.only, rep);
  if (matched.empty()) {
    fmt::print(stderr, "bpfbench: error: no point of A matches a point of B (by suite and label)\n");
    return kExitBadInput;
  }
  if (!a.a_templates.empty() || !a.b_templates.empty()) warn_same_programs(va, b, matched);
  if (std::optional<int> refused = verify_matched(va, b, matched, a.control, stop)) return *refused;
  FeatureProber prober;
  VerifierLogFolder logs;  // a turn's refused load: its note names the log's file
  AbRunOptions options = run_options(a, prober);
  options.logs = &logs;
  for (size_t i = 0; i < matched.size() && !stop.stop_requested(); ++i) {
    const MatchedPoint &m = matched[i];
    AbSideInput sa{m.a, &*va.fe->families.find(m.a->family), &va.object(m.a->index)};
    AbSideInput sb{m.b, &*b.fe->families.find(m.b->family), &b.object(m.b->index)};
    rep.points.push_back(
        run_ab_point(sa, sb, options, user_floor(a, floors, {m.a->suite, m.a->label}), i, matched.size(), stop));
  }
  print_report(rep, a.format);
  return ab_exit_code(a, rep, stop);
}

}  // namespace bpfbench::cli
