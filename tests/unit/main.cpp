// The Catch2 main for all unit, case and runtime tests.
#define CATCH_CONFIG_MAIN
#include <catch2/catch.hpp>
