// An environment variable set (or, with "", unset) for a scope, then put back as it was.
#pragma once

#include <cstdlib>
#include <optional>
#include <string>

namespace bpfbench::test {

struct ScopedEnv {
  std::string name;
  std::optional<std::string> old;
  ScopedEnv(std::string n, const std::string &value) : name(std::move(n)) {
    if (const char *o = std::getenv(name.c_str())) old = o;
    if (value.empty()) unsetenv(name.c_str());
    else setenv(name.c_str(), value.c_str(), 1);
  }
  ~ScopedEnv() {
    if (old) setenv(name.c_str(), old->c_str(), 1);
    else unsetenv(name.c_str());
  }
  ScopedEnv(const ScopedEnv &) = delete;
  ScopedEnv &operator=(const ScopedEnv &) = delete;
};

}  // namespace bpfbench::test
