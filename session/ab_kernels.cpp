// `bpfbench ab FILE --a-kernel K1 --b-kernel K2`: the same points on two kernels. Every turn
// is one guest boot (vm/guest_run.hpp) of the side's kernel that runs `bpfbench run` over
// every matched point still short of its stop rule; turns go in ABBA order, and the turns'
// values pair up per point as in a host ab run (docs/ab.md, "Two kernels").
#include "session/ab_kernels.hpp"

#include <unistd.h>

#include <fmt/format.h>

#include <filesystem>

#include "results/ab_turns.hpp"
#include "results/results.hpp"
#include "session/inputs.hpp"
#include "vm/guest_run.hpp"
#include "vm/kernel_cache.hpp"
#include "vm/labels.hpp"

namespace bpfbench {

namespace fs = std::filesystem;

namespace {

// A turn's value of the point's primary metric from the guest's results, or why there is none.
std::optional<double> guest_value(const ResultSet &rs, AbPointReport &rep, const std::string &side) {
  const ResultPoint *p = nullptr;
  for (const auto &x : rs.points)
    if (x.label == rep.label && !x.is_baseline) p = &x;
  if (!p) {
    rep.note = fmt::format("no result for it in {}", side);
    return std::nullopt;
  }
  if (p->status != "ok") {
    rep.note = fmt::format("{} in {}: {}", p->status, side, p->reason);
    return std::nullopt;
  }
  if (rep.metric.empty()) rep.metric = p->primary;
  return rep.turn_value(p->metric(rep.metric), side);
}

struct Side {
  vm::KernelSpec kernel;
  std::string name;  // "A (6.1.0-57-amd64)"
};

// One guest run of `labels` on `side`: its results, or nullopt after the message.
std::optional<ResultSet> guest_turn(const AbArgs &a, const GuestTurnsIo &io, const Side &side,
                                    const vm::AccelChoice &accel, const std::vector<std::string> &labels,
                                    const std::string &json, const StopSource &stop) {
  vm::GuestRequest req;
  req.kernel = side.kernel;
  req.accel = accel;
  req.argv = guest_turn_argv(a, io.program, labels, json);
  std::error_code ec;
  req.cwd = fs::current_path(ec).string();
  req.boot_timeout_s = a.boot_timeout_s;
  req.stop = &stop.flag();
  req.on_stdout = [](const std::string &) {};  // -q: the summary only, and the JSON has it
  vm::GuestResult g = vm::run_in_guest(req);
  if (stop.stop_requested()) return std::nullopt;
  if (!g.ok) {
    io.say(fmt::format("error: {}: {}", side.name, g.error));
    if (!g.console_tail.empty()) io.dump(fmt::format("--- guest console (last lines) ---\n{}\n---\n", g.console_tail));
    return std::nullopt;
  }
  auto rs = load_results(json, &stop.flag());
  if (!rs) {
    io.say(fmt::format("error: {}: the guest's run (exit {}) left no results: {}", side.name, g.job_exit,
                       rs.error().message));
    if (!g.job_stderr.empty()) io.dump(g.job_stderr);
  }
  fs::remove(json, ec);
  if (!rs) return std::nullopt;
  return std::move(*rs);
}

}  // namespace

// Run in our working directory (relative paths stay as given). The calibration is off: the
// pairs are the drift guard here.
std::vector<std::string> guest_turn_argv(const AbArgs &a, const std::string &program,
                                         const std::vector<std::string> &labels, const std::string &json) {
  std::vector<std::string> argv = {program, "run", a.files[0], "-q", "--calibration", "off", "--json", json};
  auto add = [&argv](const std::string &opt, const std::string &value) {
    argv.push_back(opt);
    argv.push_back(value);
  };
  for (const auto &l : labels) add("--only", l);
  for (const auto &d : a.in.template_dirs) add("--templates", d);
  for (const auto &d : a.in.include_dirs) add("--include-dir", d);
  const PlanOverrides &o = a.in.overrides;
  if (o.warmup_ns) add("-w", fmt::format("{}ns", *o.warmup_ns));
  if (o.duration_ns) add("-d", fmt::format("{}ns", *o.duration_ns));
  if (o.producers) add("-p", std::to_string(*o.producers));
  if (o.consumers) add("-c", std::to_string(*o.consumers));
  if (o.affinity && *o.affinity) argv.push_back("-a");
  if (o.prod_cpus) add("--prod-affinity", *o.prod_cpus);
  if (o.cons_cpus) add("--cons-affinity", *o.cons_cpus);
  if (a.in.allow_large) argv.push_back("--allow-large");
  return argv;
}

bool run_kernel_turns(const AbArgs &a, const GuestTurnsIo &io, StopSource &stop, std::vector<AbPointReport> &reps,
                      std::string &timing_note) {
  vm::KernelCache cache(vm::default_cache_root());
  Side sides[2];
  for (int s = 0; s < 2; ++s) {
    auto k = cache.resolve(s == 0 ? a.a_kernel : a.b_kernel, true, "", io.say);
    if (!k) {
      io.say(fmt::format("error: --{}-kernel: {}", s == 0 ? 'a' : 'b', k.error().message));
      return false;
    }
    sides[s] = {*k, fmt::format("{} ({})", s == 0 ? "A" : "B", k->release)};
  }
  const vm::AccelChoice accel = vm::choose_accel(vm::accel_from_name(a.accel));
  io.say(fmt::format("A = {}, B = {}; {}", sides[0].kernel.label(), sides[1].kernel.label(), accel.why));
  if (accel.accel != vm::Accel::Kvm) timing_note = fmt::format("{} (qemu TCG guests)", vm::kEmulatedNote);
  // Every turn is a fresh guest whose own compiles are lost at power-off: compiled here
  // once, each turn reads the objects from the host's cache.
  FileArgs pre = a.in;
  pre.file = a.files[0];
  for (const auto &r : reps) pre.only.push_back(r.label);
  precompile_quietly(pre, &stop.flag());
  char tmpl[] = "/tmp/bpfbench-ab-XXXXXX";
  if (!mkdtemp(tmpl)) {
    io.say("error: cannot create a folder in /tmp for the guests' results");
    return false;
  }
  const fs::path dir = tmpl;
  std::vector<AbPointReport *> points;
  for (auto &r : reps) points.push_back(&r);
  AbTurnLoop loop;
  loop.rule = a.rule;
  loop.stopped = [&stop] { return stop.stop_requested(); };
  loop.run_turn = [&](size_t, AbSide side, const std::vector<size_t> &live) {
    std::vector<std::string> labels;
    for (size_t i : live) labels.push_back(reps[i].label);
    const Side &s = sides[side == AbSide::A ? 0 : 1];
    std::optional<ResultSet> rs = guest_turn(a, io, s, accel, labels, (dir / "turn.json").string(), stop);
    if (!rs) return stop.stop_requested();  // a failed guest ends every point (said above)
    for (size_t i : live)
      if (std::optional<double> v = guest_value(*rs, reps[i], s.name)) reps[i].add_turn(side, *v);
    return true;
  };
  loop.after_turn = [&](size_t turn, AbSide side, const std::vector<size_t> &live, double elapsed) {
    io.say(fmt::format("turn {} ({}) done: {} point{}, {:.0f} s", turn + 1, sides[side == AbSide::A ? 0 : 1].name,
                       live.size(), live.size() == 1 ? "" : "s", elapsed));
  };
  const bool ok = run_abba_turns(points, loop);
  std::error_code ec;
  fs::remove_all(dir, ec);
  if (!timing_note.empty())
    for (auto &r : reps)
      if (r.note.empty()) r.note = vm::kEmulatedNote;  // ratios shown, no verdict
  return ok;
}

}  // namespace bpfbench
