// Catch2 main of the kernel-matrix test executable.
#define CATCH_CONFIG_MAIN
#include <catch2/catch.hpp>
