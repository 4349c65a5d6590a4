// The setup action `run_program`: one BPF_PROG_TEST_RUN of a template's program at setup,
// so a program fills maps with keys user space cannot easily write (LPM prefixes, bloom
// filter values, hash maps of structs, random keys), its return value checked; with
// `"input": "packet"` a packet program runs on the point's test_run packet and its output
// packet is checked too (a validation run, as the kernel's xdp-lb bench does before it
// measures).
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "compiler/family/manifest.hpp"
#include "results/point_result.hpp"
#include "runtime/bpf_object.hpp"

namespace bpfbench {

// Before load: turns autoload on for the action's program (the point's own programs are
// the only ones autoloaded otherwise), or why it cannot run (no such program).
Result<void> prepare_setup_program(const SetupActionSpec &a, const BpfObject &obj);

// What one setup run gets and what it must give back.
struct SetupRun {
  uint64_t expect = 0;                               // the return value, as a signed 32-bit int
  std::vector<uint8_t> data_in;                      // empty: no input (raw_tp, syscall)
  std::optional<std::vector<uint8_t>> expected_out;  // set: the output packet must equal it
};

// After load: runs the program once with BPF_PROG_TEST_RUN and compares its return value,
// read as a signed 32-bit int, with `run.expect`, then (when expected_out is set) its
// output packet with that. Each comparison made goes into `checks` ("run_program": the
// value; "run_program_output": the bytes, observed = bytes out, expected = bytes wanted).
// Fails when the run failed or a comparison did not hold ("run_program 'bb_fill' returned
// 999, expected 1000"; a negative value is shown as the errno it usually is; an output
// differing is shown offset by offset).
Result<> run_setup_program(const SetupActionSpec &a, BpfObject &obj, const SetupRun &run,
                           std::vector<SelfCheck> &checks);

}  // namespace bpfbench
