#include "compiler/pipeline.hpp"

#include <sys/stat.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstring>
#include <filesystem>
#include <set>
#include <thread>

#include <fmt/format.h>

#include "compiler/bpf/clang_compile.hpp"
#include "compiler/bpf/compile_diags.hpp"
#include "compiler/bdsl/cpu_sets.hpp"
#include "compiler/bpf/emit_bpf.hpp"
#include "util/input_file.hpp"
#include "compiler/bpf/object_cache.hpp"
#include "compiler/bpf/object_check.hpp"
#include "compiler/bdsl/parse.hpp"
#include "util/sha256.hpp"
#include "compiler/family/template_path.hpp"
#include "compiler/bpf/user_includes.hpp"
#include "compiler/bpf/vmlinux_pch.hpp"

namespace bpfbench {

namespace {

// The stages after parsing, shared by both entry points.
bool check_and_lower(const std::string &path, const FrontendOptions &opts, Frontend &fe) {
  if (!fe.ast || fe.diags.has_errors()) return false;
  fe.checked = check(*fe.ast, fe.families, opts.nproc > 0 ? opts.nproc : online_cpus(), fe.diags);
  if (!fe.checked) return false;
  fe.plan = lower(*fe.checked, path, opts.overrides, fe.diags);
  if (!fe.plan) return false;
  const MachineLimits machine = opts.limits ? *opts.limits : read_machine_limits();
  if (!opts.allow_large) check_resource_limits(*fe.plan, fe.families, machine, fe.diags);
  check_cpus_online(*fe.plan, machine.online_cpus, fe.diags);  // --allow-large cannot make a CPU
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
  fe.families = FamilyRegistry::load(
      opts.template_dirs.empty() ? template_search_path(opts.extra_template_dirs, path) : opts.template_dirs, fe.sources,
      fe.diags);
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

// The cache folder of this compile, checked once: when it may not be used, one warning
// says which and why, and every program is compiled without it (nothing read or stored).
struct CacheUse {
  std::string dir;
  bool usable = true;
};

CacheUse check_cache(Diagnostics &diags) {
  CacheUse c{default_cache_dir()};
  if (auto ok = check_cache_dir(c.dir); !ok) {
    c.usable = false;
    diags.warning(
        {}, fmt::format("the cache folder {} is not used ({}); every run compiles again", c.dir, ok.error().message));
  }
  return c;
}

// The precompiled vmlinux.h for a unit that includes it: prepared at the first such
// unit, reused by the rest. Null when there is none (a located error says why).
const PrecompiledVmlinux *unit_vmlinux(const EmitUnit &u, std::optional<VmlinuxResult> &prepared, CompiledPrograms &out,
                                       const CacheUse &cache, const std::atomic<bool> *stop, CompileDiags &shown) {
  const bool first_use = !prepared;
  if (first_use) {
    VmlinuxOptions o;
    o.stop = stop;
    o.cache_dir = cache.dir;
    o.use_cache = cache.usable;
    prepared = prepare_vmlinux(o);
    if (prepared->vmlinux)
      out.vmlinux = VmlinuxUse{prepared->btf_path, prepared->btf_hash, prepared->cached, prepared->build_seconds};
  }
  out.interrupted = prepared->interrupted || (stop && stop->load());
  shown.add_vmlinux(*prepared, u, first_use);
  return prepared->vmlinux ? &*prepared->vmlinux : nullptr;
}

}  // namespace

namespace {

// At most this many compiles at once: each is a forked clang child (~64 MiB here), so the
// CPUs are the limit; the cap keeps a large machine's memory use bounded.
constexpr size_t kMaxCompileJobs = 16;

// Compiles units[i] with opts[i] into results[i] (none where opts[i] is empty: a unit that
// cannot compile). The cache is read and written on this thread; the compiles the cache
// does not have run up to `jobs` at a time from worker threads, each in its own forked
// child (compile_uncached: the parent side forks and waits, so no worker holds a lock
// that another's child needs). After a stop no new compile starts, and the running ones
// are killed by their own polling. Every worker is joined before return.
void compile_units(const std::vector<EmitUnit> &units, const std::vector<std::optional<CompileOptions>> &opts,
                   size_t jobs, std::vector<std::optional<CompileResult>> &results) {
  results.assign(units.size(), std::nullopt);
  std::vector<size_t> misses;
  for (size_t i = 0; i < units.size(); ++i) {
    if (!opts[i]) continue;
    results[i] = cached_compile(units[i].c_source, *opts[i]);
    if (!results[i]->ok) misses.push_back(i);
  }
  std::vector<std::optional<CompileResult>> compiled(units.size());
  std::atomic<size_t> next{0};
  auto work = [&] {
    for (size_t m = next++; m < misses.size(); m = next++) {
      const size_t i = misses[m];
      if (opts[i]->stop && opts[i]->stop->load()) return;
      try {
        compiled[i] = compile_uncached(units[i].c_source, *opts[i]);
      } catch (const std::exception &e) {  // it does not throw; a worker thread must not
        compiled[i] = CompileResult{};
        compiled[i]->error = std::string("the compile failed: ") + e.what();
      }
    }
  };
  std::vector<std::jthread> pool;
  for (size_t w = 1; w < std::min(jobs, misses.size()); ++w) pool.emplace_back(work);
  work();
  pool.clear();  // joins
  for (size_t i : misses) {
    if (!compiled[i]) {  // not started: a stop
      results[i].reset();
      continue;
    }
    store_compiled(*compiled[i], std::move(*results[i]), *opts[i]);
    results[i] = std::move(compiled[i]);
  }
}

}  // namespace

bool compile_programs(Frontend &fe, CompiledPrograms &out, const std::atomic<bool> *stop, bool with_vmlinux) {
  auto units = emit_programs(*fe.plan, fe.families, fe.sources, fe.diags);
  if (fe.diags.has_errors()) return false;
  // Each unit's options, in unit order (vmlinux.h, when a unit needs it, prepared once).
  std::vector<std::optional<CompileOptions>> opts(units.size());
  std::optional<VmlinuxResult> vmlinux;
  const CacheUse cache = units.empty() ? CacheUse{} : check_cache(fe.diags);
  CompileDiags shown(*fe.plan, fe.families, fe.sources, fe.diags);
  for (size_t i = 0; i < units.size(); ++i) {
    const EmitUnit &u = units[i];
    CompileOptions o;
    o.virtual_name = u.virtual_name;
    UserIncludes inc = unit_includes(fe, u);
    o.extra_args = std::move(inc.args);
    o.use_cache = inc.cacheable && cache.usable;
    o.cache_dir = cache.dir;
    o.stop = stop;  // a signal kills the compile child at once
    if (u.vmlinux) {
      if (!with_vmlinux) continue;
      o.vmlinux = unit_vmlinux(u, vmlinux, out, cache, stop, shown);
      if (out.interrupted) {
        shown.finish();
        return true;
      }
      if (!o.vmlinux) continue;
    }
    opts[i] = std::move(o);
  }
  std::vector<std::optional<CompileResult>> results;
  compile_units(units, opts, std::clamp<size_t>(static_cast<size_t>(online_cpus()), 1, kMaxCompileJobs), results);
  if (stop && stop->load()) out.interrupted = true;
  ObjectRefChecker refs(fe.sources, fe.diags);
  for (size_t i = 0; i < units.size() && !out.interrupted; ++i) {
    const EmitUnit &u = units[i];
    if (!opts[i]) continue;
    if (!results[i] || results[i]->interrupted) {
      out.interrupted = true;
      break;
    }
    const CompileResult &r = *results[i];
    out.programs.push_back(ProgramHash{u.virtual_name, u.family, sha256_hex(u.c_source), r.cache_key, u.points});
    shown.add(r, u, opts[i]->vmlinux);
    if (!r.ok) continue;
    ++out.compiled;
    for (size_t idx : u.points) out.objects[idx] = r.object;
    check_manifest_names(fe, u, r.object, refs);
  }
  shown.finish();
  return out.interrupted || !fe.diags.has_errors();
}

int64_t online_cpus() {
  long n = sysconf(_SC_NPROCESSORS_ONLN);
  return n > 0 ? n : 1;
}

}  // namespace bpfbench
