// Labels on results that came from a guest: which kernel produced them, and under TCG the
// "emulated: timings not comparable" mark, in text and in JSON.
#pragma once

#include <optional>
#include <string>

#include <nlohmann/json.hpp>

#include "vm/kernel_cache.hpp"
#include "vm/qemu.hpp"

namespace bpfbench::vm {

inline constexpr const char *kEmulatedNote = "emulated: timings not comparable";

// Environment variables the guest's bpfbench sees (set on the kernel command line, so
// init and the job inherit them): the hook an exporter uses to mark its output.
inline constexpr const char *kEnvKernel = "BPFBENCH_VM_KERNEL";  // guest release
inline constexpr const char *kEnvAccel = "BPFBENCH_VM_ACCEL";    // kvm | tcg

// {"kernel", "package", "version", "accel", "emulated", "note"?}
nlohmann::json vm_info(const KernelSpec &, Accel);

// Inside a guest: {"kernel", "accel", "emulated", "note"?} from the environment; nullopt
// on the host. For JSON exporters (`environment.vm`).
std::optional<nlohmann::json> guest_vm_info_from_env();

// One line for the top and the end of a guest's output.
std::string vm_banner(const KernelSpec &, const AccelChoice &);

// Appends `[<release>, emulated: timings not comparable]` (TCG) or `[<release>, kvm]` to
// every result line of streamed text output: `Summary:` lines and suite table rows.
class TextLabeler {
 public:
  TextLabeler(const KernelSpec &, Accel);
  std::string feed(const std::string &chunk);  // complete lines only
  std::string flush();                         // the unterminated rest

 private:
  std::string label_line(const std::string &line);
  std::string mark_;
  std::string pending_;
  bool in_table_ = false;
};

// Adds "vm": vm_info to a JSON results file the guest wrote (and to its "environment"
// object when it has one). The error when the file is not a JSON object.
Result<void> label_json_file(const std::string &path, const nlohmann::json &info);
// The same on text in memory: the labelled JSON, or nullopt when it is not a JSON object.
std::optional<std::string> label_json_text(const std::string &text, const nlohmann::json &info);

}  // namespace bpfbench::vm
