// family.json -> FamilyManifest. Strict on purpose: an unknown key is an error, because a
// typo ("defualt") silently ignored would change what a benchmark measures.
#include "compiler/family/manifest_json.hpp"

#include <algorithm>
#include <filesystem>
#include <map>
#include <utility>

#include <nlohmann/json.hpp>

#include "compiler/family/constraints.hpp"
#include "util/input_file.hpp"
#include "compiler/family/json_locations.hpp"
#include "util/json_input.hpp"
#include "compiler/family/manifest_fields.hpp"
#include "compiler/family/manifest_hooks.hpp"
#include "compiler/family/manifest_params.hpp"
#include "compiler/family/enum_choices.hpp"
#include "compiler/family/self_checks.hpp"
#include "compiler/family/setup_spec.hpp"

namespace bpfbench {
namespace {

namespace fs = std::filesystem;
using json = nlohmann::json;
using Names = ManifestFields::Names;

const Names kFeatureKinds = {"prog_type", "attach", "helper", "kfunc"};

std::string join(const Names &v, const char *last = " or ") { return join_names(v, last); }

bool contains(const Names &v, const std::string &s) { return std::find(v.begin(), v.end(), s) != v.end(); }

class ManifestReader : public ManifestFields {
 public:
  // `folder`: the canonical template folder the family's files are read inside.
  ManifestReader(std::string path, uint32_t file, Diagnostics &diags, std::string folder)
      : ManifestFields(std::move(path), file, diags),
        folder_(std::move(folder)) {}

  std::optional<FamilyManifest> read(const std::string &text) {
    // Comments are allowed: a manifest is documentation as much as data. Bounded: a family
    // folder may come from anyone (util/json_input.hpp).
    JsonError bad;
    std::optional<json> parsed = parse_json(text, bad, true);
    if (!parsed) {
      bad_json(text, bad);
      return std::nullopt;
    }
    const json &root = *parsed;  // const: a lookup must never insert
    locate(text, root);
    FamilyManifest f;
    f.manifest_path = path();
    f.manifest_text = text;
    if (!root.is_object()) {
      error(at(root), "", std::string("the manifest must be a JSON object, got ") + root.type_name());
      return std::nullopt;
    }
    if (!keys(root, "",
              {"family", "description", "template", "producer", "consumer", "default_program", "params", "programs",
               "metrics", "report", "setup", "per_cpu", "constraints", "hooks", "self_checks"},
              {"family", "description", "template", "programs"}))
      return std::nullopt;
    get_string(root, "family", "", f.name);
    get_string(root, "description", "", f.description);
    std::string tpl;
    get_string(root, "template", "", tpl);
    get_kind(root, "producer", "", "producer", f.producer);
    get_kind(root, "consumer", "", "consumer", f.consumer);
    if (!ok()) return std::nullopt;

    fs::path dir = fs::absolute(fs::path(path())).lexically_normal().parent_path();
    f.dir = dir.string();
    if (!is_name(f.name)) error(at(root["family"]), "", "bad family name '" + f.name + "' (letters, digits, '_', '-')");
    else if (f.name != dir.filename().string())
      error(at(root["family"]), "",
            "family '" + f.name + "' must be in a folder of the same name, not '" + dir.filename().string() + "'");
    read_template(dir, tpl, root["template"], f);

    read_entries(root, f);
    if (root.contains("programs") && root["programs"].is_array() && root["programs"].empty())
      error(at(root["programs"]), "", "'programs' must list at least one program");
    check_metrics(root, f);
    check_family_refs(root, f);
    read_self_checks(*this, root, f);  // after programs, metrics and hooks: a check names them
    read_constraints(root, f);
    if (!ok()) return std::nullopt;
    return f;
  }

 private:
  // The params, setup, per_cpu, hooks, metrics and programs, in the order each needs
  // the ones before; with the object refs (counter and map names) each of them holds.
  void read_entries(const json &root, FamilyManifest &f) {
    read_array(root, "params", "", [&](const json &j, const std::string &where) {
      ParamSpec p;
      if (!read_param(*this, j, where, p)) return;
      if (p.dest == ParamDest::MapSize || p.dest == ParamDest::MapExtra)
        add_ref(f, ObjectRef::Kind::Map, j["map"], 0, where);
      add_unique(f.params, std::move(p), "param", j);
    });
    if (root.contains("params")) read_param_presets(*this, root["params"], f);  // presets name other params
    read_setup(root, "", f, f.setup);
    if (root.contains("per_cpu")) {
      std::vector<ManifestProblem> errs;
      read_per_cpu(root["per_cpu"], f.per_cpu, errs);
      report("", errs);
      if (f.per_cpu.enabled())
        for (const char *key : {"ops", "ns"}) add_ref(f, ObjectRef::Kind::Counter, root["per_cpu"][key], 0, "per_cpu");
    }
    if (root.contains("hooks")) {  // after read_template: each hook must be used there
      std::vector<ManifestProblem> errs;
      read_hooks(root["hooks"], f, errs);
      report("", errs);
    }
    read_array(root, "metrics", "", [&](const json &j, const std::string &where) {
      MetricSpec m;
      if (!read_metric(j, where, m)) return;
      add_source_ref(f, m.source, j["source"], where, "", m.name);
      add_unique(f.metrics, std::move(m), "metric", j);
    });
    read_array(root, "programs", "", [&](const json &j, const std::string &where) {
      ProgramSpec p;
      if (!read_program(j, where, f, p)) return;
      add_setup_refs(j, where, p.name, f);
      for (const auto &[metric, src] : p.metric_sources)
        add_source_ref(f, src, j["metric_sources"][metric], where, p.name, metric);
      add_unique(f.programs, std::move(p), "program", j);
    });
    add_setup_refs(root, "", "", f);
  }

  // Constraints name params, programs and builtins: read after all of them.
  void read_constraints(const json &root, FamilyManifest &f) {
    read_array(root, "constraints", "", [&](const json &j, const std::string &where) {
      ConstraintSpec c;
      if (!keys(j, where, {"when", "require", "message"}, {"require", "message"})) return;
      if (!get_string(j, "when", where, c.when) || !get_string(j, "require", where, c.require) ||
          !get_string(j, "message", where, c.message))
        return;
      // The names exist and the literals fit (params and programs are read).
      if (auto when = parse_condition(c.when, f); !when) error(at(j["when"]), where, when.error().message);
      else if (auto req = parse_condition(c.require, f); !req) error(at(j["require"]), where, req.error().message);
      else f.constraints.push_back(std::move(c));
    });
  }

  // Problems of a block reader, each at its node.
  void report(const std::string &where, const std::vector<ManifestProblem> &errs) {
    for (const auto &e : errs) {
      SourceRange r = !e.at ? SourceRange{} : e.key.empty() ? at(*e.at) : at_key(*e.at, e.key);
      error(r, where, e.message);
    }
  }

  // `setup` of the family or of one program (compiler/family/setup_spec.cpp checks each action).
  void read_setup(const json &obj, const std::string &where, const FamilyManifest &f,
                  std::vector<SetupActionSpec> &out) {
    if (!obj.contains("setup")) return;
    std::vector<ManifestProblem> errs;
    read_setup_actions(obj["setup"], f, out, errs);
    report(where, errs);
  }

  void bad_json(const std::string &text, const JsonError &e) {
    LocatedJsonError at = locate_json_error(text, e, file());
    error(at.range, "", at.message);
  }

  template <typename T>
  void add_unique(std::vector<T> &v, T x, const char *noun, const json &at_node) {
    for (const auto &y : v)
      if (y.name == x.name) {
        error(at_key(at_node, "name"), "", std::string("duplicate ") + noun + " '" + x.name + "'");
        return;
      }
    v.push_back(std::move(x));
  }

  // The template, inside the family's folder: the name as written is relative and has no
  // `..`; a symlink may lead to another file of the template folder, never out of it.
  void read_template(const fs::path &dir, const std::string &tpl, const json &node, FamilyManifest &f) {
    if (tpl.empty()) {
      error(at(node), "", "'template' must name the BPF C template file");
      return;
    }
    if (auto ok = check_inside_name(tpl); !ok) {
      error(at(node), "",
            "'template' must name a file inside the family's folder: '" + tpl + "' " + ok.error().message);
      return;
    }
    fs::path p = (dir / tpl).lexically_normal();
    auto in = read_input_file_in(folder_, dir.filename().string() + "/" + tpl, kMaxTextInputBytes);
    if (!in) {
      error(at(node), "", "cannot read template '" + p.string() + "': " + in.error().message);
      return;
    }
    f.template_path = p.string();
    f.template_text = std::move(in->data);
  }

  // A `calibrate_batch` setup action (the family's or the program's own) sizes the batches
  // the program times: a program that times none cannot have one.
  bool check_calibrate_batch(const json &j, const std::string &where, const FamilyManifest &f, const ProgramSpec &p) {
    auto calibrates = [](const std::vector<SetupActionSpec> &v) {
      return std::any_of(v.begin(), v.end(), [](const auto &a) { return a.action == SetupActionKind::CalibrateBatch; });
    };
    if (p.batch_timing || (!calibrates(f.setup) && !calibrates(p.setup))) return true;
    error(at(j), where,
          "setup action 'calibrate_batch' applies to program '" + p.name +
              "', which times no batches (set \"batch_timing\": true, or move the action into the setup of the "
              "programs that do)");
    return false;
  }

  bool read_program(const json &j, const std::string &where, const FamilyManifest &f, ProgramSpec &p) {
    if (!keys(j, where,
              {"name", "section", "function", "attach", "target", "producer", "consumer", "extra_programs", "requires",
               "metric_sources", "setup", "batch_timing", "doc"},
              {"name"}))
      return false;
    bool good = get_string(j, "name", where, p.name) && get_string(j, "section", where, p.section) &&
                get_string(j, "function", where, p.function) && get_kind(j, "attach", where, "attach", p.attach) &&
                get_string(j, "target", where, p.target) &&
                get_optional_kind(j, "producer", where, "producer", p.producer) &&
                get_optional_kind(j, "consumer", where, "consumer", p.consumer) &&
                get_string_list(j, "extra_programs", where, p.extra_programs) &&
                get_string_list(j, "requires", where, p.requires_features) && get_string(j, "doc", where, p.doc) &&
                get_bool(j, "batch_timing", where, p.batch_timing);
    if (!good) return false;
    read_setup(j, where, f, p.setup);
    if (!is_name(p.name)) {
      error(at(j["name"]), where, "bad program name '" + p.name + "' (letters, digits, '_', '-')");
      return false;
    }
    const std::string attach = kind_name(p.attach);
    if (p.attach != AttachKind::None && (p.function.empty() || p.section.empty())) {
      error(j.contains("attach") ? at(j["attach"]) : at(j), where,
            "attach '" + attach + "' needs both 'function' and 'section'");
      good = false;
    }
    if (attach_needs_target(p.attach) && p.target.empty()) {
      error(at(j["attach"]), where,
            "attach '" + attach + "' needs a 'target' " +
                (p.attach == AttachKind::Usdt ? "provider:name" : "function"));
      good = false;
    }
    good = check_functions(j, where, f, p) && good;
    good = check_calibrate_batch(j, where, f, p) && good;
    if (j.contains("requires"))
      for (const auto &req : p.requires_features) {
        size_t colon = req.find(':');
        if (colon == std::string::npos || colon + 1 == req.size() || !contains(kFeatureKinds, req.substr(0, colon))) {
          error(at(j["requires"]), where,
                "bad requirement '" + req + "' (expected <kind>:<name>, kind one of " + join(kFeatureKinds) + ")");
          good = false;
        }
      }
    if (j.contains("metric_sources")) {
      const json &ms = j["metric_sources"];
      bool strings = ms.is_object();
      if (strings)
        for (const auto &item : ms.items()) strings = strings && item.value().is_string();
      if (!strings) {
        wrong_type(where, "metric_sources", "an object of strings", ms);
        return false;
      }
      for (const auto &item : ms.items())
        if (auto src = read_source(item.value(), where)) p.metric_sources[item.key()] = *src;
      program_nodes_[p.name] = &j;
    }
    return good;
  }

  // Unset stays unset: the program then takes the family's kind.
  template <typename Kind>
  bool get_optional_kind(const json &obj, const std::string &key, const std::string &where, const std::string &noun,
                         std::optional<Kind> &out) {
    if (!obj.contains(key)) return true;
    Kind k{};
    if (!get_kind(obj, key, where, noun, k)) return false;
    out = k;
    return true;
  }

  bool check_functions(const json &j, const std::string &where, const FamilyManifest &f, const ProgramSpec &p) {
    bool good = true;
    Names funcs = p.extra_programs;
    if (!p.function.empty()) funcs.insert(funcs.begin(), p.function);
    for (const auto &fn : funcs) {
      const json &node = fn == p.function && j.contains("function") ? j["function"] : j["extra_programs"];
      if (!is_identifier(fn)) {
        error(at(node), where, "bad function name '" + fn + "'");
        good = false;
      } else if (!f.template_path.empty() && !template_defines_function(f.template_text, fn)) {
        error(at(node), where, "function '" + fn + "' is not defined in template " + f.template_path);
        good = false;
      }
    }
    return good;
  }

  // The shape of a source, at once; ratio operands are checked once every metric is read.
  std::optional<MetricSource> read_source(const json &v, const std::string &where) {
    auto src = parse_metric_source(v.get<std::string>());
    if (src) return *src;
    error(at(v), where, src.error().message);
    return std::nullopt;
  }

  bool read_metric(const json &j, const std::string &where, MetricSpec &m) {
    if (!keys(j, where, {"name", "source", "unit", "doc", "reported", "better", "throughput", "total_ops"},
              {"name", "source"}))
      return false;
    std::string reported, better;
    bool throughput = false, total = false;
    bool good = get_string(j, "name", where, m.name) && get_string(j, "unit", where, m.unit) &&
                get_string(j, "doc", where, m.doc) &&
                get_enum(j, "reported", where, "report mode", {"rate", "as_is"}, reported) &&
                get_enum(j, "better", where, "direction", {"higher", "lower"}, better) &&
                get_bool(j, "throughput", where, throughput) && get_bool(j, "total_ops", where, total);
    std::string src;
    if (!good || !get_string(j, "source", where, src)) return false;
    if (!is_identifier(m.name)) {
      error(at(j["name"]), where, "bad metric name '" + m.name + "'");
      return false;
    }
    auto source = read_source(j["source"], where);
    if (!source) return false;
    m.source = *source;
    if (!reported.empty()) m.reported = reported == "rate" ? MetricReport::Rate : MetricReport::AsIs;
    if (m.source.kind == MetricSourceKind::Ratio && report_of(m) == MetricReport::Rate) {
      error(at(j["reported"]), where, "a ratio is reported as it is, not as a rate");
      return false;
    }
    if (!better.empty()) m.higher_is_better = better == "higher";
    if (j.contains("throughput")) m.throughput = throughput;
    if (j.contains("total_ops")) m.in_total_ops = total;
    if (is_level_source(m.source.kind)) return check_level_metric(j, where, m);
    metric_nodes_[m.name] = &j;
    return true;
  }

  // A level (cgroup memory, a batch timing statistic) is a state, not a count: never a
  // rate, a throughput or part of total_ops; a memory level's unit says how many bytes one
  // unit is.
  bool check_level_metric(const json &j, const std::string &where, MetricSpec &m) {
    const std::string noun =
        m.source.kind == MetricSourceKind::CgroupMemory ? "a memory level" : "a batch timing statistic";
    std::string why;
    const char *key = "source";
    if (report_of(m) == MetricReport::Rate) why = noun + " is reported as it is, not as a rate", key = "reported";
    else if (m.throughput.value_or(false)) why = noun + " cannot be the throughput", key = "throughput";
    else if (m.in_total_ops.value_or(false)) why = noun + " does not count in total_ops", key = "total_ops";
    else if (level_unit_scale(m.source.kind, m.unit) == 0)
      why = "the unit of a memory level is one of B, KiB, MiB, GiB", key = "unit";
    if (why.empty()) {
      metric_nodes_[m.name] = &j;
      return true;
    }
    error(at(j.contains(key) ? j[key] : j["source"]), where, why + " (metric '" + m.name + "')");
    return false;
  }

  void check_ratio(const MetricSource &src, const json &node, const std::string &where, const FamilyManifest &f) {
    if (src.kind != MetricSourceKind::Ratio) return;
    for (const auto &n : {src.operand, src.denominator})
      if (!f.metric(n)) error(at(node), where, "source '" + src.text() + "' names unknown metric '" + n + "'");
  }

  // A sum adds counts: each term is a metric of the family whose source, for every
  // program (`prog`: one program's overrides; nullptr: the family's sources), is a count.
  // `overrides_only`: a family sum seen from `prog`, where only its overrides are news.
  void check_sum(const MetricSource &src, const json &node, const std::string &where, const FamilyManifest &f,
                 const ProgramSpec *prog, bool overrides_only = false) {
    if (src.kind != MetricSourceKind::Sum) return;
    Names metrics;
    for (const auto &m : f.metrics) metrics.push_back(m.name);
    size_t offset = std::string(kind_name(src.kind)).size() + 1;  // of the term in the string
    for (const auto &t : src.terms) {
      const SourceRange term_at = inside(node, offset, t.size());
      offset += t.size() + 1;
      const MetricSpec *m = f.metric(t);
      if (!m) {
        if (overrides_only) continue;
        std::string close = did_you_mean(t, metrics);
        error(term_at, where, "source '" + src.text() + "' names unknown metric '" + t + "'",
              close.empty() ? Names{} : Names{"did you mean '" + close + "'?"});
        continue;
      }
      auto over = prog ? prog->metric_sources.find(t) : std::map<std::string, MetricSource>::const_iterator{};
      const bool overridden = prog && over != prog->metric_sources.end();
      MetricSourceKind k = overridden ? over->second.kind : m->source.kind;
      if ((overrides_only && !overridden) || k == MetricSourceKind::Counter || k == MetricSourceKind::Producer ||
          k == MetricSourceKind::Consumer)
        continue;
      error(term_at, where,
            "source '" + src.text() + "' adds metric '" + t + "', whose source is " + kind_name(k) +
                (overridden ? " in program '" + prog->name + "'" : "") +
                ": a sum adds counts (counter, producer or consumer metrics)");
    }
  }

  void check_metrics(const json &root, FamilyManifest &f) {
    for (const auto &m : f.metrics) {
      const json &node = (*metric_nodes_.at(m.name))["source"];
      check_ratio(m.source, node, "metric '" + m.name + "'", f);
      check_sum(m.source, node, "metric '" + m.name + "'", f, nullptr);
      // A program that overrides a term (and not the sum itself) must keep it a count.
      for (const auto &p : f.programs)
        if (m.source.kind == MetricSourceKind::Sum && !p.metric_sources.empty() && !p.metric_sources.count(m.name))
          check_sum(m.source, node, "metric '" + m.name + "'", f, &p, true);
    }
    for (const auto &p : f.programs)
      for (const auto &[metric, src] : p.metric_sources) {
        std::string where = "program '" + p.name + "'";
        const json &ms = (*program_nodes_.at(p.name))["metric_sources"];
        if (!f.metric(metric)) {
          error(at_key(ms, metric), where, "metric_sources names unknown metric '" + metric + "'");
          continue;
        }
        check_ratio(src, ms[metric], where, f);
        check_sum(src, ms[metric], where, f, &p);
      }
    check_throughput(root, f);
  }

  // One metric may say `"throughput": true`; the others then are not (whatever their name).
  void check_throughput(const json &root, FamilyManifest &f) {
    const MetricSpec *chosen = nullptr;
    for (const auto &m : f.metrics)
      if (m.throughput == true) {
        if (chosen) {
          error(at((*metric_nodes_.at(m.name))["throughput"]), "metric '" + m.name + "'",
                "metric '" + chosen->name + "' is the throughput metric already");
          return;
        }
        chosen = &m;
      }
    (void)root;
    if (chosen)
      for (auto &m : f.metrics)
        if (!m.throughput) m.throughput = false;
  }

  void check_family_refs(const json &root, FamilyManifest &f) {
    Names programs, metrics;
    for (const auto &p : f.programs) programs.push_back(p.name);
    for (const auto &m : f.metrics) metrics.push_back(m.name);
    if (get_string(root, "default_program", "", f.default_program)) {
      if (f.default_program.empty() && !programs.empty()) f.default_program = programs.front();
      else if (!f.default_program.empty() && !contains(programs, f.default_program))
        error(at(root["default_program"]), "",
              "default_program '" + f.default_program + "' is not one of its programs (" + join(programs, ", ") + ")");
    }
    if (!root.contains("report")) {
      f.default_report = metrics;
    } else if (get_string_list(root, "report", "", f.default_report)) {
      for (const auto &r : f.default_report)
        if (!contains(metrics, r)) error(at(root["report"]), "", "report names unknown metric '" + r + "'");
    }
  }

  // Where the entries are, for checks that run after all of them are read.
  std::map<std::string, const json *> metric_nodes_, program_nodes_;
  std::string folder_;
};

}  // namespace

std::optional<FamilyManifest> parse_manifest(const std::string &path, const std::string &text, SourceManager &sources,
                                             Diagnostics &diags, const std::string &folder) {
  const size_t before = diags.all().size();
  const uint32_t file = static_cast<uint32_t>(sources.size());
  std::optional<FamilyManifest> f;
  std::string root = folder;
  if (root.empty())  // <template folder>/<family>/family.json
    if (auto c = canonical_folder(fs::absolute(path).lexically_normal().parent_path().parent_path())) root = *c;
  try {
    f = ManifestReader(path, file, diags, root).read(text);
  } catch (const std::exception &e) {
    // Belt and braces: a json accessor we did not guard must not take the tool down.
    diags.error(SourceRange{}, path + ": cannot read manifest: " + e.what());
    f.reset();
  }
  // The ranges name `file`: the manifest goes into `sources` if anything points into it.
  if (diags.all().size() > before) sources.add(path, text);
  return f;
}

}  // namespace bpfbench
