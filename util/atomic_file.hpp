// The one way bpfbench writes a file at a path the user gave: checked first, then written
// to a temporary file beside it and renamed over it, so readers see old or new, never a mix.
#pragma once

#include <string>
#include <vector>

#include "util/error.hpp"

namespace bpfbench {

// Nothing when `path` may be (re)placed by a file bpfbench writes, else why not: an empty
// name; a directory, device, FIFO or socket there (rename(2) would replace even /dev/null,
// as root); a parent directory that does not exist. Symlinks are followed for the check.
Result<void> check_output_target(const std::string &path);

struct OutputRequest {
  std::string option;  // how the user named it, for messages: "--json", "-o"
  std::string path;
};

// Checked before a command does any work: each output passes check_output_target, is
// none of `inputs` (the files the command read: the .bdsl and its includes, results
// files), and no two outputs are the same file. Files are compared by identity (device
// and inode once symlinks are resolved; for a file not yet there, its directory's
// identity and its name), never by spelling: `./a.json` and `a.json` are one file.
// Nothing, or the Error: one message naming the option and the path.
Result<void> check_output_paths(const std::vector<OutputRequest> &outputs, const std::vector<std::string> &inputs);

// A temporary file beside `target` (same directory: rename(2) is atomic only within one
// filesystem), created with O_EXCL under a random name, so a planted symlink cannot
// redirect it. Removed by the destructor unless commit() renamed it over `target`.
class TempOutput {
 public:
  // `suffix` ends the temporary name (gnuplot picks its format from ".svg"/".png").
  explicit TempOutput(std::string target, const std::string &suffix = "");
  ~TempOutput();
  TempOutput(const TempOutput &) = delete;
  TempOutput &operator=(const TempOutput &) = delete;

  // "" when the temporary file exists, else why it could not be created.
  const std::string &error() const { return error_; }
  const std::string &path() const { return tmp_; }
  // Writes all of `data` and fsyncs; or the Error "cannot write <target>: <reason>" (e.g.
  // "File too large" under RLIMIT_FSIZE, "No space left on device").
  Result<void> write(const std::string &data);
  // Checks the target again (it may have become a device since the command started) and
  // renames the temporary file over it; or why not (the temporary file is then removed).
  Result<void> commit();

 private:
  std::string target_, tmp_, error_;
  int fd_ = -1;
  bool committed_ = false;
};

// TempOutput + write + commit; or why it failed: the temporary file is then removed and
// `path` is untouched.
Result<void> write_file_atomic(const std::string &path, const std::string &data);

}  // namespace bpfbench
