#include "compiler/pipeline.hpp"

#include <unistd.h>

#include "compiler/parse.hpp"
#include "compiler/template_path.hpp"

namespace bpfbench {

bool run_frontend(const std::string &path, const FrontendOptions &opts, Frontend &fe) {
  fe.families = FamilyRegistry::load(
      opts.template_dirs.empty() ? template_dir_paths(template_search_path(opts.extra_template_dirs, path))
                                 : opts.template_dirs,
      fe.sources, fe.diags);
  if (fe.diags.has_errors()) return false;

  fe.ast = parse_file(path, fe.sources, fe.diags);
  if (!fe.ast || fe.diags.has_errors()) return false;

  fe.checked = check(*fe.ast, fe.families, opts.nproc > 0 ? opts.nproc : online_cpus(), fe.diags);
  if (!fe.checked) return false;

  fe.plan = lower(*fe.checked, path, opts.overrides, fe.diags);
  if (!fe.plan) return false;
  if (!opts.allow_large)
    check_resource_limits(*fe.plan, fe.families, opts.limits ? *opts.limits : read_machine_limits(), fe.diags);
  return !fe.diags.has_errors();
}

int64_t online_cpus() {
  long n = sysconf(_SC_NPROCESSORS_ONLN);
  return n > 0 ? n : 1;
}

}  // namespace bpfbench
