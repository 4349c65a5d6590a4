// Test helper: the bpfbench binary under test and the source tree, from the test target's
// compile definitions (tests/CMakeLists.txt). One definition for every test file: the
// test target is a unity build, so a per-file copy would be a redefinition.
#pragma once

#include <string>

namespace bpfbench::test {

inline const std::string kBin = BPFBENCH_BINARY;
inline const std::string kSrc = BPFBENCH_SOURCE_DIR;

}  // namespace bpfbench::test
