// What `bpfbench ab` is asked to compare and how (cli/ab_options.cpp fills it from the
// options): the two variants, the stop rule, the method, the floors; and the combinations
// of settings that make no sense.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "results/paired.hpp"
#include "runtime/ab/ab_runner.hpp"
#include "session/inputs.hpp"

namespace bpfbench {

struct AbArgs {
  std::vector<std::string> files;           // two: before after; one: with --a/--b or --control
  FileArgs in;                              // --templates, --allow-large and the harness overrides (file unused)
  std::vector<std::string> a_sets, b_sets;  // --a/--b NAME=VALUE
  std::string a_templates, b_templates;     // --a-templates/--b-templates DIR: the side's family folder
  std::string a_kernel, b_kernel;           // --a-kernel/--b-kernel K: each side's turns in a qemu guest
  std::string accel = "auto";               // --accel for the guests
  double boot_timeout_s = 90;               // --boot-timeout for each guest
  bool control = false;
  std::string floor_from;       // a control run's JSON
  std::string format = "text";  // text | markdown | json
  double threshold_pct = 0;     // changes up to this are within noise
  std::optional<double> fail_on_regression_pct;
  AbStopRule rule;
  AbTurnValue turn_value = AbTurnValue::Fast;    // --turn-value
  AbMethodChoice method = AbMethodChoice::Auto;  // --method
  InterleaveOptions interleave;                  // --copies, --slice, --block, --prog-stats
  std::string only;                              // only points whose label contains this
  bool verbose = false;
};

// Fine, or the first combination of settings that makes no sense, as one message.
Result<void> check_ab_usage(const AbArgs &a);
// Whether A's and B's points are matched by plan position (one file, --a/--b settings
// that may change the labels) rather than by suite and label.
bool ab_match_by_position(const AbArgs &a);
// --a-kernel and --b-kernel both given: the turns run in guests (session/ab_kernels.hpp).
bool ab_kernels(const AbArgs &a);

}  // namespace bpfbench
