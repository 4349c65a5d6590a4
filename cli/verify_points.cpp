#include "cli/verify_points.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cstdio>
#include <filesystem>
#include <map>

#include "cli/commands.hpp"
#include "cli/front.hpp"
#include "compiler/escape.hpp"
#include "runtime/probe.hpp"
#include "runtime/verify_point.hpp"

namespace bpfbench::cli {

namespace {

// The kernel names a source line's file by its base name only: the path of the one file
// of the point's (its .bdsl and includes, its family's template) with that name, else the
// name as the kernel gave it.
std::string source_path(const Frontend &fe, const FamilyManifest &f, const std::string &base) {
  if (base.empty()) return base;
  std::vector<std::string> found;
  auto consider = [&](const std::string &path) {
    if (std::filesystem::path(path).filename() == base && std::find(found.begin(), found.end(), path) == found.end())
      found.push_back(path);
  };
  for (size_t i = 0; i < fe.sources.size(); ++i) consider(fe.sources.file(static_cast<uint32_t>(i)).path);
  consider(f.template_path);
  return found.size() == 1 ? found.front() : base;
}

const char *points_plural(size_t n) { return n == 1 ? "" : "s"; }

// "bench 'label'", "bench 'label' in B".
std::string bench_name(const std::string &label, const std::string &side) {
  return fmt::format("bench '{}'{}", printable_text(label), side.empty() ? "" : " in " + printable_text(side));
}

// Prints one refused point: its lines, its whole log kept (once per distinct load).
void report_refusal(const VerifySide &s, const PlanPoint &p, const FamilyManifest &f, const PointCheck &c,
                    const std::map<size_t, std::string> &names, VerifierLogFolder &logs) {
  RefusalPlace where{source_location(*s.fe, p.bench_range), p.label, s.side,
                     source_path(*s.fe, f, c.complaint.source_file)};
  if (c.same_as) {
    auto it = names.find(*c.same_as);
    fmt::print(stderr, "{}: error: {}: refused as {} above (the same program and settings)\n", where.location,
               bench_name(p.label, s.side), it == names.end() ? std::string("another bench") : it->second);
    return;
  }
  KeptLog kept;
  if (c.by_verifier()) {
    Result<std::string> path = logs.keep(log_file_stem(p.label, {s.side, c.program}), c.log);
    if (path) kept.path = *path;
    else kept.error = path.error().message;
  }
  fmt::print(stderr, "{}", format_refusal(where, c, kept));
}

}  // namespace

VerifySide plan_side(const Frontend &fe, const CompiledPrograms &programs) {
  VerifySide s{&fe, &programs, {}, ""};
  for (const auto &p : fe.plan->points) s.points.push_back(&p);
  return s;
}

VerifyTally verify_points(const std::vector<VerifySide> &sides, const StopSource &stop) {
  VerifyTally t;
  FeatureProber prober;
  PointVerifier verifier(prober);
  VerifierLogFolder logs;
  std::map<size_t, std::string> names;  // verifier id -> "bench 'label'[ in B]"
  size_t id = 0;
  const std::vector<uint8_t> none;  // the object of a point that loads no program
  for (const VerifySide &s : sides)
    for (const PlanPoint *p : s.points) {
      if (stop.stop_requested()) {
        t.interrupted = true;
        return t;
      }
      const FamilyManifest &f = *s.fe->families.find(p->family);
      auto obj = s.programs->objects.find(p->index);
      PointCheck c = verifier.check(id, *p, f, obj == s.programs->objects.end() ? none : obj->second);
      names[id++] = bench_name(p->label, s.side);
      switch (c.status) {
      case PointCheck::Status::Verified: ++t.verified; break;
      case PointCheck::Status::NoPrograms: ++t.no_programs; break;
      case PointCheck::Status::Skipped: ++t.skipped; break;
      case PointCheck::Status::Refused:
        ++t.refused;
        report_refusal(s, *p, f, c, names, logs);
        break;
      }
    }
  return t;
}

std::string tally_text(const VerifyTally &t) {
  std::string out = fmt::format("{} point{} verified", t.verified, points_plural(t.verified));
  if (t.skipped)
    out += fmt::format(", {} not loaded (a kernel feature {} is missing here)", t.skipped,
                       t.skipped == 1 ? "it requires" : "they require");
  if (t.no_programs) out += fmt::format(", {} load{} no BPF program", t.no_programs, t.no_programs == 1 ? "s" : "");
  return out;
}

std::optional<int> verify_before_measuring(const std::vector<VerifySide> &sides, const StopSource &stop) {
  VerifyTally t = verify_points(sides, stop);
  // A stop goes the command's own way: `run` still writes its (empty) results files, `ab`
  // its report, and both exit with the signal's code.
  if (t.interrupted || t.refused == 0) return std::nullopt;
  fmt::print(stderr, "bpfbench: {} point{} refused before anything was measured ({})\n", t.refused,
             points_plural(t.refused), tally_text(t));
  return kExitBadInput;
}

}  // namespace bpfbench::cli
