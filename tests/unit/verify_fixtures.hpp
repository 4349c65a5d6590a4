// Two-point .bdsl files for the verify-before-measuring tests (check --verify, run, ab).
#pragma once

namespace bpfbench::test {

// Two points; the second's inline C dereferences a random number, which the verifier
// refuses at once ("R1 invalid mem access 'scalar'").
inline constexpr const char *kSecondRefused = "defaults < warmup 0s; duration 1s; >\n"
                                              "suite \"s\" <\n"
                                              "  bench trigger as \"one\" < prog tp; report hits; >\n"
                                              "  bench trigger as \"two\" < prog tp; report hits;\n"
                                              "    code body {\n"
                                              "      if (*(volatile int *)(unsigned long)bpf_get_prandom_u32()) return;\n"
                                              "    }\n"
                                              "  >\n"
                                              ">\n";
// The same two points, both accepted.
inline constexpr const char *kBothFine = "defaults < warmup 0s; duration 1s; >\n"
                                         "suite \"s\" <\n"
                                         "  bench trigger as \"one\" < prog tp; report hits; >\n"
                                         "  bench trigger as \"two\" < prog tp; report hits; >\n"
                                         ">\n";

}  // namespace bpfbench::test
