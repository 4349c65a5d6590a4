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
    std::string err;
    auto v = apply_unit(r.number, r.unit, r.type, &err);
    REQUIRE(v.has_value());
    CHECK(*v == r.expected);
    CHECK(err.empty());
  }
}

TEST_CASE("apply_unit rejects units that do not fit the type", "[units]") {
  std::string err;
  CHECK_FALSE(apply_unit(5, "ms", ParamType::Size, &err));
  CHECK(err == "unit 'ms' does not apply to a size (use K, M or G)");
  CHECK_FALSE(apply_unit(5, "K", ParamType::Duration, &err));
  CHECK(err == "unit 'K' does not apply to a duration (use s, ms, us or ns)");
  CHECK_FALSE(apply_unit(5, "s", ParamType::Int, &err));
  CHECK(err == "unit 's' does not apply to an integer (use K, M or G)");
  CHECK_FALSE(apply_unit(1, "K", ParamType::Bool, &err));
  CHECK(err == "unit 'K' does not apply to a bool");
  CHECK_FALSE(apply_unit(5, "Q", ParamType::Size, &err));
  CHECK(err == "unknown unit 'Q' for a size (use K, M or G)");
  CHECK_FALSE(apply_unit(5, "k", ParamType::Int, &err));  // units are case-sensitive
  // A null error pointer is allowed.
  CHECK_FALSE(apply_unit(5, "ms", ParamType::Size, nullptr));
}

TEST_CASE("apply_unit detects overflow", "[units]") {
  std::string err;
  CHECK_FALSE(apply_unit(int64_t{1} << 40, "G", ParamType::Size, &err));
  CHECK(err == "1099511627776G is too large");
  CHECK_FALSE(apply_unit(10000000000, "s", ParamType::Duration, &err));
  CHECK_FALSE(apply_unit(-(int64_t{1} << 40), "G", ParamType::Size, &err));
  // 2^33 G = 2^63 is one past INT64_MAX; one less fits.
  CHECK_FALSE(apply_unit(int64_t{1} << 33, "G", ParamType::Size, &err));
  auto edge = apply_unit((int64_t{1} << 33) - 1, "G", ParamType::Size, &err);
  REQUIRE(edge);
  CHECK(*edge == ((int64_t{1} << 33) - 1) * (int64_t{1} << 30));
}

TEST_CASE("parse_quantity reads manifest strings", "[units]") {
  std::string err;
  CHECK(*parse_quantity("512K", ParamType::Size, &err) == 524288);
  CHECK(*parse_quantity("1G", ParamType::Size, &err) == 1073741824);
  CHECK(*parse_quantity("3s", ParamType::Duration, &err) == 3000000000);
  CHECK(*parse_quantity("250ms", ParamType::Duration, &err) == 250000000);
  // A bare number is no duration (it was seconds), but for 0.
  CHECK_FALSE(parse_quantity("10", ParamType::Duration, &err));
  CHECK(err == "10 has no unit: write 10s, 10ms, 10us or 10ns");
  CHECK(*parse_quantity("0", ParamType::Duration, &err) == 0);
  CHECK(*parse_quantity("-3", ParamType::Int, &err) == -3);
  CHECK(*parse_quantity("100", ParamType::Int, &err) == 100);
  CHECK_FALSE(parse_quantity("K", ParamType::Size, &err));
  CHECK(err == "'K' is not a number");
  CHECK_FALSE(parse_quantity("", ParamType::Size, &err));
  CHECK_FALSE(parse_quantity("5ms", ParamType::Size, &err));
  CHECK(err == "unit 'ms' does not apply to a size (use K, M or G)");
  CHECK_FALSE(parse_quantity("99999999999999999999", ParamType::Int, &err));
  CHECK(err == "'99999999999999999999' is too large");
}
