#include "cli/options.hpp"

#include <fmt/format.h>

#include "compiler/resolve_value.hpp"
#include "compiler/units.hpp"

namespace bpfbench::cli {

namespace {

// "5" (seconds, like the kernel bench), "500ms", "2s".
std::optional<int64_t> parse_duration(const std::string &text, std::string *err) {
  size_t i = 0;
  while (i < text.size() && std::isdigit(static_cast<unsigned char>(text[i]))) ++i;
  if (i == 0 || i > 12) {
    *err = "expected a duration like 5, 500ms or 2s";
    return std::nullopt;
  }
  return apply_unit(std::stoll(text.substr(0, i)), text.substr(i), ParamType::Duration, err);
}

CLI::Validator duration_validator() {
  return CLI::Validator(
      [](std::string &s) {
        std::string err;
        return parse_duration(s, &err) ? std::string() : err;
      },
      "DURATION");
}

CLI::Validator cpuset_validator() {
  return CLI::Validator([](std::string &s) { return cpuset_error(s); }, "CPUSET");
}

}  // namespace

void add_file_options(CLI::App *cmd, FileArgs &a) {
  cmd->add_option("FILE", a.file, "The .bdsl file")->required();
  cmd->add_option("--templates", a.template_dirs, "Also look for families in this folder (repeatable; added to the shipped ones)")
      ->allow_extra_args(false);  // one folder per --templates: `--templates D FILE` keeps FILE
  cmd->add_option("--dump", a.dump, "Print a stage's output: ast, plan or c")
      ->check(CLI::IsMember({"ast", "plan", "c"}));
  cmd->add_flag("--allow-large", a.allow_large,
                "Allow points whose forked tasks or map memory exceed what this machine can spare");
  cmd->add_option_function<std::string>(
         "-w,--warmup", [&a](const std::string &s) { std::string e; a.overrides.warmup_ns = parse_duration(s, &e); },
         "Warmup before sampling (overrides the file), e.g. 1 or 500ms")
      ->check(duration_validator());
  cmd->add_option_function<std::string>(
         "-d,--duration", [&a](const std::string &s) { std::string e; a.overrides.duration_ns = parse_duration(s, &e); },
         "Measured duration (overrides the file), e.g. 5 or 3s")
      ->check(duration_validator());
  cmd->add_option_function<int>("-p,--producers", [&a](int n) { a.overrides.producers = n; },
                                "Producer threads (overrides the file)")
      ->check(CLI::Range(1, 1024));
  cmd->add_option_function<int>("-c,--consumers", [&a](int n) { a.overrides.consumers = n; },
                                "Consumer threads (overrides the file)")
      ->check(CLI::Range(0, 64));
  cmd->add_flag_function("-a,--affinity", [&a](int64_t) { a.overrides.affinity = true; },
                         "Pin consumers to CPUs 0.. and producers after them (like the kernel bench)");
  cmd->add_option_function<std::string>("--prod-affinity", [&a](const std::string &s) { a.overrides.prod_cpus = s; },
                                        "CPUs for producers, e.g. 0-3,8")
      ->check(cpuset_validator());
  cmd->add_option_function<std::string>("--cons-affinity", [&a](const std::string &s) { a.overrides.cons_cpus = s; },
                                        "CPUs for consumers")
      ->check(cpuset_validator());
}

}  // namespace bpfbench::cli
