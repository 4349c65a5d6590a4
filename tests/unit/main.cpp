// The Catch2 main of both test executables: unit, case and runtime tests, and the
// kernel-matrix tests (tests/vm).
#define CATCH_CONFIG_RUNNER
#include <catch2/catch.hpp>

#include <cstdlib>

int main(int argc, char *argv[]) {
  // Every `bpfbench run` a test starts would add two 1 s calibration points: off unless the
  // test asks for one (--calibration) or the environment already says otherwise.
  setenv("BPFBENCH_CALIBRATION", "off", 0);
  return Catch::Session().run(argc, argv);
}
