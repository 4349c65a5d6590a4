// The bpfbench subcommands: each takes parsed options and returns the process exit code.
#pragma once

#include <optional>
#include <string>
#include <vector>

#include "session/exit_codes.hpp"
#include "session/inputs.hpp"

namespace bpfbench::cli {

struct CheckArgs {
  FileArgs in;
  bool compile = false;  // also generate and compile every program
  bool verify = false;   // also load every point's programs into the verifier (implies compile)
};

struct PlanArgs {
  FileArgs in;
  bool json = false;
  bool facts = false;  // --facts: load every point's programs, add their verifier/JIT facts
};

struct EmitArgs {
  FileArgs in;
  std::optional<std::string> bench;  // bench index or family name
  std::optional<size_t> point;
};

struct ListArgs {
  std::vector<std::string> template_dirs;
  std::string file;  // optional: also the bpf_templates/ folder next to it
  bool json = false;
  bool kinds = false;  // the kind tables instead of the families
};

struct DoctorArgs {
  bool json = false;
  bool quick = false;  // skip the timed probes (steal, background load, spin test)
};

int cmd_check(const CheckArgs &a);
int cmd_plan(const PlanArgs &a);
int cmd_emit(const EmitArgs &a);
int cmd_list(const ListArgs &a);
int cmd_doctor(const DoctorArgs &a);

}  // namespace bpfbench::cli
