#include "compiler/pipeline.hpp"

#include <sys/stat.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <filesystem>
#include <set>

#include "compiler/clang_compile.hpp"
#include "compiler/compile_diags.hpp"
#include "compiler/emit_bpf.hpp"
#include "compiler/input_file.hpp"
#include "compiler/object_check.hpp"
#include "compiler/parse.hpp"
#include "compiler/sha256.hpp"
#include "compiler/template_path.hpp"
#include "compiler/user_includes.hpp"
#include "compiler/vmlinux_pch.hpp"

namespace bpfbench {

namespace {

// The stages after parsing, shared by both entry points.
bool check_and_lower(const std::string &path, const FrontendOptions &opts, Frontend &fe) {
  if (!fe.ast || fe.diags.has_errors()) return false;
  fe.checked = check(*fe.ast, fe.families, opts.nproc > 0 ? opts.nproc : online_cpus(), fe.diags);
  if (!fe.checked) return false;
  fe.plan = lower(*fe.checked, path, opts.overrides, fe.diags);
  if (!fe.plan) return false;
  if (!opts.allow_large)
    check_resource_limits(*fe.plan, fe.families, opts.limits ? *opts.limits : read_machine_limits(), fe.diags);
  return !fe.diags.has_errors();
}

// An --include-dir that is missing or not a folder is an error: a header the user meant
// to be found would otherwise fail later as "file not found" at some #include.
void check_include_dirs(const FrontendOptions &opts, Frontend &fe) {
  for (const auto &d : opts.include_dirs) {
    struct stat st {};
    if (::stat(d.c_str(), &st) != 0)
      fe.diags.error(SourceRange{}, "--include-dir '" + d + "': " + std::strerror(errno));
    else if (!S_ISDIR(st.st_mode))
      fe.diags.error(SourceRange{},
                     "--include-dir '" + d + "' is not a directory (it is " + describe_file_type(st.st_mode) + ")");
  }
  fe.include_dirs = opts.include_dirs;
}

bool load_families(const std::string &path, const FrontendOptions &opts, Frontend &fe) {
  check_include_dirs(opts, fe);
  fe.families = FamilyRegistry::load(opts.template_dirs.empty()
                                         ? template_dir_paths(template_search_path(opts.extra_template_dirs, path))
                                         : opts.template_dirs,
                                     fe.sources, fe.diags);
  return !fe.diags.has_errors();
}

// The counters and maps the manifest names exist in the object compiled for the unit's
// points, checked for each program they select: a typo is an error in family.json.
void check_manifest_names(const Frontend &fe, const EmitUnit &u, const std::vector<uint8_t> &object,
                          ObjectRefChecker &refs) {
  const FamilyManifest *f = fe.families.find(u.family);
  if (!f) return;
  std::set<std::string> programs;
  for (size_t idx : u.points) {
    const std::string &p = fe.plan->points.at(idx).program;
    programs.insert(p.empty() ? f->default_program : p);
  }
  for (const auto &p : programs) refs.check(*f, p, object, u.virtual_name);
}

}  // namespace

bool run_frontend(const std::string &path, const FrontendOptions &opts, Frontend &fe) {
  if (!load_families(path, opts, fe)) return false;
  fe.ast = parse_file(path, fe.sources, fe.diags);
  return check_and_lower(path, opts, fe);
}

bool run_frontend_text(const std::string &path, std::string text, const FrontendOptions &opts, Frontend &fe) {
  if (!load_families(path, opts, fe)) return false;
  fe.ast = parse_text(path, std::move(text), fe.sources, fe.diags);
  return check_and_lower(path, opts, fe);
}

namespace {

// Quoted includes of the unit's C: the folder of the .bdsl file holding the bench, then
// the family's folder (prog.bpf.c's), then the --include-dir folders.
UserIncludes unit_includes(const Frontend &fe, const EmitUnit &u) {
  const PlanPoint &p = fe.plan->points.at(u.points.at(0));
  std::vector<std::string> dirs;
  if (p.bench_range.valid() && p.bench_range.file < fe.sources.size()) {
    std::filesystem::path dir = std::filesystem::path(fe.sources.file(p.bench_range.file).path).parent_path();
    dirs.push_back(dir.empty() ? std::string(".") : dir.string());
  }
  if (const FamilyManifest *f = fe.families.find(u.family)) dirs.push_back(f->dir);
  dirs.insert(dirs.end(), fe.include_dirs.begin(), fe.include_dirs.end());
  return user_includes(dirs);
}

// The precompiled vmlinux.h for a unit that includes it: prepared at the first such
// unit, reused by the rest. Null when there is none (a located error says why).
const PrecompiledVmlinux *unit_vmlinux(Frontend &fe, const EmitUnit &u, std::optional<VmlinuxResult> &prepared,
                                       CompiledPrograms &out, const std::atomic<bool> *stop) {
  const bool first_use = !prepared;
  if (first_use) {
    VmlinuxOptions o;
    o.stop = stop;
    prepared = prepare_vmlinux(o);
    if (prepared->vmlinux)
      out.vmlinux = VmlinuxUse{prepared->btf_path, prepared->btf_hash, prepared->cached, prepared->build_seconds};
  }
  out.interrupted = prepared->interrupted || (stop && stop->load());
  add_vmlinux_diags(*prepared, *u.vmlinux, first_use, fe.plan->points.at(u.points.at(0)), fe.families, fe.sources,
                    fe.diags);
  return prepared->vmlinux ? &*prepared->vmlinux : nullptr;
}

}  // namespace

bool compile_programs(Frontend &fe, CompiledPrograms &out, const std::atomic<bool> *stop) {
  auto units = emit_programs(*fe.plan, fe.families, fe.sources, fe.diags);
  if (fe.diags.has_errors()) return false;
  ObjectRefChecker refs(fe.sources, fe.diags);
  std::optional<VmlinuxResult> vmlinux;
  for (const auto &u : units) {
    CompileOptions opts;
    opts.virtual_name = u.virtual_name;
    UserIncludes inc = unit_includes(fe, u);
    opts.extra_args = std::move(inc.args);
    opts.use_cache = inc.cacheable;
    opts.stop = stop;  // a signal kills the compile child at once
    if (u.vmlinux) {
      opts.vmlinux = unit_vmlinux(fe, u, vmlinux, out, stop);
      if (out.interrupted) return true;
      if (!opts.vmlinux) continue;
    }
    CompileResult r = compile_bpf(u.c_source, opts);
    if (r.interrupted || (stop && stop->load())) {
      out.interrupted = true;
      return true;
    }
    out.programs.push_back(ProgramHash{u.virtual_name, u.family, sha256_hex(u.c_source), r.cache_key, u.points});
    add_compile_diags(r, fe.plan->points.at(u.points.at(0)), fe.families, fe.sources, fe.diags);
    if (!r.ok) continue;
    ++out.compiled;
    for (size_t idx : u.points) out.objects[idx] = r.object;
    check_manifest_names(fe, u, r.object, refs);
  }
  return !fe.diags.has_errors();
}

int64_t online_cpus() {
  long n = sysconf(_SC_NPROCESSORS_ONLN);
  return n > 0 ? n : 1;
}

}  // namespace bpfbench
