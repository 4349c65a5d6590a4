// Errors as values: Result<T>, the one return type of the runtime's fallible steps, and
// BpfError, what failed in a libbpf step (phase, errno, verifier log tail).
#pragma once

#include <optional>
#include <string>
#include <utility>
#include <variant>

namespace bpfbench {

enum class BpfPhase { Open, Setup, Load, Attach };
const char *to_string(BpfPhase p);

// What went wrong, in which phase. `log_tail` is the end of the verifier log for load
// failures (else libbpf's last messages), `err` a positive errno (0 = none).
// `verifier_log` is the verifier's whole log when it refused a program ("" otherwise):
// kept for a file of its own (runtime/verifier_log.hpp), never printed whole.
struct BpfError {
  BpfError() = default;
  BpfError(BpfPhase p, int e, std::string m, std::string tail = {})
      : phase(p),
        err(e),
        message(std::move(m)),
        log_tail(std::move(tail)) {}

  BpfPhase phase = BpfPhase::Open;
  int err = 0;
  std::string message;
  std::string log_tail;
  std::string verifier_log;

  // "load: prog 'x': Permission denied (EACCES)" + the log tail on following lines.
  std::string to_string() const;
  // The first line of to_string(), without the log tail.
  std::string summary() const;
};

// "Permission denied (EPERM)".
std::string errno_text(int err);

// Why a step failed: one line for the user, and the details when a libbpf step failed.
struct Error {
  std::string message;
  std::optional<BpfError> bpf;

  explicit Error(std::string m) : message(std::move(m)) {}
  Error(BpfError e) : message(e.to_string()), bpf(std::move(e)) {}  // NOLINT: implicit on purpose
};

// A value or an Error (std::expected is C++23). Test it with `if (!r)`, read the value
// with `*r` / `r->`, the failure with `r.error()`. Reading the wrong side is a bug that
// std::get reports by throwing std::bad_variant_access.
template <class T = void>
class [[nodiscard]] Result {
 public:
  Result(T value) : v_(std::in_place_index<0>, std::move(value)) {}  // NOLINT: implicit on purpose
  Result(Error e) : v_(std::in_place_index<1>, std::move(e)) {}      // NOLINT
  Result(BpfError e) : Result(Error(std::move(e))) {}                // NOLINT

  explicit operator bool() const { return v_.index() == 0; }
  T &operator*() { return std::get<0>(v_); }
  const T &operator*() const { return std::get<0>(v_); }
  T *operator->() { return &std::get<0>(v_); }
  const T *operator->() const { return &std::get<0>(v_); }
  const Error &error() const { return std::get<1>(v_); }

 private:
  std::variant<T, Error> v_;
};

// Success without a value, or an Error.
template <>
class [[nodiscard]] Result<void> {
 public:
  Result() = default;
  Result(Error e) : e_(std::move(e)) {}            // NOLINT: implicit on purpose
  Result(BpfError e) : e_(Error(std::move(e))) {}  // NOLINT

  explicit operator bool() const { return !e_; }
  const Error &error() const { return *e_; }

 private:
  std::optional<Error> e_;
};

// Returns early from a function returning Result<...> when `expr` (a Result) failed.
#define BB_TRY(expr)                                                                                                   \
  do {                                                                                                                 \
    if (auto bb_try_r_ = (expr); !bb_try_r_) return bb_try_r_.error();                                                 \
  } while (0)

}  // namespace bpfbench
