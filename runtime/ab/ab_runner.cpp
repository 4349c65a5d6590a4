#include "runtime/ab/ab_runner.hpp"

#include <fmt/format.h>

#include <algorithm>

#include "util/escape.hpp"
#include "results/ab_turns.hpp"
#include "results/progress.hpp"

namespace bpfbench {

namespace {

std::string status(const AbPointReport &rep, size_t i, size_t n, double elapsed, double eta, const std::string &what) {
  std::string ci = rep.stats.ok && rep.stats.n >= 2 ? fmt::format("±{:.2f}%", rep.stats.half_width_pct) : "±n/a";
  return format_status(i + 1, n, printable_text(point_name({rep.suite, rep.label})), elapsed, eta,
                       fmt::format("{}  B/A {:.4f} {}", what, rep.stats.ratio, ci));
}

// A turn's value of the point's metric, or why there is none (the report's note).
// A failed turn's note is one line of the table: the error's first line, the verifier's
// log (when there is one) in a file the note names.
std::optional<double> turn_value(const PointResult &r, AbSide side, AbPointReport &rep, VerifierLogFolder *logs) {
  if (r.status != PointResult::Status::Ok) {
    rep.note = fmt::format("{} in {}: {}", to_string(r.status), to_string(side),
                           one_line_failure(r.reason, r.error, rep.label, {to_string(side)}, logs));
    return std::nullopt;
  }
  if (rep.metric.empty()) rep.metric = r.summary.primary;
  return rep.turn_value(r.summary.find(rep.metric), to_string(side));
}

// Whole point runs, A B B A ..., until the turns' stop rule (results/ab_turns.hpp).
void run_turns(const AbSideInput &a, const AbSideInput &b, const AbRunOptions &o, size_t i, size_t n,
               AbPointReport &rep, StopSource &stop) {
  rep.turn_stat = o.turn_value;
  AbTurnLoop loop;
  loop.rule = o.turns;
  loop.stopped = [&stop] { return stop.stop_requested(); };
  loop.run_turn = [&](size_t turn, AbSide side, const std::vector<size_t> &) {
    const AbSideInput &s = side == AbSide::A ? a : b;
    PlanPoint p = *s.point;
    if (o.turn_value == AbTurnValue::Fast) p.interval_ns = std::min(p.interval_ns, kAbFastIntervalNs);
    PointResult r = run_point(p, *s.family, *s.object, o.run, stop);
    if (r.interference) rep.note_interference(turn, side, *r.interference);
    if (stop.stop_requested()) return true;  // an interrupted turn is no value
    std::optional<double> value = turn_value(r, side, rep, o.logs);
    if (!value) return true;  // the note says why: the point is no longer live
    rep.add_turn(side, *value, r.prog_facts.empty() ? std::nullopt : r.prog_facts.front().jit_offset64);
    if (const MetricSummary *ms = r.summary.find(rep.metric)) {
      rep.turns.back().intervals = ms->n;
      rep.turns.back().mean = ms->mean;
    }
    return true;
  };
  loop.after_turn = [&](size_t turn, AbSide, const std::vector<size_t> &, double elapsed) {
    const size_t done = rep.a.size();
    if (turn % 2 == 0 || !o.progress || !rep.note.empty() || done == 0) return;
    const size_t left = o.turns.max_pairs > done ? o.turns.max_pairs - done : 0;
    o.progress(status(rep, i, n, elapsed, elapsed / double(done) * double(left), fmt::format("pairs {}", done)));
  };
  run_abba_turns({&rep}, loop);
}

std::string dispatch_text(const InterleavePlan &plan, const ProgramSpec &prog) {
  if (plan.dispatch == AbDispatch::TestRunCalls) return "BPF_PROG_TEST_RUN calls alternate between the loads";
  std::string hook = prog.section.rfind('?', 0) == 0 ? prog.section.substr(1) : prog.section;
  if (!prog.target.empty()) hook += " " + prog.target;
  return "a dispatcher on " + hook + " tail-calls the active load (one program call per event)";
}

// Both sides in one process, alternated every slice.
void run_interleaved_point(const AbSideInput &a, const AbSideInput &b, const InterleavePlan &plan,
                           const AbRunOptions &o, double user_floor_pct, size_t i, size_t n, AbPointReport &rep,
                           StopSource &stop) {
  InterleaveOptions io = o.interleave;
  io.user_floor_pct = user_floor_pct;
  io.verbose = o.run.verbose;
  io.uprobe_binary = o.run.uprobe_binary;
  io.on_round = [&](const InterleavedStats &s, double elapsed) {
    rep.stats = s.ratio;
    if (o.progress)
      o.progress(status(rep, i, n, elapsed, std::max(0.0, io.rule.max_time_s - elapsed),
                        fmt::format("units {} pairs {}", s.units.size(), s.ratio.pairs)));
  };
  rep.method = AbMethod::Interleaved;
  rep.metric = plan.metric.name;
  rep.unit = plan.metric.unit;
  rep.higher_is_better = true;
  auto ran = run_interleaved(a, b, plan, io, stop);
  if (!ran) {
    // "failed in B: load: ..." when a side's loads failed (interleave_run names the side).
    const std::string why = one_line_failure(ran.error().message, ran.error().bpf, rep.label, {}, o.logs);
    rep.note = "failed" + std::string(why.starts_with("in ") ? " " : ": ") + why;
    return;
  }
  const ProgramSpec *prog = a.family->program(a.point->program.empty() ? a.family->default_program : a.point->program);
  AbInterleaved x;
  x.dispatch = prog ? dispatch_text(plan, *prog) : "";
  x.copies = std::max<size_t>(io.copies, 1);
  x.blocks = ran->blocks;
  x.dropped_pairs = ran->dropped_pairs;
  x.slice_ms = double(io.slice_ns) / 1e6;
  x.settle_ms = double(io.settle_ns) / 1e6;
  x.elapsed_s = ran->elapsed_s;
  x.stats = ran->stats;
  x.a_facts = ran->a_facts;
  x.b_facts = ran->b_facts;
  x.prog_stats_note = ran->prog_stats_note;
  x.kernel_time = ran->kernel_time;
  rep.stats = x.stats.ratio;
  rep.stop = ran->stop;
  rep.interleaved = std::move(x);
  if (ran->interference.found())
    rep.interference.push_back("while interleaved: " + interference_note(ran->interference));
  if (ran->interrupted) rep.note = "interrupted";
  else if (!rep.stats.ok && rep.stats.pairs == 0 && ran->dropped_pairs > 0)
    rep.note = fmt::format("no ratio of {}: all {} pairs of slices dropped, the producers got under {:g} ms of "
                           "CPU in a slice (a busy machine: try --method turns)",
                           rep.metric, ran->dropped_pairs, kMinSliceCpuS * 1e3);
  else if (!rep.stats.ok) rep.note = "no ratio of " + rep.metric + ": " + rep.stats.why;
}

}  // namespace

AbPointReport run_ab_point(const AbSideInput &a, const AbSideInput &b, const AbRunOptions &o, double user_floor_pct,
                           size_t i, size_t n, StopSource &stop) {
  AbPointReport rep;
  rep.suite = a.point->suite;
  rep.label = a.point->label;
  if (b.point->label != a.point->label) rep.label_b = b.point->label;
  rep.floor_pct = user_floor_pct;
  InterleavePlan plan;
  if (o.method == AbMethodChoice::Turns) plan.why_not = "--method turns";
  else plan = plan_interleave(a, b);
  if (plan.why_not.empty()) {
    run_interleaved_point(a, b, plan, o, user_floor_pct, i, n, rep, stop);
  } else {
    rep.method_note = plan.why_not;
    run_turns(a, b, o, i, n, rep, stop);
  }
  rep.judge();
  return rep;
}

}  // namespace bpfbench
