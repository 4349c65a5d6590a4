#include "runtime/point_load.hpp"

#include <bpf/libbpf.h>

#include "runtime/run_point.hpp"

namespace bpfbench {

namespace {

// Attaches one program from its SEC(), mounting tracefs first when the section needs it.
Result<> attach_program(BpfObject &obj, const std::string &function, const std::string &section, const AttachSpec &as) {
  if (section_needs_tracefs(section)) BB_TRY(ensure_tracefs());
  return obj.attach(function, as);
}

}  // namespace

Result<> PointLoad::enter_memory_cgroup(const std::vector<MetricSpec> &metrics) {
  bool need = false, need_peak = false;
  for (const auto &m : metrics)
    if (m.source.kind == MetricSourceKind::CgroupMemory) {
      need = true;
      need_peak |= m.source.operand == "peak";
    }
  if (!need) return {};
  return cgroup.enter(need_peak);
}

// With `stats_log` the verifier writes its stats line into our buffers (log_level 4).
Result<> PointLoad::open_and_load(const std::vector<uint8_t> &object, const std::vector<SetupActionSpec> &actions,
                                  const PlanPoint &p, const FamilyManifest &f, bool verbose, bool stats_log) {
  BB_TRY(obj.open(object, object_name_for(f)));
  BB_TRY(configure_object(obj, p, f, functions));
  // Setup actions (family.json `setup`): prepared before load (libbpf forgets inner
  // map definitions at load), run after it (maps exist), before attach.
  if (auto prepared = prepare_setup_actions(actions, obj, setup); !prepared)
    return Error("setup: " + prepared.error().message);
  if (stats_log) vlog.arm(obj, functions);
  return obj.load(verbose);
}

Result<> PointLoad::load(const std::vector<uint8_t> &object, const std::vector<SetupActionSpec> &actions,
                         const PlanPoint &p, const FamilyManifest &f, bool verbose) {
  if (Result<> loaded = open_and_load(object, actions, p, f, verbose, true); !loaded) {
    // A log_level 4 log holds only the stats: load again for the verifier's complaint.
    if (!loaded.error().bpf || loaded.error().bpf->phase != BpfPhase::Load) return loaded;
    obj.reset();
    vlog = VerifierStatsLog{};
    setup.inner.clear();
    BB_TRY(open_and_load(object, actions, p, f, verbose, false));
  }
  return {};
}

void PointLoad::read_prog_facts(std::vector<ProgFacts> &facts) const {
  for (const auto &fn : functions)
    if (int fd = obj.program_fd(fn); fd >= 0)
      if (auto got = bpfbench::read_prog_facts(fd, fn, vlog.log(fn))) facts.push_back(*got);
}

Result<> PointLoad::attach(const FamilyManifest &f, const ProgramSpec &prog, const std::string &uprobe_binary) {
  if (!prog.function.empty() && prog.attach != AttachKind::None && prog.attach != AttachKind::TestRun)
    BB_TRY(attach_program(obj, prog.function, prog.section, AttachSpec{prog.attach, prog.target, uprobe_binary}));
  // Extra programs work alongside (gp-latency's fexit-side program, a load generator):
  // attached from their SEC(), all but the test_run driver, which is run, not attached.
  for (const auto &x : attached_extra_programs(f, prog)) {
    const char *sec = obj.program(x) ? bpf_program__section_name(obj.program(x)) : nullptr;
    BB_TRY(attach_program(obj, x, sec ? sec : "", AttachSpec{}));
  }
  return {};
}

}  // namespace bpfbench
