// Semantic check: the AST against the family manifests; resolves every setting's values.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "compiler/bdsl/ast.hpp"
#include "compiler/family/constraints.hpp"
#include "compiler/bdsl/diagnostics.hpp"
#include "compiler/family/manifest.hpp"
#include "compiler/bdsl/plan.hpp"

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
  SourceRange family_range;          // the family name after `bench`
  std::optional<std::string> label;  // template, e.g. "rb-{sample_rate}"
  SourceRange label_range;
  std::vector<FixedSetting> fixed;  // every family param and builtin: one value
  std::vector<SweepAxis> axes;      // product, first = outermost
  std::vector<std::string> report;
  double precision_pct = 0;  // `until ci < X%`: X; 0 = fixed duration
  SourceRange until_range;   // the bench's own `until` (invalid when none or from defaults)
  // `baseline < name value; ... >`: the values its baseline point overrides (each main
  // point runs after a baseline point; runtime/baseline.hpp adds `<metric>_adj`).
  std::optional<std::vector<FixedSetting>> baseline;
  SourceRange baseline_range;
  std::vector<Comparison> where;              // `where`: points for which one is false are dropped
  std::vector<PlanCode> code;                 // `code <hook> { ... }` (compiler/bdsl/code_blocks.hpp)
  std::vector<PlanExpectation> expectations;  // `expect` (compiler/bdsl/expect_check.hpp)
  size_t point_count = 1;                     // before `where` filtering
};

struct CheckedProgram {
  std::vector<CheckedBench> benches;
};

// Benches with more points than this get a warning (not an error).
constexpr size_t kManyPointsWarning = 64;
// A plan never holds more points than this (a product gone wrong must not exhaust memory).
// Every point is measured for at least 1 s (`duration`'s minimum), so 100,000 points are
// more than 27 hours of measuring: no runnable plan is larger. In memory a point is about
// 1.3 KB (measured: 1M points took 1.33 GB), so the plan stays near 130 MB.
constexpr size_t kMaxPlanPoints = 100000;
// What a plan may hold in memory, estimated before it is expanded: each point costs
// kPointBytes plus a copy of its bench's `code` blocks and label template, so a 64 KB
// `code` block swept over 100,000 points is refused instead of taking 6.4 GB.
constexpr size_t kPointBytes = 2048;
constexpr size_t kMaxPlanBytes = size_t{512} << 20;

// `nproc` is predefined for `let`-style use: [1..nproc].
std::optional<CheckedProgram> check(const ast::File &file, const FamilyRegistry &families, int64_t nproc,
                                    Diagnostics &diags);

}  // namespace bpfbench
