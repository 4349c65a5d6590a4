#include "session/ab_session.hpp"

#include <fmt/format.h>

#include <algorithm>

#include "util/escape.hpp"
#include "compiler/family/manifest.hpp"
#include "compiler/bdsl/param_override.hpp"
#include "session/point_select.hpp"

namespace bpfbench {

namespace {

// SHA-256 of the C the point's program was generated from ("" when it loads none).
std::string program_sha(const AbVariant &v, size_t point) {
  for (const auto &p : v.programs.programs)
    if (std::find(p.points.begin(), p.points.end(), point) != p.points.end()) return p.sha256;
  return "";
}

bool selected(const PlanPoint &p, const std::string &only) {
  return !p.is_baseline && (only.empty() || label_matches(only, p.label));
}

}  // namespace

const std::vector<uint8_t> &AbVariant::object(size_t point) const {
  auto it = programs.objects.find(point);
  return it == programs.objects.end() ? no_object : it->second;
}

std::string ab_variant_name(const std::string &file, const std::vector<std::string> &sets, const char *opt,
                            const std::string &templates) {
  std::string out = file;
  if (!templates.empty()) out += fmt::format(" {}-templates {}", opt, templates);
  for (const auto &s : sets) out += fmt::format(" {} {}", opt, s);
  return out;
}

Result<FileArgs> ab_variant_input(const AbArgs &a, const std::string &file, const std::vector<std::string> &sets,
                                  const char *opt, const std::string &templates) {
  FileArgs in = a.in;
  in.file = file;
  if (!templates.empty()) {
    // The side's families compile against its own include/ (the shipped one is not searched).
    if (auto shared = check_shared_header(templates); !shared) {
      const std::string &why = shared.error().message;
      bool missing = why.starts_with("no include/");
      return Error(fmt::format("{}-templates {}: {}{}", opt, printable_text(templates), printable_text(why),
                               missing ? " (copy bpf_templates/include there with the families)" : ""));
    }
    in.only_template_dirs = {TemplateDir{templates, std::string(opt) + "-templates"}};
  }
  for (const auto &s : sets) {
    ParamOverride o;
    if (std::string why = parse_param_override(s, opt, o); !why.empty()) return Error(why);
    in.overrides.params.push_back(o);
  }
  return in;
}

std::vector<AbMatchedPoint> match_ab_points(const AbVariant &va, const AbVariant &vb, bool same_file,
                                            const std::string &only, AbReport &rep) {
  const auto &all_a = va.fe->plan->points, &all_b = vb.fe->plan->points;
  std::vector<AbMatchedPoint> out;
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

std::vector<std::string> same_program_points(const AbVariant &va, const AbVariant &vb,
                                             const std::vector<AbMatchedPoint> &matched) {
  std::vector<std::string> out;
  for (const auto &m : matched)
    if (program_sha(va, m.a->index) == program_sha(vb, m.b->index)) out.push_back(point_name({m.a->suite, m.a->label}));
  return out;
}

std::vector<VerifySide> ab_verify_sides(const AbVariant &va, const AbVariant &vb,
                                        const std::vector<AbMatchedPoint> &matched, bool control) {
  VerifySide sa{va.fe.get(), &va.programs, {}, "A"}, sb{vb.fe.get(), &vb.programs, {}, "B"};
  for (const auto &m : matched) {
    sa.points.push_back(m.a);
    sb.points.push_back(m.b);
  }
  if (control) return {sa};
  return {sa, sb};
}

double ab_user_floor(const AbArgs &a, const AbFloors &floors, const AbPointKey &k) {
  return std::max(a.threshold_pct, floors ? floor_for(*floors, k) : 0.0);
}

AbReport ab_report_head(const AbArgs &a, const AbVariant &va, const AbVariant &vb) {
  AbReport rep;
  rep.a = va.name;
  rep.b = vb.name;
  rep.control = a.control;
  rep.rule = a.rule;
  rep.turn_value = a.turn_value;
  return rep;
}

AbRunOptions ab_run_options(const AbArgs &a, FeatureProber &prober) {
  AbRunOptions o;
  o.method = a.method;
  o.interleave = a.interleave;
  o.interleave.rule.precision_pct = a.rule.precision_pct;
  if (a.rule.max_time_s > 0) o.interleave.rule.max_time_s = a.rule.max_time_s;
  o.turns = a.rule;
  o.turn_value = a.turn_value;
  o.run.verbose = a.verbose;
  o.run.prober = &prober;
  return o;
}

void run_ab_points(const AbVariant &va, const AbVariant &vb, const std::vector<AbMatchedPoint> &matched,
                   const AbArgs &a, const AbFloors &floors, const AbRunOptions &o, StopSource &stop, AbReport &rep) {
  for (size_t i = 0; i < matched.size() && !stop.stop_requested(); ++i) {
    const AbMatchedPoint &m = matched[i];
    AbSideInput sa{m.a, &*va.fe->families.find(m.a->family), &va.object(m.a->index)};
    AbSideInput sb{m.b, &*vb.fe->families.find(m.b->family), &vb.object(m.b->index)};
    rep.points.push_back(
        run_ab_point(sa, sb, o, ab_user_floor(a, floors, {m.a->suite, m.a->label}), i, matched.size(), stop));
  }
}

AbReport ab_kernels_report(const AbArgs &a, const AbVariant &va) {
  AbReport rep;
  rep.a = a.files[0] + " --a-kernel " + a.a_kernel;
  rep.b = a.files[0] + " --b-kernel " + a.b_kernel;
  rep.rule = a.rule;
  for (const auto &m : match_ab_points(va, va, true, a.only, rep)) {
    AbPointReport p;
    p.suite = m.a->suite;
    p.label = m.a->label;
    p.method_note = "two kernels: each side's turns run in a guest of its own";
    rep.points.push_back(std::move(p));
  }
  return rep;
}

void judge_ab_points(const AbArgs &a, const AbFloors &floors, AbReport &rep) {
  for (auto &p : rep.points) {
    p.floor_pct = ab_user_floor(a, floors, {p.suite, p.label});
    p.judge();
  }
}

AbTally ab_tally(const AbReport &rep) {
  AbTally t;
  for (const auto &p : rep.points) {
    t.failed += p.note.rfind("failed", 0) == 0;
    t.no_ratio += p.stop == AbStop::NoRatio;
  }
  return t;
}

}  // namespace bpfbench
