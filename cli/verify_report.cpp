#include "cli/verify_report.hpp"

#include <fmt/format.h>

#include <cstdio>

#include "cli/commands.hpp"
#include "util/escape.hpp"

namespace bpfbench::cli {

namespace {

const char *points_plural(size_t n) { return n == 1 ? "" : "s"; }

// "bench 'label'", "bench 'label' in B".
std::string bench_name(const std::string &label, const std::string &side) {
  return fmt::format("bench '{}'{}", printable_text(label), side.empty() ? "" : " in " + printable_text(side));
}

void print_refusal(const Refusal &r) {
  if (r.check->same_as) {
    fmt::print(stderr, "{}: error: {}: refused as {} above (the same program and settings)\n", r.where.location,
               bench_name(r.where.label, r.where.side),
               r.same_as ? bench_name(r.same_as->first, r.same_as->second) : std::string("another bench"));
    return;
  }
  fmt::print(stderr, "{}", format_refusal(r.where, *r.check, r.kept));
}

}  // namespace

std::string tally_text(const VerifyTally &t) {
  std::string out = fmt::format("{} point{} verified", t.verified, points_plural(t.verified));
  if (t.skipped)
    out += fmt::format(", {} not loaded (a kernel feature {} is missing here)", t.skipped,
                       t.skipped == 1 ? "it requires" : "they require");
  if (t.no_programs) out += fmt::format(", {} load{} no BPF program", t.no_programs, t.no_programs == 1 ? "s" : "");
  return out;
}

VerifyTally verify_and_print(const std::vector<VerifySide> &sides, const StopSource &stop) {
  return verify_points(sides, stop, print_refusal);
}

std::optional<int> verify_before_measuring(const std::vector<VerifySide> &sides, const StopSource &stop) {
  VerifyTally t = verify_and_print(sides, stop);
  // A stop goes the command's own way: `run` still writes its (empty) results files, `ab`
  // its report, and both exit with the signal's code.
  if (t.interrupted || t.refused == 0) return std::nullopt;
  fmt::print(stderr, "bpfbench: {} point{} refused before anything was measured ({})\n", t.refused,
             points_plural(t.refused), tally_text(t));
  return kExitBadInput;
}

}  // namespace bpfbench::cli
