#include "session/inputs.hpp"

#include <fmt/format.h>

#include "session/point_select.hpp"

namespace bpfbench {

bool run_frontend_for(const FileArgs &args, Frontend &fe) {
  FrontendOptions opts;
  opts.extra_template_dirs = args.template_dirs;
  opts.include_dirs = args.include_dirs;
  if (!args.only_template_dirs.empty()) {
    opts.template_dirs = args.only_template_dirs;
    for (const auto &d : args.template_dirs) opts.template_dirs.push_back(TemplateDir{d, "--templates"});
  }
  opts.overrides = args.overrides;
  opts.allow_large = args.allow_large;
  return args.text ? run_frontend_text(args.file, *args.text, opts, fe) : run_frontend(args.file, opts, fe);
}

size_t precompile_quietly(const FileArgs &args, const std::atomic<bool> *stop) {
  Frontend fe;
  if (!run_frontend_for(args, fe) || !fe.plan || fe.diags.has_errors() || !select_points(*fe.plan, args.only)) return 0;
  CompiledPrograms compiled;
  compile_programs(fe, compiled, stop, /*with_vmlinux=*/false);  // the guest's BTF is not ours
  return compiled.compiled;
}

std::string source_location(const Frontend &fe, const SourceRange &r) {
  if (!r.valid()) return fe.plan ? fe.plan->file : std::string();
  return fmt::format("{}:{}:{}", fe.sources.file(r.file).path, r.line, r.col);
}

}  // namespace bpfbench
