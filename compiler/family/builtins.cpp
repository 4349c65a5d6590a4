#include "compiler/family/builtins.hpp"

namespace bpfbench {

namespace {

ParamSpec make(std::string name, ParamType type, ParamValue def, int64_t min, int64_t max, std::string doc) {
  ParamSpec p;
  p.name = std::move(name);
  p.type = type;
  p.dest = ParamDest::Runtime;
  p.default_value = std::move(def);
  p.min = min;
  p.max = max;
  p.doc = std::move(doc);
  return p;
}

ParamValue int_value(int64_t v) { return ParamValue{true, v, {}}; }
ParamValue str_value(std::string s) { return ParamValue{false, 0, std::move(s)}; }

constexpr int64_t kSecond = 1'000'000'000;

}  // namespace

std::vector<ParamSpec> builtin_settings(const FamilyManifest &family) {
  std::vector<ParamSpec> out;
  // Same defaults as the kernel's bench runner: 1 s warmup, 5 s measurement.
  out.push_back(make("warmup", ParamType::Duration, int_value(1 * kSecond), 0, 3600 * kSecond,
                     "time run before sampling starts (not reported)"));
  out.push_back(make("duration", ParamType::Duration, int_value(5 * kSecond), kSecond, 24 * 3600 * kSecond,
                     "measured time (one sample per second)"));
  out.push_back(make("producers", ParamType::Int, int_value(1), 1, 1024, "producer threads"));
  out.push_back(make("consumers", ParamType::Int, int_value(family.consumer == ConsumerKind::None ? 0 : 1), 0, 64,
                     "consumer threads"));
  out.push_back(make("affinity", ParamType::Bool, int_value(0), 0, 1,
                     "pin consumers to CPUs 0.. and producers after them (the kernel bench's -a)"));
  out.push_back(make("prod_affinity", ParamType::Cpuset, str_value(""), 0, 0, "CPUs for producers, e.g. \"0-3,8\""));
  out.push_back(make("cons_affinity", ParamType::Cpuset, str_value(""), 0, 0, "CPUs for consumers, e.g. \"4\""));
  out.push_back(make("rounds", ParamType::Int, int_value(1), 1, 100,
                     "measure the point this many times, round-robin over the plan, a whole run each; "
                     "the CI is over the round means (with `until ci`: at least this many)"));
  ParamSpec prog =
      make("prog", ParamType::Enum, str_value(family.default_program), 0, 0, "the family's program (variant) to run");
  for (const auto &p : family.programs) prog.choices.push_back(p.name);
  out.push_back(std::move(prog));
  return out;
}

const std::vector<std::string> &builtin_names() {
  static const std::vector<std::string> names = {"warmup",        "duration",      "producers", "consumers", "affinity",
                                                 "prod_affinity", "cons_affinity", "rounds",    "prog"};
  return names;
}

}  // namespace bpfbench
