// Writes a file so readers see the old contents or the new ones, never a torn mix.
#pragma once

#include <string>

namespace bpfbench {

// Writes `data` to a temporary file next to `path`, fsyncs it and renames it over `path`
// (rename is atomic within a filesystem). Returns "" or why it failed; on failure the
// temporary file is removed and `path` is untouched.
std::string write_file_atomic(const std::string &path, const std::string &data);

}  // namespace bpfbench
