#include "runtime/consumer_setup.hpp"

#include <bpf/bpf.h>
#include <bpf/libbpf.h>

#include <algorithm>
#include <iterator>

#include "runtime/consumers/buffer_consumers.hpp"
#include "runtime/kind_rows.hpp"
#include "runtime/producer_config.hpp"

namespace bpfbench {
namespace {

bpf_map *first_map_of_type(const BpfObject &obj, bpf_map_type type) {
  if (!obj.raw()) return nullptr;
  bpf_map *m = nullptr;
  bpf_object__for_each_map(m, obj.raw()) if (bpf_map__type(m) == type) return m;
  return nullptr;
}

namespace kp = kind_params;

// Each kind's configure reads exactly the params its row in compiler/family/kinds.cpp lists
// (tests/unit/test_kind_configure.cpp holds the two against each other).

Result<> configure_consumer_nothing(const PointParams &, ConsumerConfig &) {
  return {};
}

// ringbuf, perfbuf: the reader, its counting and (perfbuf) its wakeups.
Result<> configure_buffer(const PointParams &p, ConsumerConfig &c) {
  if (const ParamValue *v = p.param(kp::consumer); v && !v->is_int) {
    auto flavor = buffer_flavor(*buffer_kind(c.kind), v->s);
    if (!flavor) return flavor.error();
    c.flavor = *flavor;
  }
  c.sampled = p.int_param(kp::sampled) != 0;
  if (const ParamValue *v = p.param(kp::record_count); v && !v->is_int) c.atomic_count = v->s == "atomic";
  c.sample_rate = static_cast<uint64_t>(std::max<int64_t>(1, p.int_param(kp::sample_rate)));
  return {};
}

Result<> configure_perfbuf(const PointParams &p, ConsumerConfig &c) {
  BB_TRY(configure_buffer(p, c));
  c.perfbuf_pages = static_cast<uint64_t>(std::max<int64_t>(1, p.int_param(kp::perfbuf_pages)));
  return {};
}

Result<> configure_socket(const PointParams &p, ConsumerConfig &c) {
  if (const ParamValue *v = p.param(kp::verify); v && !v->is_int) c.verify_per_byte = v->s == "per_byte";
  return {};
}

// One row per ConsumerKind, in the enum's order (checked below).
constexpr ConsumerRow kConsumerRows[] = {
    {ConsumerKind::None, configure_consumer_nothing},
    {ConsumerKind::Ringbuf, configure_buffer},
    {ConsumerKind::Perfbuf, configure_perfbuf},
    {ConsumerKind::Socket, configure_socket},
};

// ConsumerKind::Socket is the enum's last value: a kind without a row fails to build here.
static_assert(std::size(kConsumerRows) == static_cast<size_t>(ConsumerKind::Socket) + 1, "a ConsumerKind has no row");
static_assert(rows_in_enum_order(kConsumerRows), "the rows are not in the ConsumerKind order");

}  // namespace

const ConsumerRow &consumer_row(ConsumerKind k) {
  return kConsumerRows[static_cast<size_t>(k)];
}

bool runs_back_to_back(const PlanPoint &p) {
  return p.int_param(kind_params::back2back) != 0;
}

Result<ConsumerConfig> consumer_config_for(const PlanPoint &p, ConsumerKind kind, const BpfObject &obj) {
  ConsumerConfig c;
  c.kind = kind;
  BB_TRY(consumer_row(kind).configure(PointParams(p), c));
  const BufferKind *buf = buffer_kind(kind);
  if (!buf) return c;  // socket: its fd comes from setup
  bpf_map *m = first_map_of_type(obj, buf->map_type);
  if (!m)
    return Error(std::string("consumer '") + kind_name(c.kind) + "' found no " + buf->map_type_name +
                 " map in the program");
  c.map_fd = bpf_map__fd(m);
  c.ring_size = bpf_map__max_entries(m);
  return c;
}

// The producer's row says whether its kind has a trigger (runtime/producer_config.cpp).
Result<std::function<std::string()>> make_trigger(const ProducerConfig &cfg) {
  if (const auto trigger = producer_row(cfg.kind).trigger)
    if (std::function<std::string()> t = trigger(cfg)) return t;
  return Error(std::string("producer '") + kind_name(cfg.kind) + "' cannot run back-to-back");
}

}  // namespace bpfbench
