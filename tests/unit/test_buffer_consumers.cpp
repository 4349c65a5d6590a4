// The buffer consumer kinds' table (runtime/consumers/buffer_consumers.hpp): which map each
// kind reads, the `consumer` param's words, and what make_consumer says without a map.
// No root: nothing here opens a BPF object.
#include <catch2/catch.hpp>

#include "runtime/components.hpp"
#include "runtime/consumers/buffer_consumers.hpp"
#include "runtime/counters.hpp"

using namespace bpfbench;

TEST_CASE("buffer consumers: one row per kind that reads a BPF buffer map", "[ringbuf][perfbuf]") {
  const BufferKind *ring = buffer_kind(ConsumerKind::Ringbuf);
  const BufferKind *perf = buffer_kind(ConsumerKind::Perfbuf);
  REQUIRE(ring);
  REQUIRE(perf);
  CHECK(ring->kind == ConsumerKind::Ringbuf);
  CHECK(ring->map_type == BPF_MAP_TYPE_RINGBUF);
  CHECK(std::string(ring->map_type_name) == "BPF_MAP_TYPE_RINGBUF");
  CHECK(perf->kind == ConsumerKind::Perfbuf);
  CHECK(perf->map_type == BPF_MAP_TYPE_PERF_EVENT_ARRAY);
  CHECK(std::string(perf->map_type_name) == "BPF_MAP_TYPE_PERF_EVENT_ARRAY");
  CHECK(buffer_kind(ConsumerKind::None) == nullptr);
  CHECK(buffer_kind(ConsumerKind::Socket) == nullptr);
}

TEST_CASE("buffer consumers: the consumer param's words name the flavors", "[ringbuf][perfbuf]") {
  for (ConsumerKind k : {ConsumerKind::Ringbuf, ConsumerKind::Perfbuf}) {
    const BufferKind &buf = *buffer_kind(k);
    auto libbpf = buffer_flavor(buf, "libbpf");
    auto custom = buffer_flavor(buf, "custom");
    REQUIRE(libbpf);
    REQUIRE(custom);
    CHECK(*libbpf == BufferFlavor::Libbpf);
    CHECK(*custom == BufferFlavor::Custom);
    CHECK_FALSE(buffer_flavor(buf, "Custom"));
    CHECK_FALSE(buffer_flavor(buf, ""));
  }
  auto bad = buffer_flavor(*buffer_kind(ConsumerKind::Ringbuf), "mmap");
  REQUIRE_FALSE(bad);
  CHECK(bad.error().message == "unknown ring buffer consumer 'mmap' (expected libbpf or custom)");
  bad = buffer_flavor(*buffer_kind(ConsumerKind::Perfbuf), "mmap");
  REQUIRE_FALSE(bad);
  CHECK(bad.error().message == "unknown perf buffer consumer 'mmap' (expected libbpf or custom)");
}

TEST_CASE("buffer consumers: without a buffer map make_consumer names the map it needs", "[ringbuf][perfbuf]") {
  ProducerCounters consumed(1);
  for (BufferFlavor flavor : {BufferFlavor::Libbpf, BufferFlavor::Custom}) {
    ConsumerConfig cfg;
    cfg.flavor = flavor;
    cfg.consumed = &consumed.slot(0);
    cfg.kind = ConsumerKind::Ringbuf;
    auto c = make_consumer(cfg);
    REQUIRE_FALSE(c);
    CHECK(c.error().message == "consumer 'ringbuf' needs a BPF_MAP_TYPE_RINGBUF map in the program");
    cfg.kind = ConsumerKind::Perfbuf;
    c = make_consumer(cfg);
    REQUIRE_FALSE(c);
    CHECK(c.error().message == "consumer 'perfbuf' needs a BPF_MAP_TYPE_PERF_EVENT_ARRAY map in the program");
  }
  ConsumerConfig none;
  auto c = make_consumer(none);
  REQUIRE(c);
  CHECK(*c == nullptr);
}
