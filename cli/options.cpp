#include "cli/options.hpp"

#include <fmt/format.h>

#include "cli/values.hpp"
#include "compiler/bdsl/cpu_sets.hpp"
#include "compiler/bdsl/resolve_value.hpp"

namespace bpfbench::cli {

CLI::Validator cpuset_validator() {
  return CLI::Validator(
      [](std::string &s) {
        Result<> ok = check_cpuset(s);
        if (ok) ok = cpus_are_online(s, read_online_cpus());
        return ok ? std::string() : ok.error().message;
      },
      "CPUSET");
}

namespace {

// A duration option with the range of the builtin setting of the same name.
ValueParser<int64_t> builtin_duration(const std::string &name) {
  auto [lo, hi] = builtin_range(name);
  return duration_in(lo, hi);
}
ValueParser<int64_t> builtin_integer(const std::string &name) {
  auto [lo, hi] = builtin_range(name);
  return integer_in(lo, hi);
}

}  // namespace

void add_file_options(CLI::App *cmd, FileArgs &a, bool loaded_dumps) {
  cmd->add_option("FILE", a.file, "The .bdsl file")->required()->check(checked(non_empty("a .bdsl file name"), "FILE"));
  cmd->add_option("--templates", a.template_dirs,
                  "Also look for families in this folder, before the shipped ones (repeatable; a family here "
                  "shadows a shipped one of its name)")
      ->allow_extra_args(false)  // one folder per --templates: `--templates D FILE` keeps FILE
      ->check(checked(non_empty("a folder name"), "DIR"))
      ->type_name("DIR");
  add_include_dir_option(cmd, a);
  if (loaded_dumps)
    cmd->add_option("--dump", a.dump,
                    "Print a stage's output: ast, plan or c, or xlated or jited (bpftool's dump of the loaded "
                    "program; root)")
        ->check(CLI::IsMember({"ast", "plan", "c", "xlated", "jited"}));
  else
    cmd->add_option("--dump", a.dump, "Print a stage's output: ast, plan or c")
        ->check(CLI::IsMember({"ast", "plan", "c"}));
  cmd->add_option("--only", a.only, "Only the points with this label, or matching this glob (e.g. 'rb-*'; repeatable)")
      ->allow_extra_args(false)
      ->check(checked(non_empty("a point label or glob"), "LABEL"))
      ->type_name("LABEL");  // the completion offers the file's labels for it
  add_harness_options(cmd, a);
}

void add_include_dir_option(CLI::App *cmd, FileArgs &a) {
  cmd->add_option("--include-dir", a.include_dirs,
                  "Also look for quoted #include headers of templates and inline code in this folder (repeatable; "
                  "after the .bdsl file's and the family's folders)")
      ->allow_extra_args(false)
      ->check(checked(non_empty("a folder name"), "DIR"))
      ->type_name("DIR");
}

void add_harness_options(CLI::App *cmd, FileArgs &a) {
  cmd->add_flag("--allow-large", a.allow_large,
                "Allow points whose forked tasks or map memory exceed what this machine can spare");
  PlanOverrides &o = a.overrides;
  add_value<int64_t>(
      cmd, "-w,--warmup", builtin_duration("warmup"), [&o](int64_t ns) { o.warmup_ns = ns; },
      "Warmup before sampling (overrides the file), e.g. 1s or 500ms", "DURATION");
  add_value<int64_t>(
      cmd, "-d,--duration", builtin_duration("duration"), [&o](int64_t ns) { o.duration_ns = ns; },
      "Measured duration (overrides the file), e.g. 5s or 1500ms", "DURATION");
  add_value<int64_t>(
      cmd, "-p,--producers", builtin_integer("producers"), [&o](int64_t n) { o.producers = static_cast<int>(n); },
      "Producer threads (overrides the file)", "N");
  add_value<int64_t>(
      cmd, "-c,--consumers", builtin_integer("consumers"), [&o](int64_t n) { o.consumers = static_cast<int>(n); },
      "Consumer threads (overrides the file)", "N");
  cmd->add_flag_function(
      "-a,--affinity", [&a](int64_t) { a.overrides.affinity = true; },
      "Pin consumers to CPUs 0.. and producers after them (like the kernel bench)");
  cmd->add_option_function<std::string>(
         "--prod-affinity", [&a](const std::string &s) { a.overrides.prod_cpus = s; }, "CPUs for producers, e.g. 0-3,8")
      ->check(cpuset_validator());
  cmd->add_option_function<std::string>(
         "--cons-affinity", [&a](const std::string &s) { a.overrides.cons_cpus = s; }, "CPUs for consumers")
      ->check(cpuset_validator());
}

}  // namespace bpfbench::cli
