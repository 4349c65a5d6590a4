#include "session/ab_args.hpp"

#include <fmt/format.h>
#include <sys/stat.h>

#include <map>

#include "util/escape.hpp"
#include "compiler/bdsl/param_override.hpp"

namespace bpfbench {

namespace {

// One folder, however it is spelled (`DIR` and `DIR/.`, a symlink to it): by identity.
bool same_folder(const std::string &a, const std::string &b) {
  if (a == b) return true;
  struct stat sa {
  }, sb{};
  return ::stat(a.c_str(), &sa) == 0 && ::stat(b.c_str(), &sb) == 0 && sa.st_dev == sb.st_dev && sa.st_ino == sb.st_ino;
}

// --a-kernel/--b-kernel: one file, as written, on two kernels (fine when not asked).
Result<void> check_kernels_usage(const AbArgs &a, bool sets, bool templates) {
  if (a.a_kernel.empty() && a.b_kernel.empty()) return {};
  if (a.a_kernel.empty() || a.b_kernel.empty())
    return Error("--a-kernel and --b-kernel come together (A's and B's turns both run in guests)");
  if (a.a_kernel == a.b_kernel) return Error("--a-kernel and --b-kernel name the same kernel: A and B would be the same");
  if (a.files.size() == 2) return Error("--a-kernel/--b-kernel run one file on two kernels: give one file");
  if (sets || templates || a.control)
    return Error("--a-kernel/--b-kernel run one file as written on two kernels: --a/--b, --a-templates/--b-templates and "
           "--control have no place with them");
  return {};
}

// The same NAME twice in --a (or --b): the last one would win unseen.
Result<void> check_repeated_settings(const std::vector<std::string> &sets, const char *opt) {
  std::map<std::string, const std::string *> first;
  for (const auto &s : sets) {
    ParamOverride o;
    if (!parse_param_override(s, opt, o).empty()) continue;  // said with the file's settings
    auto [it, fresh] = first.emplace(o.name, &s);
    if (!fresh)
      return Error(fmt::format("{} {} and {} {} both set '{}': give each setting once", opt, printable_text(*it->second), opt,
                         printable_text(s), printable_text(o.name)));
  }
  return {};
}

}  // namespace

bool ab_match_by_position(const AbArgs &a) { return a.files.size() == 1 && (!a.a_sets.empty() || !a.b_sets.empty()); }

bool ab_kernels(const AbArgs &a) { return !a.a_kernel.empty() && !a.b_kernel.empty(); }

Result<void> check_ab_usage(const AbArgs &a) {
  bool sets = !a.a_sets.empty() || !a.b_sets.empty();
  bool templates = !a.a_templates.empty() || !a.b_templates.empty();
  if (auto ok = check_kernels_usage(a, sets, templates); !ok) return ok;
  if (a.control && templates) return Error("--control runs A against itself: --a-templates/--b-templates have no place in it");
  if (templates && same_folder(a.a_templates, a.b_templates))
    return Error("--a-templates and --b-templates name the same folder: A and B would be the same programs");
  for (auto [list, opt] : {std::pair{&a.a_sets, "--a"}, std::pair{&a.b_sets, "--b"}})
    if (auto ok = check_repeated_settings(*list, opt); !ok) return ok;
  if (a.files.size() == 2 && sets) return Error("--a/--b set the two variants of one file: give one file with them");
  if (a.files.size() == 2 && a.control) return Error("--control runs one file against itself: give one file");
  if (a.control && !a.b_sets.empty()) return Error("--control runs A against itself: --b has no place in it");
  if (a.control && !a.floor_from.empty()) return Error("--floor-from applies a control run's floor: not to a control run");
  if (a.files.size() == 1 && !sets && !templates && !a.control && !ab_kernels(a))
    return Error("one file needs --a/--b settings, --a-templates/--b-templates, --a-kernel/--b-kernel (or --control); to "
                 "compare two files give both");
  if (a.rule.max_pairs < a.rule.min_pairs)
    return Error(fmt::format("--max-pairs {} is below the minimum of {} pairs (a CI needs them)", a.rule.max_pairs,
                       a.rule.min_pairs));
  return {};
}

}  // namespace bpfbench
