// The runtime rows of the producer and consumer kinds (runtime/producer_config.cpp,
// runtime/consumer_setup.cpp): every kind has one, and its configure reads exactly the
// params the kind's row in compiler/family/kinds.cpp lists (what `bpfbench list --kinds`
// shows), on a point that holds every param a row lists, with values that take every path.
#include <catch2/catch.hpp>

#include <map>
#include <set>

#include "compiler/family/kinds.hpp"
#include "runtime/consumer_setup.hpp"
#include "runtime/producer_config.hpp"

using namespace bpfbench;

namespace {

ParamValue enum_value(const char *s) {
  return ParamValue{false, 0, s};
}
ParamValue int_value(int64_t i) {
  return ParamValue{true, i, {}};
}

// A value for every param a row lists: not the fallback, and one that takes the path that
// reads the most (a header packet of some length, check_output with an encap check).
const std::map<std::string, ParamValue> &param_values() {
  static const std::map<std::string, ParamValue> values = {
      {"op_count", enum_value("atomic")},
      {"getpgid_arg", enum_value("self")},
      {"comm", enum_value("main")},
      {"batch_size", int_value(7)},
      {"max_in_flight", int_value(4096)},
      {"nr_entries", int_value(100)},
      {"prefix_len", int_value(24)},
      {"batch_iters", int_value(3)},
      {"test_run_repeat", int_value(2)},
      {"packet", enum_value("eth_ipv4_tcp")},
      {"packet_len", int_value(80)},
      {"packet_sport", int_value(1000)},
      {"packet_dport", int_value(2000)},
      {"packet_tcp_flags", int_value(2)},
      {"packet_ip_options", int_value(1)},
      {"packet_ip_frag", int_value(1)},
      {"packet_eth_src", enum_value("02:00:00:00:00:0a")},
      {"packet_eth_dst", enum_value("02:00:00:00:00:0b")},
      {"packet_src", enum_value("10.1.0.1")},
      {"packet_dst", enum_value("10.1.0.2")},
      {"check_output", int_value(1)},
      {"expect_retval", int_value(2)},
      {"expect_packet", enum_value("encap")},
      {"expect_outer_src", enum_value("10.2.0.1")},
      {"expect_outer_dst", enum_value("10.2.0.2")},
      {"expect_eth_src", enum_value("02:00:00:00:00:0c")},
      {"expect_eth_dst", enum_value("02:00:00:00:00:0d")},
      {"consumer", enum_value("custom")},
      {"sampled", int_value(1)},
      {"record_count", enum_value("atomic")},
      {"sample_rate", int_value(8)},
      {"perfbuf_pages", int_value(16)},
      {"verify", enum_value("per_byte")},
      {"kthread_pid", int_value(1)},
      {"timing_samples", int_value(10)},
      {"back2back", int_value(1)},
  };
  return values;
}

template <typename Kind>
void add_params_of(PlanPoint &p, std::set<std::string> &added) {
  for (const auto &row : kind_table<Kind>())
    for (const KindParam &k : row.params) {
      if (!added.insert(k.name).second) continue;
      INFO("the test has no value for the param " << k.name);
      REQUIRE(param_values().count(k.name) == 1);
      p.params.emplace_back(k.name, param_values().at(k.name));
    }
}

// A point that holds every param any producer, consumer or metric source row lists, and `back2back`.
PlanPoint point_with_every_param() {
  PlanPoint p;
  std::set<std::string> added;
  add_params_of<ProducerKind>(p, added);
  add_params_of<ConsumerKind>(p, added);
  add_params_of<MetricSourceKind>(p, added);
  p.params.emplace_back(kind_params::back2back.name, param_values().at(kind_params::back2back.name));
  return p;
}

std::set<std::string> names_of(std::span<const KindParam> params) {
  std::set<std::string> out;
  for (const KindParam &k : params) out.insert(k.name);
  return out;
}

}  // namespace

TEST_CASE("each producer kind's configure reads the params its row lists, no more, no fewer", "[kinds]") {
  const PlanPoint p = point_with_every_param();
  for (const auto &info : kind_table<ProducerKind>()) {
    INFO("producer " << info.name);
    const ProducerRow &row = producer_row(info.kind);
    REQUIRE(row.kind == info.kind);
    std::vector<std::string> reads;
    ProducerConfig pc;
    pc.kind = info.kind;
    auto done = row.configure(PointParams(p, &reads), pc);
    REQUIRE(done);
    CHECK(std::set<std::string>(reads.begin(), reads.end()) == names_of(info.params));
  }
}

TEST_CASE("each consumer kind's configure reads the params its row lists, no more, no fewer", "[kinds]") {
  const PlanPoint p = point_with_every_param();
  for (const auto &info : kind_table<ConsumerKind>()) {
    INFO("consumer " << info.name);
    const ConsumerRow &row = consumer_row(info.kind);
    REQUIRE(row.kind == info.kind);
    std::vector<std::string> reads;
    ConsumerConfig c;
    c.kind = info.kind;
    auto done = row.configure(PointParams(p, &reads), c);
    REQUIRE(done);
    CHECK(std::set<std::string>(reads.begin(), reads.end()) == names_of(info.params));
  }
}

TEST_CASE("a kind's configure sets what its params say and leaves the other kinds' settings alone", "[kinds]") {
  const PlanPoint p = point_with_every_param();
  ProducerConfig syscall;
  REQUIRE(producer_row(ProducerKind::Syscall).configure(PointParams(p), syscall));
  CHECK(syscall.getpgid_self);
  CHECK(syscall.atomic_count);
  CHECK(!syscall.rename_main);
  CHECK(syscall.batch_size == 32);
  CHECK(syscall.data_in.empty());
  ProducerConfig test_run;
  test_run.kind = ProducerKind::TestRun;
  REQUIRE(producer_row(ProducerKind::TestRun).configure(PointParams(p), test_run));
  CHECK(test_run.ops_per_run == 3);
  CHECK(test_run.repeat == 2);
  CHECK(test_run.data_in.size() == 80);
  CHECK(test_run.expected_retval == 2u);
  CHECK(test_run.expected_out.has_value());
  CHECK(!test_run.atomic_count);
  ProducerConfig churn;
  REQUIRE(producer_row(ProducerKind::MapChurn).configure(PointParams(p), churn));
  CHECK(churn.churn_entries == 100);
  CHECK(churn.churn_prefix_len == 24);
  ConsumerConfig ring;
  ring.kind = ConsumerKind::Ringbuf;
  REQUIRE(consumer_row(ConsumerKind::Ringbuf).configure(PointParams(p), ring));
  CHECK(ring.flavor == BufferFlavor::Custom);
  CHECK(ring.atomic_count);
  CHECK(ring.sample_rate == 8);
  CHECK(ring.perfbuf_pages == 128);  // perfbuf's param, not the ring's
  ConsumerConfig perf;
  perf.kind = ConsumerKind::Perfbuf;
  REQUIRE(consumer_row(ConsumerKind::Perfbuf).configure(PointParams(p), perf));
  CHECK(perf.perfbuf_pages == 16);
  ConsumerConfig socket;
  REQUIRE(consumer_row(ConsumerKind::Socket).configure(PointParams(p), socket));
  CHECK(socket.verify_per_byte);
}

TEST_CASE("back-to-back triggers come from the producer's row: syscall, uprobe_nop and test_run with a program",
          "[kinds]") {
  for (const auto &info : kind_table<ProducerKind>()) {
    INFO("producer " << info.name);
    ProducerConfig cfg;
    cfg.kind = info.kind;
    auto trigger = make_trigger(cfg);
    const bool has_trigger = info.kind == ProducerKind::Syscall || info.kind == ProducerKind::UprobeNop;
    CHECK(bool(trigger) == has_trigger);
    if (!trigger)
      CHECK(trigger.error().message == std::string("producer '") + info.name + "' cannot run back-to-back");
  }
  auto syscall = make_trigger(ProducerConfig{ProducerKind::Syscall});
  REQUIRE(syscall);
  CHECK((*syscall)().empty());  // getpgid(-1) fails with ESRCH; the trigger reports nothing
  ProducerConfig test_run{ProducerKind::TestRun};
  test_run.test_run_fd = 1000000;  // no such program: the trigger is made, its call fails
  auto run = make_trigger(test_run);
  REQUIRE(run);
  CHECK((*run)().rfind("BPF_PROG_TEST_RUN failed: ", 0) == 0);
}
