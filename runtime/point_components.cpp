#include "runtime/point_components.hpp"

#include <bpf/libbpf.h>

#include "compiler/bdsl/names.hpp"
#include "runtime/consumer_setup.hpp"
#include "runtime/map_churn.hpp"
#include "runtime/producer_config.hpp"
#include "runtime/run_point.hpp"
#include "runtime/test_run_input.hpp"

namespace bpfbench {

Result<> PointComponents::init_batch_timing(const BpfObject &obj, const std::string &program) {
  auto found = batch.init(obj);
  if (!found) return found.error();
  if (!*found)
    return Error("program '" + program + "' times batches, but its object has no bb_batch_ns (BB_BATCH_TIMING)");
  return {};
}

Result<> PointComponents::make(const PlanPoint &p, const FamilyManifest &f, const ProgramSpec &prog,
                               const BpfObject &obj, const SocketPairs &sockets, const StopSource &stop) {
  auto pcfg = producer_config_for(p, f, prog);
  if (!pcfg) return pcfg.error();
  pc = std::move(*pcfg);
  if (pc.kind == ProducerKind::TestRun) BB_TRY(test_run_components(p, f, prog, obj));
  pc.socket_fd = sockets.send_fd;
  pc.delivered = &consumed.slot(0);
  if (pc.kind == ProducerKind::MapChurn) set_map_churn(obj);
  auto made_producer = make_producer(pc);
  if (!made_producer) return made_producer.error();
  producer = std::move(*made_producer);
  auto ccfg = consumer_config_for(p, f.consumer_of(prog), obj);
  if (!ccfg) return ccfg.error();
  cc = std::move(*ccfg);
  cc->consumed = &consumed.slot(0);
  cc->socket_fd = sockets.receive_fd;
  cc->interrupt = &stop.flag();
  if (runs_back_to_back(p) && cc->kind != ConsumerKind::None) {
    // Back-to-back: the consumer thread produces each batch after draining the last one.
    auto trigger = make_trigger(pc);
    if (!trigger) return trigger.error();
    cc->trigger = std::move(*trigger);
    back_to_back = true;
  }
  auto made_consumer = make_consumer(*cc);
  if (!made_consumer) return made_consumer.error();
  consumer = std::move(*made_consumer);
  return {};
}

// The test_run producer's program; with batch timing, the batch size (calibrated here, on
// the point's packet): a call is that many operations and one more.
Result<> PointComponents::test_run_components(const PlanPoint &p, const FamilyManifest &f, const ProgramSpec &prog,
                                              const BpfObject &obj) {
  pc.test_run_fd = obj.program_fd(test_run_driver(f, prog));
  if (!batch.active()) return {};
  if (batch.batch_iters() == 0) BB_TRY(calibrate_batch(p, f, prog, obj));  // not yet by setup's calibrate_batch
  pc.ops_per_run = uint64_t(batch.batch_iters()) + 1;
  return {};
}

Result<> PointComponents::calibrate_batch(const PlanPoint &p, const FamilyManifest &f, const ProgramSpec &prog,
                                          const BpfObject &obj) {
  const int fd = obj.program_fd(test_run_driver(f, prog));
  auto input = test_run_input_for(p);
  if (!input) return input.error();
  auto iters = batch.prepare(p, [&] { return test_run_once(fd, input->data_in); });
  if (!iters) return iters.error();
  return {};
}

// map_churn: the object's template map (its row's configure read `nr_entries` and `prefix_len`).
void PointComponents::set_map_churn(const BpfObject &obj) {
  if (bpf_map *m = obj.map(kChurnTemplateMap)) pc.churn_map_fd = bpf_map__fd(m);
}

}  // namespace bpfbench
