// Builds the family search path. A user's folder comes first, so a patched copy of a
// shipped family runs under its own name; FamilyRegistry::load notes every family (and
// shared header) it shadows, so it never replaces one in silence.
#include "compiler/family/template_path.hpp"

#include <cstdlib>
#include <filesystem>

#include "compiler/family/manifest.hpp"

namespace bpfbench {

namespace fs = std::filesystem;

namespace {

std::string canonical(const std::string &p) {
  std::error_code ec;
  fs::path c = fs::weakly_canonical(fs::path(p), ec);
  return ec ? fs::path(p).lexically_normal().string() : c.string();
}

void add(std::vector<TemplateDir> &out, const std::string &path, const std::string &origin) {
  std::string key = canonical(path);
  for (const auto &d : out)
    if (canonical(d.path) == key) return;
  out.push_back(TemplateDir{path, origin});
}

std::vector<std::string> env_dirs() {
  std::vector<std::string> out;
  const char *env = std::getenv("BPFBENCH_TEMPLATE_PATH");
  if (!env) return out;
  std::string s = env;
  for (size_t start = 0; start <= s.size();) {
    size_t colon = s.find(':', start);
    if (colon == std::string::npos) colon = s.size();
    if (colon > start) out.push_back(s.substr(start, colon - start));
    start = colon + 1;
  }
  return out;
}

}  // namespace

std::string shipped_template_dir(const std::string &exe_path) {
  if (exe_path.empty()) return "";
  fs::path bin = fs::path(exe_path).parent_path();
  fs::path installed = bin.parent_path() / "share" / "bpfbench" / "templates";
  std::error_code ec;
  for (const fs::path &p : {installed, bin / "bpf_templates"})
    if (fs::is_directory(p, ec)) return canonical(p.string());
  // Neither: name the installed place, so `list` warns where the families were expected.
  return installed.lexically_normal().string();
}

std::string running_binary() {
  std::error_code ec;
  fs::path p = fs::read_symlink("/proc/self/exe", ec);
  return ec ? "" : p.string();
}

std::vector<TemplateDir> template_search_path(const std::vector<std::string> &cli_dirs, const std::string &bdsl_file) {
  std::vector<TemplateDir> out;
  for (const auto &d : cli_dirs) add(out, d, "--templates");
  if (!bdsl_file.empty()) {
    fs::path next = fs::path(bdsl_file).parent_path() / "bpf_templates";
    std::error_code ec;
    if (fs::is_directory(next, ec)) add(out, next.lexically_normal().string(), "next to " + bdsl_file);
  }
  for (const auto &d : env_dirs()) add(out, d, "BPFBENCH_TEMPLATE_PATH");
  if (std::string shipped = shipped_template_dir(running_binary()); !shipped.empty()) add(out, shipped, "shipped");
  return out;
}

std::vector<TemplateDir> shipped_template_path() {
  std::vector<TemplateDir> out;
  if (std::string shipped = shipped_template_dir(running_binary()); !shipped.empty()) add(out, shipped, "shipped");
  return out;
}

std::vector<std::string> default_template_dirs() {
  std::vector<std::string> out;
  for (const auto &d : template_search_path({}, "")) out.push_back(d.path);
  return out;
}

}  // namespace bpfbench
