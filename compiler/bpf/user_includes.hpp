// Headers of one's own for templates and inline C: `#include "my_helpers.h"` beside the
// .bdsl file or the family's prog.bpf.c, and what they hold in the object cache's key.
#pragma once

#include <string>
#include <vector>

namespace bpfbench {

// The compile arguments for the folders `dirs` (each once, in order) that hold .h files:
// `-iquote DIR` so a quoted include finds a header there, and one
// `-D__BPFBENCH_USER_HEADERS=<sha256>` over their names and contents, so that editing a
// header changes the object's cache key (the cache keys on the C text and the arguments).
// Only the folders' own .h files count (not subfolders'); each is read through the checked
// input path, at most kMaxUserHeaders of them and kMaxUserHeaderBytes in all: past that
// no object is cached (`cacheable` false) rather than one keyed on a part of them.
struct UserIncludes {
  std::vector<std::string> args;
  bool cacheable = true;
};
inline constexpr size_t kMaxUserHeaders = 256;
inline constexpr size_t kMaxUserHeaderBytes = size_t{64} << 20;

UserIncludes user_includes(const std::vector<std::string> &dirs);

}  // namespace bpfbench
