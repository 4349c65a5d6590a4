// `bpfbench emit`: the program of exactly the points asked for, as C (plain, --dump=c) or
// as the kernel holds it once loaded (--dump=xlated|jited); each dump starts with a line
// naming its point. --only keeps just the points it names (a main point's baseline runs
// before it, and used to be the first point emitted, with nothing saying so).
#include <fmt/format.h>

#include <cstdio>
#include <optional>

#include "cli/commands.hpp"
#include "cli/front.hpp"
#include "compiler/bpf/emit_bpf.hpp"
#include "util/escape.hpp"
#include "compiler/pipeline.hpp"
#include "compiler/bdsl/plan_dump.hpp"
#include "runtime/prog_dump.hpp"

namespace bpfbench::cli {

namespace {

bool loaded_kind(const std::string &dump) { return dump == "xlated" || dump == "jited"; }

// `// ==== <unit>: point 3 'x' of bench …` for the first of `points` (plan positions of
// the unit's points shown), and which more of them share the C.
std::string unit_header(const EmitUnit &u, const std::vector<size_t> &points, const RunPlan &plan,
                        const SourceManager &sm) {
  std::string out = fmt::format("// ==== {}: {}", u.virtual_name, point_title(plan.points.at(points.at(0)), sm));
  if (points.size() == 1) return out + "\n";
  constexpr size_t kNamed = 4;
  std::string more;
  for (size_t i = 1; i < points.size() && i <= kNamed; ++i) {
    const PlanPoint &p = plan.points.at(points[i]);
    more += fmt::format("{}{} '{}'", i > 1 ? ", " : "", p.file_index, printable_text(p.label));
  }
  if (points.size() > kNamed + 1) more += ", …";
  return out + fmt::format("\n// (the same C for {} more point{}: {})\n", points.size() - 1,
                           points.size() == 2 ? "" : "s", more);
}

// The unit's points of the bench --bench names (all of them without --bench).
std::vector<size_t> bench_points(const EmitArgs &a, const EmitUnit &u, const RunPlan &plan) {
  std::vector<size_t> out;
  for (size_t i : u.points) {
    const PlanPoint &p = plan.points.at(i);
    if (!a.bench || *a.bench == p.family || *a.bench == std::to_string(p.bench_index)) out.push_back(i);
  }
  return out;
}

// --point N: the position of the file's point N (`bpfbench plan FILE` numbers it), among
// the points --only named when it is given; nullopt after an error message.
std::optional<size_t> point_position(const EmitArgs &a, const RunPlan &plan) {
  std::vector<std::string> named;
  for (const auto &p : plan.points) {
    if (p.file_index == *a.point) return p.index;
    named.push_back(std::to_string(p.file_index));
  }
  if (a.in.only.empty())
    fmt::print(stderr, "bpfbench: error: --point {} is out of range (the plan has {} points)\n", *a.point,
               plan.points.size());
  else
    fmt::print(stderr, "bpfbench: error: --point {} is not one of the points --only names ({})\n", *a.point,
               fmt::join(named, ", "));
  return std::nullopt;
}

// The points a dump shows: --point N, else every point --only named, else the first point
// (said on stderr when the plan has more). Empty after an error message.
std::vector<size_t> dumped_points(const EmitArgs &a, const RunPlan &plan) {
  if (a.point) {
    if (auto at = point_position(a, plan)) return {*at};
    return {};
  }
  if (plan.points.empty()) {
    fmt::print(stderr, "bpfbench: error: {}: the file has no bench\n", a.in.file);
    return {};
  }
  if (!a.in.only.empty()) {
    std::vector<size_t> all(plan.points.size());
    for (size_t i = 0; i < all.size(); ++i) all[i] = i;
    return all;
  }
  if (plan.points.size() > 1)
    fmt::print(stderr, "bpfbench: note: point 0 of {}; choose another with --point INDEX or --only LABEL\n",
               plan.points.size());
  return {0};
}

// --dump xlated|jited: compile, load each point's programs (nothing attached) and print
// bpftool's dump of its program under a line naming the point.
int emit_loaded_dump(const EmitArgs &a, const std::string &kind, Frontend &fe) {
  const std::vector<size_t> points = dumped_points(a, *fe.plan);
  if (points.empty()) return kExitBadInput;
  CompiledPrograms compiled;
  bool ok = compile_programs(fe, compiled);
  print_diagnostics(fe);
  if (!ok || fe.diags.has_errors()) return kExitBadInput;
  for (size_t index : points) {
    const PlanPoint &p = fe.plan->points[index];
    auto obj = compiled.objects.find(p.index);
    Result<std::string> dump = dump_loaded_program(
        p, *fe.families.find(p.family), obj == compiled.objects.end() ? std::vector<uint8_t>{} : obj->second, kind);
    if (!dump) {
      fmt::print(stderr, "bpfbench: error: {}: {}\n", printable_text(p.label), dump.error().message);
      return kExitBadInput;
    }
    fmt::print("// ==== {}\n{}", point_title(p, fe.sources), *dump);
  }
  return kExitOk;
}

// --point N: the C of that point alone.
int emit_one_point(const EmitArgs &a, Frontend &fe) {
  auto at = point_position(a, *fe.plan);
  if (!at) return kExitBadInput;
  const PlanPoint &p = fe.plan->points[*at];
  auto c = emit_point(p, *fe.families.find(p.family), fe.families, fe.sources, fe.diags);
  print_diagnostics(fe);
  if (!c) return kExitBadInput;
  fmt::print("// ==== {}\n{}", point_title(p, fe.sources), *c);
  return kExitOk;
}

// The C of every distinct program of the (selected) points, each under its first point (of
// the --bench: a program several benches share is that bench's too).
int emit_units(const EmitArgs &a, Frontend &fe) {
  const RunPlan &plan = *fe.plan;
  auto units = emit_programs(plan, fe.families, fe.sources, fe.diags);
  print_diagnostics(fe);
  if (fe.diags.has_errors()) return kExitBadInput;
  size_t shown = 0;
  for (const auto &u : units) {
    const std::vector<size_t> points = bench_points(a, u, plan);
    if (points.empty()) continue;
    fmt::print("{}{}\n", unit_header(u, points, plan, fe.sources), u.c_source);
    ++shown;
  }
  if (shown > 0) return kExitOk;
  if (a.bench) fmt::print(stderr, "bpfbench: error: no bench matches --bench {}\n", printable_text(*a.bench));
  else if (plan.points.empty()) fmt::print(stderr, "bpfbench: error: {}: the file has no bench\n", a.in.file);
  else fmt::print(stderr, "bpfbench: error: {}: no point loads a BPF program (nothing to emit)\n", a.in.file);
  return kExitBadInput;
}

}  // namespace

int cmd_emit(const EmitArgs &a) {
  Frontend fe;
  FileArgs in = a.in;
  in.only_exact = true;  // the points named, not their baselines too
  // The program dumps are emit's own, for exactly the points asked for; ast and plan are
  // the front end's (the plan of the selected points).
  const std::string dump = in.dump;
  if (dump == "c" || loaded_kind(dump)) in.dump.clear();
  if (!load_frontend(in, fe)) return kExitBadInput;
  if (loaded_kind(dump)) return emit_loaded_dump(a, dump, fe);
  if (a.point) return emit_one_point(a, fe);
  return emit_units(a, fe);
}

}  // namespace bpfbench::cli
