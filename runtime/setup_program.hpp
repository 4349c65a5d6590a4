// The setup action `run_program`: one BPF_PROG_TEST_RUN of a template's program at setup,
// so a program fills maps with keys user space cannot easily write (LPM prefixes, bloom
// filter values, hash maps of structs, random keys), its return value checked.
#pragma once

#include <cstdint>
#include <string>

#include "compiler/manifest.hpp"
#include "results/point_result.hpp"
#include "runtime/bpf_object.hpp"

namespace bpfbench {

// Before load: turns autoload on for the action's program (the point's own programs are
// the only ones autoloaded otherwise). "" or why it cannot run (no such program).
std::string prepare_setup_program(const SetupActionSpec &a, const BpfObject &obj);

// After load: runs the program once with BPF_PROG_TEST_RUN (no input; a raw_tp or syscall
// program) and compares its return value, read as a signed 32-bit int, with `expect`.
// Sets `check` (name "run_program", expected `expect`, observed the return value) when the
// program ran; returns "" or why the action failed: the run failed, or the value differs
// ("run_program 'bb_fill' returned 999, expected 1000"; a negative value is shown as the
// errno it usually is).
std::string run_setup_program(const SetupActionSpec &a, BpfObject &obj, uint64_t expect, SelfCheck &check, bool &ran);

}  // namespace bpfbench
