// The verifier's log of a program it refused: the few lines a user reads first (its
// complaint, the instruction and the source line it stopped at), and the whole log kept
// in a file of its own instead of on the terminal.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "util/safe_dir.hpp"
#include "util/error.hpp"

namespace bpfbench {

// What a refused program's log says, read from the log_level 1 text libbpf prints.
struct VerifierComplaint {
  std::string error;  // the verifier's first error line: "R1 invalid mem access 'scalar'"
  std::string insn;   // the instruction it stopped at: "12: (61) r1 = *(u32 *)(r1 +0)" ("" when none)
  // That instruction's source line, from the log's `; <text> @ <file>:<line>` annotations
  // (BTF line info; the kernel keeps only the file's base name). Empty when the object has
  // no line info there.
  std::string source_text;
  std::string source_file;
  int source_line = 0;
};

// The complaint in `log` (a verifier log, not libbpf's messages around it). The error line
// is the first line after the last instruction that is neither register state nor a
// source annotation nor the closing statistics; in a log without instructions (refused
// before the walk: a back-edge, a bad BTF) the last line that is not statistics.
VerifierComplaint read_verifier_complaint(const std::string &log);

// How many lines `text` has (a last line without '\n' counts).
size_t count_lines(const std::string &text);

// Where whole verifier logs are kept: the folder `bpfbench-verifier-logs` in `parent` (the
// current folder unless a test says otherwise), made (mode 0755) by the first log kept and
// checked as `run --profile`'s folder is (util/safe_dir.hpp, open_child: a symlink of
// another user's is not followed, a folder others may write is refused). Each log is
// written as a cache file is: O_EXCL under a random name, then renamed over
// `<stem>.log` (a symlink there is replaced, never followed); mode 0600, since the log
// shows kernel addresses. The last run's log of a point replaces the one before.
class VerifierLogFolder {
 public:
  static constexpr const char *kName = "bpfbench-verifier-logs";

  explicit VerifierLogFolder(std::string parent = ".") : parent_(std::move(parent)) {}

  // Keeps `log` as `<stem>.log` (stem made of letters, digits, '.', '-', '_': see
  // log_file_stem) and returns its path as the user can open it from where bpfbench runs,
  // or why it could not be written.
  Result<std::string> keep(const std::string &stem, const std::string &log);

 private:
  std::string parent_;
  std::optional<SafeDir> dir_;
};

// The program libbpf names in its "prog 'x': BPF program load failed" line ("" when none).
std::string program_in_libbpf_message(const std::string &message);

// One line for a report that has one line per point (ab's table): the first line of
// `message` (a BpfError's message carries the log tail after it) and, when `bpf` holds
// the verifier's whole log and `logs` is set, where it was kept (or why not), as
// "(verifier log: PATH)". `stem_parts` follow the label in the file name.
std::string one_line_failure(const std::string &message, const std::optional<BpfError> &bpf, const std::string &label,
                             std::vector<std::string> stem_parts, VerifierLogFolder *logs);

// A file name stem for a refused point's log: the label (what is not a letter, digit,
// '.', '-' or '_' becomes '_'), then each of `parts` (the ab side, the program) after a '.'.
std::string log_file_stem(const std::string &label, const std::vector<std::string> &parts);

}  // namespace bpfbench
