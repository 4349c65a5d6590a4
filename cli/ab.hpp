// `bpfbench ab`: two variants of the same points run alternately (ABBA), reported as paired
// B/A ratios with a CI, a verdict and suite geomeans (results/paired.hpp, ab_report.hpp).
// What it compares and how is session/ab_args.hpp; matching and running, session/ab_session.hpp.
#pragma once

#include <CLI/CLI.hpp>

#include "cli/commands.hpp"
#include "session/ab_args.hpp"

namespace bpfbench::cli {

struct AbCommand {
  AbArgs args;
  CLI::App *cmd = nullptr;
};

void add_ab_command(CLI::App &app, AbCommand &ab);
int cmd_ab(const AbArgs &a);

}  // namespace bpfbench::cli
