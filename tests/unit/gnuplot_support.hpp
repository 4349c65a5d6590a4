// Test helper: every line of a generated gnuplot script is one we write on purpose (a
// `set`/`unset`/`plot` command, an inline data row or the `e` that ends one), so nothing
// from a results file became a command of its own.
#pragma once

#include <catch2/catch.hpp>

#include <cctype>
#include <sstream>
#include <string>

namespace bpfbench::test {

inline void check_gnuplot_lines(const std::string &script) {
  std::istringstream in(script);
  std::string line;
  while (std::getline(in, line)) {
    CAPTURE(line);
    bool ok = line.rfind("set ", 0) == 0 || line.rfind("unset ", 0) == 0 || line.rfind("plot ", 0) == 0 ||
              line == "e" || (!line.empty() && std::isdigit(static_cast<unsigned char>(line[0])));
    CHECK(ok);
  }
}

}  // namespace bpfbench::test
