// The setup action `prog_run`: one BPF_PROG_TEST_RUN of a program of the loaded object
// before attach (a sleepable SEC("syscall") program that creates a crypto context, fills
// maps with keys only BPF can make, ...).
#pragma once

#include <string>
#include <vector>

#include "compiler/manifest.hpp"
#include "runtime/bpf_object.hpp"

namespace bpfbench {

// The programs the `prog_run` actions of `actions` run: loaded with the point's program,
// never attached.
std::vector<std::string> setup_programs(const std::vector<SetupActionSpec> &actions);

// Runs `function` of the loaded `obj` once with BPF_PROG_TEST_RUN (no input, no repeat:
// a syscall program takes neither). "" when it ran and returned 0; else why not: the
// program is not loaded, the run failed (errno), or it returned non-zero, shown as a
// negative errno when it is one ("returned -2: No such file or directory (ENOENT)"): such
// setup programs return 0 or -errno.
std::string run_setup_program(BpfObject &obj, const std::string &function);

}  // namespace bpfbench
