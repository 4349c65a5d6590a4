#include <fmt/format.h>

#include "cli/ab.hpp"
#include "cli/options.hpp"
#include "cli/values.hpp"

namespace bpfbench::cli {

namespace {

constexpr int64_t kMaxPairs = 10000;
constexpr int64_t kMaxTimeNs = 7 * 24 * 3600 * int64_t{1'000'000'000};
constexpr int64_t kMaxCopies = 64;
constexpr int64_t kMinSliceNs = 5'000'000;  // the settle after a switch is 2 ms

// How points are compared: the method, and the interleaved points' loads and slices.
void add_interleave_options(CLI::App *cmd, AbArgs &a) {
  cmd->add_option_function<std::string>(
         "--method",
         [&a](const std::string &v) { a.method = v == "turns" ? AbMethodChoice::Turns : AbMethodChoice::Auto; },
         "auto (default): interleave A and B in one process where the point allows it, whole turns elsewhere; "
         "turns: whole point runs in ABBA turns for every point")
      ->check(CLI::IsMember({"auto", "turns"}));
  add_value<int64_t>(
      cmd, "--copies", integer_in(1, kMaxCopies), [&a](int64_t n) { a.interleave.copies = size_t(n); },
      "Interleaved: loads of each side at once, each a unit of the CI (default 8)", "K");
  add_value<int64_t>(
      cmd, "--slice", duration_in(kMinSliceNs, 1'000'000'000), [&a](int64_t ns) { a.interleave.slice_ns = ns; },
      "Interleaved: how long one load is active before the next (default 20ms)", "DURATION");
  add_value<int64_t>(
      cmd, "--block", duration_in(0, kMaxTimeNs), [&a](int64_t ns) { a.interleave.block_ns = ns; },
      "Interleaved: fresh loads after this long (default 1s; 0 keeps the first loads throughout)", "DURATION");
  cmd->add_flag("--prog-stats", a.interleave.prog_stats,
                "Interleaved: also the in-kernel ns per run of A and B from the same slices (BPF run-time stats)");
}

// What A and B are: two files, one file with --a/--b settings or template folders, two
// guest kernels, or A against itself.
void add_variant_options(CLI::App *cmd, AbArgs &a) {
  auto assignment = checked(non_empty("NAME=VALUE"), "NAME=VALUE");
  cmd->add_option("--a", a.a_sets, "A's setting NAME=VALUE for every point that has NAME (repeatable)")
      ->allow_extra_args(false)
      ->check(assignment);
  cmd->add_option("--b", a.b_sets, "B's setting NAME=VALUE (repeatable)")->allow_extra_args(false)->check(assignment);
  auto dir = checked(non_empty("a folder name"), "DIR");
  cmd->add_option("--a-templates", a.a_templates, "A's families come from this folder only (and --templates)")
      ->check(dir);
  cmd->add_option("--b-templates", a.b_templates, "B's families come from this folder only (and --templates)")
      ->check(dir);
  auto kernel = checked(non_empty("a kernel name or path"), "KERNEL");
  cmd->add_option("--a-kernel", a.a_kernel, "Run A's turns in a qemu guest of this kernel (as run --kernel)")
      ->check(kernel);
  cmd->add_option("--b-kernel", a.b_kernel, "Run B's turns in a qemu guest of this kernel")->check(kernel);
  cmd->add_option("--accel", a.accel, "qemu accelerator of the --a-kernel/--b-kernel guests: auto, kvm or tcg")
      ->check(CLI::IsMember({"auto", "kvm", "tcg"}));
  add_value<double>(
      cmd, "--boot-timeout", number_in(0, 24 * 3600, true), [&a](double s) { a.boot_timeout_s = s; },
      "Seconds for each --a-kernel/--b-kernel guest to come up", "SECONDS");
  cmd->add_flag("--control", a.control, "Run A against itself: the noise floor of each point");
}

// What counts as a change, and when a point's pairs stop.
void add_verdict_options(CLI::App *cmd, AbArgs &a) {
  cmd->add_option("--floor-from", a.floor_from, "A control run's JSON: changes within its noise floor are no change")
      ->check(checked(non_empty("a file name"), "FILE"));
  add_value<double>(
      cmd, "--threshold", number_in(0, 1000), [&a](double v) { a.threshold_pct = v; },
      "Changes up to this percent are within noise (default 0)", "PCT");
  add_value<double>(
      cmd, "--fail-on-regression", percent_in(0.01, 100), [&a](double v) { a.fail_on_regression_pct = v; },
      "Exit 1 when a point is slower by more than PCT with a CI that excludes no change", "PCT");
  add_value<double>(
      cmd, "--precision", percent_in(0.01, 100), [&a](double v) { a.rule.precision_pct = v; },
      "Pairs continue until the ratio's CI half-width is under PCT (default 1)", "PCT");
  add_value<int64_t>(
      cmd, "--max-pairs", integer_in(1, kMaxPairs), [&a](int64_t n) { a.rule.max_pairs = size_t(n); },
      "At most this many pairs per point (default 20; at least 3)", "N");
  add_value<int64_t>(
      cmd, "--max-time", duration_in(1'000'000'000, kMaxTimeNs),
      [&a](int64_t ns) { a.rule.max_time_s = double(ns) / 1e9; },
      "Stop a point's pairs after this long (after 3 pairs at least)", "DURATION");
  cmd->add_option_function<std::string>(
         "--turn-value",
         [&a](const std::string &v) { a.turn_value = v == "mean" ? AbTurnValue::Mean : AbTurnValue::Fast; },
         "A turn's value: fast (default) = the 90th percentile of its 100 ms intervals in the metric's better "
         "direction, which a slow spell of the machine moves only when it covers most of the turn; mean = the mean "
         "of its intervals at the point's own interval")
      ->check(CLI::IsMember({"fast", "mean"}));
}

}  // namespace

void add_ab_command(CLI::App &app, AbCommand &ab) {
  AbArgs &a = ab.args;
  ab.cmd = app.add_subcommand(
      "ab", "Is B faster than A? Each point's two variants interleaved in one process (whole ABBA turns where they "
            "cannot share one), B/A ratios with a CI over loads and a verdict");
  ab.cmd->add_option("FILES", a.files, "before.bdsl after.bdsl, or one file with --a/--b or --control")
      ->required()
      ->expected(1, 2)
      ->check(checked(non_empty("a .bdsl file name"), "FILE"));
  ab.cmd->add_option("--templates", a.in.template_dirs, "Also look for families in this folder (repeatable)")
      ->allow_extra_args(false)
      ->check(checked(non_empty("a folder name"), "DIR"));
  add_include_dir_option(ab.cmd, a.in);
  add_harness_options(ab.cmd, a.in);
  add_variant_options(ab.cmd, a);
  ab.cmd->add_option("--format", a.format, "text, markdown or json")
      ->check(CLI::IsMember({"text", "markdown", "json"}));
  add_verdict_options(ab.cmd, a);
  add_interleave_options(ab.cmd, a);
  ab.cmd->add_option("--only", a.only, "Only the points with this label (of A), or matching this glob (e.g. 'rb-*')")
      ->check(checked(non_empty("a point label or glob"), "LABEL"))
      ->type_name("LABEL");
  ab.cmd->add_flag("-v,--verbose", a.verbose, "Also print libbpf/verifier details");
}

}  // namespace bpfbench::cli
