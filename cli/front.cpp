#include "cli/front.hpp"
#include "compiler/escape.hpp"

#include <fmt/format.h>

#include <cstdio>

#include "compiler/ast_dump.hpp"
#include "compiler/emit_bpf.hpp"
#include "compiler/plan_dump.hpp"
#include "cli/point_select.hpp"

namespace bpfbench::cli {

void print_diagnostics(Frontend &fe) {
  const auto &all = fe.diags.all();
  for (; fe.printed_diags < all.size(); ++fe.printed_diags) {
    const Diagnostic &d = all[fe.printed_diags];
    std::string text = render(d, fe.sources);
    if (d.severity == Severity::Note && !fe.shown_notes.insert(text).second) continue;
    std::fputs(text.c_str(), stderr);
  }
}

std::string source_location(const Frontend &fe, const SourceRange &r) {
  if (!r.valid()) return fe.plan ? fe.plan->file : std::string();
  return fmt::format("{}:{}:{}", fe.sources.file(r.file).path, r.line, r.col);
}

namespace {

// parse → check → lower of the file (or text) `args` names, with its options; no printing.
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

}  // namespace

size_t precompile_quietly(const FileArgs &args, const std::atomic<bool> *stop) {
  Frontend fe;
  if (!run_frontend_for(args, fe) || !fe.plan || fe.diags.has_errors() || !select_points(*fe.plan, args.only)) return 0;
  CompiledPrograms compiled;
  compile_programs(fe, compiled, stop, /*with_vmlinux=*/false);  // the guest's BTF is not ours
  return compiled.compiled;
}

bool load_frontend(const FileArgs &args, Frontend &fe) {
  bool ok = run_frontend_for(args, fe);
  if (ok && fe.plan && !fe.diags.has_errors()) {
    if (auto kept = select_points(*fe.plan, args.only, args.only_exact ? Baselines::Exact : Baselines::Follow); !kept) {
      print_diagnostics(fe);
      fmt::print(stderr, "bpfbench: error: {}: {}\n", args.file, kept.error().message);
      return false;
    }
  }
  if (args.dump == "xlated" || args.dump == "jited") {  // emit's own (emit_cmd.cpp)
    fmt::print(stderr, "bpfbench: error: --dump {} is for emit only (it loads the program)\n", args.dump);
    return false;
  }
  if (args.dump == "ast" && fe.ast) fmt::print("{}\n", json_text(ast_to_json(*fe.ast), 2));
  if (args.dump == "plan" && fe.plan)
    write_plan_text(*fe.plan, [](const std::string &s) { std::fwrite(s.data(), 1, s.size(), stdout); });
  if (args.dump == "c" && fe.plan) {
    for (const auto &u : emit_programs(*fe.plan, fe.families, fe.sources, fe.diags))
      fmt::print("// ==== {}\n{}\n", u.virtual_name, u.c_source);
  }
  size_t errors = fe.diags.error_count();
  print_diagnostics(fe);
  if (!ok && errors == 0) fmt::print(stderr, "bpfbench: error: {}: no plan produced\n", args.file);
  return ok && errors == 0;
}

}  // namespace bpfbench::cli
