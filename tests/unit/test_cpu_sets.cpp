// CPU sets as text: the runtime's parser (cpuset_cpus), the checker's (check_cpuset) and the
// check against the machine's online CPUs, each refusal with its message.
#include <catch2/catch.hpp>

#include <string>
#include <vector>

#include "compiler/bdsl/cpu_sets.hpp"
#include "compiler/bdsl/resolve_value.hpp"

using namespace bpfbench;

TEST_CASE("cpuset_cpus lists the CPUs of a set, sorted and once each", "[cpu_sets]") {
  auto cpus = cpuset_cpus("8,0-3,2");
  REQUIRE(cpus);
  CHECK(*cpus == std::vector<int>{0, 1, 2, 3, 8});
  CHECK(format_cpuset(*cpus) == "0-3,8");
  const std::pair<const char *, const char *> bad[] = {
      {"", "invalid CPU set '': empty"},
      {"3-1", "invalid CPU set '3-1': range 3-1 is reversed"},
      {"a", "invalid CPU set 'a': expected a CPU number at offset 0"},
      {"1,", "invalid CPU set '1,': expected a CPU number at offset 2"},
      {"1-", "invalid CPU set '1-': expected a CPU number after '-'"},
      {"1;2", "invalid CPU set '1;2': unexpected ';'"},
  };
  for (const auto &[text, message] : bad) {
    INFO(text);
    auto r = cpuset_cpus(text);
    REQUIRE_FALSE(r);
    CHECK(r.error().message == message);
  }
}

TEST_CASE("check_cpuset says what is wrong with a written CPU set", "[cpu_sets]") {
  CHECK(check_cpuset("0-3,8"));
  const std::pair<const char *, const char *> bad[] = {
      {"", "empty CPU set"},
      {"4096", "expected a CPU number (0-4095) at offset 4"},
      {"3-1", "reversed CPU range 3-1"},
      {"1,", "trailing ','"},
      {"1x", "unexpected 'x' at offset 1"},
  };
  for (const auto &[text, message] : bad) {
    INFO(text);
    auto r = check_cpuset(text);
    REQUIRE_FALSE(r);
    CHECK(r.error().message == message);
  }
}

TEST_CASE("cpus_are_online names the CPUs the machine lacks", "[cpu_sets]") {
  const std::vector<int> online = {0, 1};
  CHECK(cpus_are_online("0-1", online));
  CHECK(cpus_are_online("0-7", {}));  // nothing known: nothing checked
  auto one = cpus_are_online("1,4095", online);
  REQUIRE_FALSE(one);
  CHECK(one.error().message == "CPU 4095 is not online on this machine (online: 0-1)");
  auto some = cpus_are_online("0-5", online);
  REQUIRE_FALSE(some);
  CHECK(some.error().message == "CPUs 2-5 are not online on this machine (online: 0-1)");
}
