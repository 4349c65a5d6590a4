// apply_unit / parse_quantity: the unit table per type, wrong units, overflow.
#include <catch2/catch.hpp>

#include <string>

#include "compiler/family/units.hpp"

using namespace bpfbench;

namespace {

struct Row {
  int64_t number;
  const char *unit;
  ParamType type;
  int64_t expected;
};

// The message of a failed result (a success fails the test).
std::string error_of(const Result<int64_t> &r) {
  REQUIRE_FALSE(r);
  return r.error().message;
}

}  // namespace

TEST_CASE("apply_unit scales by type", "[units]") {
  const Row rows[] = {
      {512, "K", ParamType::Size, 512 * 1024},
      {4, "M", ParamType::Size, 4 << 20},
      {1, "G", ParamType::Size, int64_t{1} << 30},
      {7, "", ParamType::Size, 7},
      {5, "K", ParamType::Int, 5000},
      {2, "M", ParamType::Int, 2000000},
      {3, "G", ParamType::Int, 3000000000},
      {42, "", ParamType::Int, 42},
      {3, "s", ParamType::Duration, 3000000000},
      {500, "ms", ParamType::Duration, 500000000},
      {7, "us", ParamType::Duration, 7000},
      {9, "ns", ParamType::Duration, 9},
      {0, "", ParamType::Duration, 0},  // 0 needs no unit (any other bare duration is an error)
      {1, "", ParamType::Bool, 1},
  };
  for (const Row &r : rows) {
    INFO(r.number << r.unit << " as " << to_string(r.type));
    auto v = apply_unit(r.number, r.unit, r.type);
    REQUIRE(v);
    CHECK(*v == r.expected);
  }
}

TEST_CASE("apply_unit rejects units that do not fit the type", "[units]") {
  CHECK(error_of(apply_unit(5, "ms", ParamType::Size)) == "unit 'ms' does not apply to a size (use K, M or G)");
  CHECK(error_of(apply_unit(5, "K", ParamType::Duration)) ==
        "unit 'K' does not apply to a duration (use s, ms, us or ns)");
  CHECK(error_of(apply_unit(5, "s", ParamType::Int)) == "unit 's' does not apply to an integer (use K, M or G)");
  CHECK(error_of(apply_unit(1, "K", ParamType::Bool)) == "unit 'K' does not apply to a bool");
  CHECK(error_of(apply_unit(5, "Q", ParamType::Size)) == "unknown unit 'Q' for a size (use K, M or G)");
  CHECK_FALSE(apply_unit(5, "k", ParamType::Int));  // units are case-sensitive
}

TEST_CASE("apply_unit detects overflow", "[units]") {
  CHECK(error_of(apply_unit(int64_t{1} << 40, "G", ParamType::Size)) == "1099511627776G is too large");
  CHECK_FALSE(apply_unit(10000000000, "s", ParamType::Duration));
  CHECK_FALSE(apply_unit(-(int64_t{1} << 40), "G", ParamType::Size));
  // 2^33 G = 2^63 is one past INT64_MAX; one less fits.
  CHECK_FALSE(apply_unit(int64_t{1} << 33, "G", ParamType::Size));
  auto edge = apply_unit((int64_t{1} << 33) - 1, "G", ParamType::Size);
  REQUIRE(edge);
  CHECK(*edge == ((int64_t{1} << 33) - 1) * (int64_t{1} << 30));
}

TEST_CASE("parse_quantity reads manifest strings", "[units]") {
  CHECK(*parse_quantity("512K", ParamType::Size) == 524288);
  CHECK(*parse_quantity("1G", ParamType::Size) == 1073741824);
  CHECK(*parse_quantity("3s", ParamType::Duration) == 3000000000);
  CHECK(*parse_quantity("250ms", ParamType::Duration) == 250000000);
  // A bare number is no duration (it was seconds), but for 0.
  CHECK(error_of(parse_quantity("10", ParamType::Duration)) == "10 has no unit: write 10s, 10ms, 10us or 10ns");
  CHECK(*parse_quantity("0", ParamType::Duration) == 0);
  CHECK(*parse_quantity("-3", ParamType::Int) == -3);
  CHECK(*parse_quantity("100", ParamType::Int) == 100);
  CHECK(error_of(parse_quantity("K", ParamType::Size)) == "'K' is not a number");
  CHECK_FALSE(parse_quantity("", ParamType::Size));
  CHECK(error_of(parse_quantity("5ms", ParamType::Size)) == "unit 'ms' does not apply to a size (use K, M or G)");
  CHECK(error_of(parse_quantity("99999999999999999999", ParamType::Int)) == "'99999999999999999999' is too large");
}
