// Errors as values: what failed in a BPF step (phase, errno, verifier log tail).
#pragma once

#include <optional>
#include <string>

namespace bpfbench {

enum class BpfPhase { Open, Setup, Load, Attach };
const char *to_string(BpfPhase p);

// What went wrong, in which phase. `log_tail` is the end of the verifier log for load
// failures (else libbpf's last messages), `err` a positive errno (0 = none).
struct BpfError {
  BpfPhase phase = BpfPhase::Open;
  int err = 0;
  std::string message;
  std::string log_tail;

  // "load: prog 'x': Permission denied (EACCES)" + the log tail on following lines.
  std::string to_string() const;
};
using MaybeError = std::optional<BpfError>;

// "Permission denied (EPERM)".
std::string errno_text(int err);

}  // namespace bpfbench
