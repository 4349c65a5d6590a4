#include "cli/front.hpp"
#include "util/escape.hpp"

#include <fmt/format.h>

#include <cstdio>

#include "compiler/bdsl/ast_dump.hpp"
#include "compiler/bpf/emit_bpf.hpp"
#include "compiler/bdsl/plan_dump.hpp"
#include "session/point_select.hpp"

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
