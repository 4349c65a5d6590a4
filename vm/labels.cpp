#include "vm/labels.hpp"

#include <cstdint>
#include <cstdlib>

#include "util/atomic_file.hpp"
#include "util/escape.hpp"
#include "util/input_file.hpp"
#include "util/json_input.hpp"

namespace bpfbench::vm {

nlohmann::json vm_info(const KernelSpec &k, Accel accel) {
  nlohmann::json j = {{"kernel", k.release},
                      {"package", k.package},
                      {"version", k.version},
                      {"accel", to_string(accel)},
                      {"emulated", accel != Accel::Kvm}};
  if (accel != Accel::Kvm) j["note"] = kEmulatedNote;
  return j;
}

std::optional<nlohmann::json> guest_vm_info_from_env() {
  const char *kernel = std::getenv(kEnvKernel);
  const char *accel = std::getenv(kEnvAccel);
  if (!kernel || !accel) return std::nullopt;
  bool emulated = std::string(accel) != "kvm";
  nlohmann::json j = {{"kernel", kernel}, {"accel", accel}, {"emulated", emulated}};
  if (emulated) j["note"] = kEmulatedNote;
  return j;
}

std::string vm_banner(const KernelSpec &k, const AccelChoice &a) {
  std::string mode = a.accel == Accel::Kvm ? "KVM" : std::string("TCG (") + kEmulatedNote + ")";
  return "bpfbench: guest kernel " + k.label() + " in qemu, " + mode + "; " + a.why;
}

TextLabeler::TextLabeler(const KernelSpec &k, Accel accel)
    : mark_("  [" + k.release + (accel == Accel::Kvm ? ", kvm]" : std::string(", ") + kEmulatedNote + "]")) {}

std::string TextLabeler::label_line(const std::string &line) {
  // Suite tables: a "==== title ====" header, one row per point, a blank line.
  if (line.rfind("==== ", 0) == 0) {
    in_table_ = true;
    return line;
  }
  if (line.empty()) in_table_ = false;
  if (in_table_ || line.find("Summary:") != std::string::npos) return line + mark_;
  return line;
}

std::string TextLabeler::feed(const std::string &chunk) {
  pending_ += chunk;
  std::string out;
  size_t start = 0;
  for (size_t nl; (nl = pending_.find('\n', start)) != std::string::npos; start = nl + 1)
    out += label_line(pending_.substr(start, nl - start)) + "\n";
  pending_.erase(0, start);
  return out;
}

std::string TextLabeler::flush() {
  std::string rest = pending_.empty() ? "" : label_line(pending_);
  pending_.clear();
  return rest;
}

std::optional<std::string> label_json_text(const std::string &text, const nlohmann::json &info) {
  // Bounded in depth (the dump below recurses); the file's size (our guest's own run) bounds the rest.
  JsonError bad;
  std::optional<nlohmann::json> parsed =
      parse_json(text, bad, false, JsonLimits{kMaxJsonDepth, UINT64_MAX, UINT64_MAX});
  if (!parsed || !parsed->is_object()) return std::nullopt;
  nlohmann::json &j = *parsed;
  j["vm"] = info;
  if (j.contains("environment") && j["environment"].is_object()) j["environment"]["vm"] = info;
  return j.dump(2, ' ', false, nlohmann::json::error_handler_t::replace) + "\n";
}

Result<void> label_json_file(const std::string &path, const nlohmann::json &info) {
  auto in = read_input_file(path, kMaxObjectInputBytes);
  auto labelled = in ? label_json_text(in->data, info) : std::nullopt;
  if (!labelled) return Error(path + ": not a JSON object; left unlabelled");
  return write_file_atomic(path, *labelled);
}

}  // namespace bpfbench::vm
