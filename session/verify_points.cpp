#include "session/verify_points.hpp"

#include <algorithm>
#include <filesystem>
#include <map>

#include "runtime/probe.hpp"
#include "runtime/verifier_log.hpp"
#include "session/inputs.hpp"

namespace bpfbench {

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

using PointNames = std::map<size_t, std::pair<std::string, std::string>>;  // verifier id -> label, side

// One refused point: its place, its whole log kept (once per distinct load).
Refusal refusal(const VerifySide &s, const PlanPoint &p, const FamilyManifest &f, const PointCheck &c,
                const PointNames &names, VerifierLogFolder &logs) {
  Refusal r;
  r.point = &p;
  r.check = &c;
  r.where = {source_location(*s.fe, p.bench_range), p.label, s.side, source_path(*s.fe, f, c.complaint.source_file)};
  if (c.same_as) {
    if (auto it = names.find(*c.same_as); it != names.end()) r.same_as = it->second;
    return r;
  }
  if (c.by_verifier()) {
    Result<std::string> path = logs.keep(log_file_stem(p.label, {s.side, c.program}), c.log);
    if (path) r.kept.path = *path;
    else r.kept.error = path.error().message;
  }
  return r;
}

}  // namespace

VerifySide plan_side(const Frontend &fe, const CompiledPrograms &programs) {
  VerifySide s{&fe, &programs, {}, ""};
  for (const auto &p : fe.plan->points) s.points.push_back(&p);
  return s;
}

VerifyTally verify_points(const std::vector<VerifySide> &sides, const StopSource &stop,
                          const std::function<void(const Refusal &)> &refused, const std::string &logs_parent) {
  VerifyTally t;
  FeatureProber prober;
  PointVerifier verifier(prober);
  VerifierLogFolder logs(logs_parent);
  PointNames names;
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
      names[id++] = {p->label, s.side};
      switch (c.status) {
      case PointCheck::Status::Verified: ++t.verified; break;
      case PointCheck::Status::NoPrograms: ++t.no_programs; break;
      case PointCheck::Status::Skipped: ++t.skipped; break;
      case PointCheck::Status::Refused:
        ++t.refused;
        if (refused) refused(refusal(s, *p, f, c, names, logs));
        break;
      }
    }
  return t;
}

}  // namespace bpfbench
