// `bpfbench bench [-w N] [-d N] [-p N] [-c N] [-a] [...] NAME`: the kernel bench's command
// line (tools/testing/selftests/bpf/bench), parsed here, turned into a plan by the session
// (session/kbench.hpp), run through `run` and printed in its formats; a symlink named
// `bench` behaves the same (docs/kernel-bench.md).
#pragma once

#include <CLI/CLI.hpp>

#include "session/kbench.hpp"

namespace bpfbench::cli {

CLI::App *add_kbench_command(CLI::App &app, KbenchArgs &a);
int cmd_kbench(const KbenchArgs &a);

}  // namespace bpfbench::cli
