// Semantic check: the AST against the family manifests; resolves every setting's values.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "compiler/ast.hpp"
#include "compiler/diagnostics.hpp"
#include "compiler/manifest.hpp"

namespace bpfbench {

// One sweep dimension: `params` take values[i] together (a zipped sweep names several).
struct SweepAxis {
  std::vector<std::string> params;
  std::vector<ParamValue> values;
  std::vector<SourceRange> ranges;  // where each value was written
  SourceRange range;                // the statement
};

struct FixedSetting {
  std::string name;
  ParamValue value;
  SourceRange range;  // invalid when it is the manifest/builtin default
};

struct CheckedBench {
  const FamilyManifest *family = nullptr;
  size_t index = 0;  // file order
  std::string suite;
  SourceRange range;
  SourceRange family_range;           // the family name after `bench`
  std::optional<std::string> label;  // template, e.g. "rb-{sample_rate}"
  SourceRange label_range;
  std::vector<FixedSetting> fixed;   // every family param and builtin: one value
  std::vector<SweepAxis> axes;       // product, first = outermost
  std::vector<std::string> report;
  size_t point_count = 1;
};

struct CheckedProgram {
  std::vector<CheckedBench> benches;
};

// Benches with more points than this get a warning (not an error).
constexpr size_t kManyPointsWarning = 64;
// A plan never holds more points than this (a product gone wrong must not exhaust memory).
constexpr size_t kMaxPlanPoints = 1000000;

// `nproc` is predefined for `let`-style use: [1..nproc].
std::optional<CheckedProgram> check(const ast::File &file, const FamilyRegistry &families,
                                    int64_t nproc, Diagnostics &diags);

}  // namespace bpfbench
