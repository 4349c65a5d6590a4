// FamilyRegistry: finds family folders under the template dirs and loads their manifests.
#include "compiler/family/manifest.hpp"

#include <sys/stat.h>

#include <algorithm>
#include <filesystem>
#include <tuple>

#include "util/input_file.hpp"
#include "compiler/family/manifest_json.hpp"

namespace bpfbench {

namespace fs = std::filesystem;

bool ParamValue::operator<(const ParamValue &o) const { return std::tie(is_int, i, s) < std::tie(o.is_int, o.i, o.s); }

namespace {

template <typename T>
const T *find_named(const std::vector<T> &v, const std::string &n) {
  auto it = std::find_if(v.begin(), v.end(), [&](const T &x) { return x.name == n; });
  return it == v.end() ? nullptr : &*it;
}

// The family folders of one template dir, sorted so load order (and thus which of two
// same-named families wins) does not depend on the file system. A folder counts when it
// has a `family.json` of any kind: one that is not a regular file is an error when read,
// not a family skipped in silence.
std::vector<fs::path> family_folders(const fs::path &dir) {
  std::vector<fs::path> out;
  std::error_code ec;
  for (fs::directory_iterator it(dir, ec), end; !ec && it != end; it.increment(ec)) {
    std::error_code ec2;
    if (it->is_directory(ec2) && fs::exists(fs::symlink_status(it->path() / "family.json", ec2)))
      out.push_back(it->path());
  }
  std::sort(out.begin(), out.end());
  return out;
}

}  // namespace

const ParamSpec *FamilyManifest::param(const std::string &n) const { return find_named(params, n); }
const ProgramSpec *FamilyManifest::program(const std::string &n) const { return find_named(programs, n); }
const MetricSpec *FamilyManifest::metric(const std::string &n) const { return find_named(metrics, n); }

const MetricSpec *FamilyManifest::throughput_metric() const {
  auto it = std::find_if(metrics.begin(), metrics.end(), is_throughput);
  return it == metrics.end() ? nullptr : &*it;
}

MetricReport report_of(const MetricSpec &m) { return m.reported.value_or(default_report_of(m.source.kind)); }

std::string reported_unit(const MetricSpec &m) { return report_of(m) == MetricReport::AsIs ? m.unit : "M/s"; }

bool higher_is_better(const MetricSpec &m) {
  return m.higher_is_better.value_or(default_higher_is_better(m.name, reported_unit(m)));
}

// The names are the kernel bench's: what its reports and ours have always called them.
bool is_throughput(const MetricSpec &m) { return m.throughput.value_or(m.name == "hits"); }

bool counts_in_total_ops(const MetricSpec &m) { return m.in_total_ops.value_or(m.name == "hits" || m.name == "drops"); }

namespace {

// " (--templates)" for a folder with an origin, "" without.
std::string origin_note(const std::string &origin) { return origin.empty() ? "" : " (" + origin + ")"; }

// `what` (a family, the shared header) is taken from `used`, not from `hidden`: a note
// naming both, as `which -a` would list them.
void note_shadowed(Diagnostics &diags, const std::string &what, const std::string &used, const std::string &used_origin,
                   const std::string &hidden, const std::string &hidden_origin) {
  diags.add(Diagnostic{Severity::Note, SourceRange{},
                       what + " is taken from " + used + origin_note(used_origin) + "; it shadows " + hidden +
                           origin_note(hidden_origin),
                       {},
                       {},
                       {}});
}

}  // namespace

// The shared header of template folder `d` (canonical `root`), when it has one: read
// inside the folder, like the families' files. A header that is there but cannot be
// read so (a FIFO, a symlink leading out) is an error, not a header skipped in silence.
// A folder after the one the header was taken from has its own shadowed: said, not read.
void FamilyRegistry::read_shared_header(const TemplateDir &d, const std::string &root, Diagnostics &diags) {
  fs::path path = fs::path(d.path) / "include" / "bpfbench_shared.h";
  std::error_code ec;
  if (!fs::exists(fs::symlink_status(path, ec))) return;
  if (!include_dir_.empty()) {
    note_shadowed(diags, "the shared header", shared_header_path(), include_origin_,
                  (fs::absolute(path)).lexically_normal().string(), d.origin);
    return;
  }
  auto in = read_input_file_in(root, "include/bpfbench_shared.h", kMaxTextInputBytes);
  if (!in) {
    diags.error(SourceRange{}, path.string() + ": cannot read the shared header: " + in.error().message);
    return;
  }
  include_dir_ = (fs::absolute(fs::path(d.path)) / "include").lexically_normal().string();
  include_origin_ = d.origin;
  shared_header_text_ = std::move(in->data);
}

// The families of one template folder; a name an earlier folder has is shadowed, not read.
void FamilyRegistry::load_dir(const TemplateDir &td, SourceManager &sources, Diagnostics &diags) {
  const std::string &d = td.path;
  std::error_code ec;
  if (!fs::is_directory(d, ec)) {
    // A missing folder may be a stale $BPFBENCH_TEMPLATE_PATH entry: a warning. One
    // that exists but is a file or a device is a mistake worth stopping for.
    struct stat st {};
    if (::stat(d.c_str(), &st) != 0) diags.warning(SourceRange{}, "template dir '" + d + "' does not exist");
    else
      diags.error(SourceRange{}, "template dir '" + d + "' is not a directory (it is " + describe_file_type(st.st_mode) + ")");
    return;
  }
  // Resolved once: every file of the folder is read inside this path (read_input_file_in).
  auto root = canonical_folder(d);
  if (!root) {
    diags.error(SourceRange{}, "template dir '" + d + "': " + root.error().message);
    return;
  }
  read_shared_header(td, *root, diags);
  for (const auto &folder : family_folders(d)) {
    // The family's name is its folder's (the manifest reader insists), so a shadowed one
    // is known without reading it: a broken copy further down the path does not matter.
    std::string name = folder.filename().string();
    std::string here = (fs::absolute(fs::path(d)) / name).lexically_normal().string();  // as FamilyManifest::dir
    if (auto seen = family_dirs_.find(name); seen != family_dirs_.end()) {
      shadowed_.push_back(ShadowedFamily{name, here, td.origin, seen->second.path});
      note_shadowed(diags, "family '" + name + "'", seen->second.path, seen->second.origin, here, td.origin);
      continue;
    }
    family_dirs_[name] = TemplateDir{here, td.origin};
    std::string path = (fs::path(d) / name / "family.json").string();
    auto in = read_input_file_in(*root, name + "/family.json", kMaxTextInputBytes);
    if (!in) {
      diags.error(SourceRange{}, path + ": cannot read the manifest: " + in.error().message);
      continue;
    }
    auto f = parse_manifest(path, in->data, sources, diags, *root);
    if (!f) continue;
    f->origin = td.origin;
    families_.push_back(std::move(*f));
  }
}

FamilyRegistry FamilyRegistry::load(const std::vector<TemplateDir> &dirs, SourceManager &sources, Diagnostics &diags) {
  FamilyRegistry reg;
  for (const auto &d : dirs) reg.load_dir(d, sources, diags);
  return reg;
}

FamilyRegistry FamilyRegistry::load(const std::vector<std::string> &dirs, SourceManager &sources, Diagnostics &diags) {
  std::vector<TemplateDir> with_origin;
  for (const auto &d : dirs) with_origin.push_back(TemplateDir{d, ""});
  return load(with_origin, sources, diags);
}

Result<> check_shared_header(const std::string &dir) {
  auto root = canonical_folder(dir);
  if (!root) return root.error();
  std::error_code ec;
  if (!fs::exists(fs::symlink_status(fs::path(dir) / "include" / "bpfbench_shared.h", ec)))
    return Error("no include/bpfbench_shared.h in it");
  if (auto in = read_input_file_in(*root, "include/bpfbench_shared.h", kMaxTextInputBytes); !in)
    return Error("cannot read include/bpfbench_shared.h: " + in.error().message);
  return {};
}

const FamilyManifest *FamilyRegistry::find(const std::string &name) const { return find_named(families_, name); }

std::vector<std::string> FamilyRegistry::names() const {
  std::vector<std::string> out;
  for (const auto &f : families_) out.push_back(f.name);
  return out;
}

const char *to_string(ParamType t) {
  switch (t) {
  case ParamType::Int: return "int";
  case ParamType::Size: return "size";
  case ParamType::Duration: return "duration";
  case ParamType::Bool: return "bool";
  case ParamType::Enum: return "enum";
  case ParamType::Cpuset: return "cpuset";
  case ParamType::Address: return "address";
  }
  return "?";
}

const char *to_string(ParamDest d) {
  switch (d) {
  case ParamDest::Rodata: return "rodata";
  case ParamDest::MapSize: return "map_size";
  case ParamDest::MapExtra: return "map_extra";
  case ParamDest::Template: return "template";
  case ParamDest::Runtime: return "runtime";
  }
  return "?";
}

}  // namespace bpfbench
