// The Catch2 main of both test executables: unit, case and runtime tests, and the
// kernel-matrix tests (tests/vm).
#define CATCH_CONFIG_MAIN
#include <catch2/catch.hpp>
