// Reading a Result<T> in a test: its error's text.
#pragma once

#include <catch2/catch.hpp>

#include <string>

#include "util/error.hpp"

namespace bpfbench::test {

// The error's message; "" when `r` holds a value (for INFO beside a REQUIRE(r)).
template <class T>
std::string error_text(const Result<T> &r) {
  return r ? std::string() : r.error().message;
}

// The error's message of a step that must fail: a test failure when it did not.
template <class T>
std::string expect_error(const Result<T> &r) {
  if (r) FAIL_CHECK("expected an error, got a value");
  return error_text(r);
}

}  // namespace bpfbench::test
