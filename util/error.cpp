#include "util/error.hpp"

#include <cstring>

namespace bpfbench {

const char *to_string(BpfPhase p) {
  switch (p) {
  case BpfPhase::Open: return "open";
  case BpfPhase::Setup: return "setup";
  case BpfPhase::Load: return "load";
  case BpfPhase::Attach: return "attach";
  }
  return "?";
}

std::string errno_text(int err) {
  if (err < 0) err = -err;
  const char *desc = strerrordesc_np(err);
  const char *name = strerrorname_np(err);
  std::string s = desc ? desc : ("error " + std::to_string(err));
  if (name) s += std::string(" (") + name + ")";
  return s;
}

std::string BpfError::summary() const {
  std::string s = std::string(bpfbench::to_string(phase)) + ": " + message;
  if (err) s += ": " + errno_text(err);
  return s;
}

std::string BpfError::to_string() const {
  std::string s = summary();
  if (!log_tail.empty()) s += "\n" + log_tail;
  return s;
}

}  // namespace bpfbench
