#include "runtime/verify_point.hpp"

#include <fmt/format.h>

#include "util/escape.hpp"
#include "util/sha256.hpp"
#include "runtime/bpf_object.hpp"
#include "runtime/run_point.hpp"
#include "runtime/setup_actions.hpp"

namespace bpfbench {

namespace {

// What the load depends on: the object, the family, the program and what configure_object
// writes before load (bb_producers, the rodata / map_size / map_extra params).
std::string load_key(const PlanPoint &p, const FamilyManifest &f, const std::vector<uint8_t> &object) {
  std::string key = sha256_hex(std::string_view(reinterpret_cast<const char *>(object.data()), object.size()));
  key += '\0' + f.dir + '\0' + f.name + '\0' + p.program + '\0' + std::to_string(p.producers);
  for (const auto &[name, value] : p.params) {
    const ParamSpec *spec = f.param(name);
    if (!spec || spec->dest == ParamDest::Template || spec->dest == ParamDest::Runtime) continue;
    key += '\0' + name + '=' + value.to_string();
  }
  return key;
}

PointCheck refusal_of(const Error &e) {
  PointCheck c;
  c.status = PointCheck::Status::Refused;
  if (!e.bpf) {
    c.reason = e.message.substr(0, e.message.find('\n'));
    return c;
  }
  c.reason = e.bpf->summary();
  if (e.bpf->phase == BpfPhase::Load && !e.bpf->verifier_log.empty()) {
    c.program = program_in_libbpf_message(e.bpf->message);
    c.log = e.bpf->verifier_log;
    c.complaint = read_verifier_complaint(c.log);
  }
  return c;
}

}  // namespace

PointCheck verify_point(const PlanPoint &p, const FamilyManifest &f, const std::vector<uint8_t> &object,
                        FeatureProber &prober) {
  PointCheck c;
  const ProgramSpec *prog = f.program(p.program.empty() ? f.default_program : p.program);
  if (!prog) return refusal_of(Error("family '" + f.name + "' has no program '" + p.program + "'"));
  // As run_point: a missing feature skips the point, one the machine keeps from being probed fails it.
  for (const auto &req : prog->requires_features) {
    FeatureStatus st = prober.check(req);
    if (!st.available && st.environment) return refusal_of(Error(st.reason));
    if (!st.available) {
      c.status = PointCheck::Status::Skipped;
      c.reason = FeatureProber::describe(req) + " not supported by this kernel (" + st.reason + ")";
      return c;
    }
  }
  const std::vector<std::string> functions = loaded_functions(*prog);
  if (functions.empty() || object.empty()) {
    c.status = PointCheck::Status::NoPrograms;
    return c;
  }
  BpfObject obj;
  SetupState setup;  // what preparing the setup actions keeps (inner map definitions)
  auto load = [&]() -> Result<> {
    BB_TRY(obj.open(object, object_name_for(f)));
    BB_TRY(configure_object(obj, p, f, functions));
    if (auto prepared = prepare_setup_actions(setup_actions_for(f, *prog), obj, setup); !prepared)
      return Error("setup: " + prepared.error().message);
    return obj.load();
  };
  if (Result<> loaded = load(); !loaded) return refusal_of(loaded.error());
  return c;
}

PointCheck PointVerifier::check(size_t id, const PlanPoint &p, const FamilyManifest &f,
                                const std::vector<uint8_t> &object) {
  const std::string key = load_key(p, f, object);
  if (auto it = done_.find(key); it != done_.end()) {
    PointCheck c = it->second.second;
    c.same_as = it->second.first;
    return c;
  }
  PointCheck c = verify_point(p, f, object, prober_);
  done_.emplace(key, std::make_pair(id, c));
  return c;
}

std::string format_refusal(const RefusalPlace &where, const PointCheck &c, const KeptLog &log) {
  const std::string bench = fmt::format("bench '{}'{}", printable_text(where.label),
                                        where.side.empty() ? "" : " in " + printable_text(where.side));
  if (!c.by_verifier())
    return fmt::format("{}: error: {} failed: {}\n", where.location, bench, printable_text(c.reason));
  const VerifierComplaint &v = c.complaint;
  std::string out = fmt::format("{}: error: {}: the verifier refused program '{}': {}\n", where.location, bench,
                                printable_text(c.program), printable_text(v.error.empty() ? c.reason : v.error));
  if (!v.insn.empty()) {
    const std::string at =
        v.source_line > 0 ? fmt::format("{}:{}: ", printable_text(where.source_file), v.source_line) : std::string();
    out += fmt::format("{}note: at instruction {}\n", at, printable_text(v.insn));
    if (v.source_line > 0) out += fmt::format("    {}\n", printable_text(v.source_text));
  }
  if (!log.path.empty())
    out += fmt::format("note: the verifier's whole log ({} lines): {}\n", count_lines(c.log), printable_text(log.path));
  else out += fmt::format("note: the verifier's whole log was not kept: {}\n", printable_text(log.error));
  return out;
}

}  // namespace bpfbench
