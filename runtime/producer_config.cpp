#include "runtime/producer_config.hpp"

#include <bpf/bpf.h>
#include <sys/syscall.h>
#include <unistd.h>

#include <iterator>

#include "runtime/kind_rows.hpp"
#include "runtime/map_churn.hpp"
#include "runtime/owner_producers.hpp"
#include "runtime/pair_producer.hpp"
#include "runtime/socket_traffic.hpp"
#include "runtime/test_run_input.hpp"
#include "runtime/uprobe_targets.hpp"
#include "runtime/user_producers.hpp"

namespace bpfbench {

namespace {

namespace kp = kind_params;

// Each kind's configure reads exactly the params its row in compiler/family/kinds.cpp lists
// (tests/unit/test_kind_configure.cpp holds the two against each other).

Result<> configure_producer_nothing(const PointParams &, ProducerConfig &) {
  return {};
}

// op_count: the uprobe/USDT targets and getppid.
Result<> configure_count(const PointParams &p, ProducerConfig &pc) {
  if (std::string c = p.choice(kp::op_count); !c.empty()) pc.atomic_count = c == "atomic";
  return {};
}

Result<> configure_syscall(const PointParams &p, ProducerConfig &pc) {
  if (std::string g = p.choice(kp::getpgid_arg); !g.empty()) pc.getpgid_self = g == "self";
  return configure_count(p, pc);
}

Result<> configure_rename(const PointParams &p, ProducerConfig &pc) {
  if (std::string c = p.choice(kp::comm); !c.empty()) pc.rename_main = c == "main";
  return configure_count(p, pc);
}

// socket_create, thread_create: owners made per round.
Result<> configure_owners(const PointParams &p, ProducerConfig &pc) {
  if (uint64_t b = p.positive(kp::batch_size)) pc.batch_size = static_cast<uint32_t>(b);
  return {};
}

Result<> configure_sendfile(const PointParams &p, ProducerConfig &pc) {
  if (uint64_t m = p.positive(kp::max_in_flight)) pc.max_in_flight = m;
  return {};
}

// map_churn: keys per map and an LPM trie key's prefix length (the map is the caller's).
Result<> configure_map_churn(const PointParams &p, ProducerConfig &pc) {
  if (uint64_t n = p.positive(kp::nr_entries)) pc.churn_entries = n;
  if (uint64_t l = p.positive(kp::prefix_len)) pc.churn_prefix_len = static_cast<uint32_t>(l);
  return {};
}

// test_run: operations per call, the packet and, with `check_output`, what every call must return.
Result<> configure_test_run(const PointParams &p, ProducerConfig &pc) {
  if (uint64_t b = p.positive(kp::batch_iters)) pc.ops_per_run = b;
  auto input = test_run_input_for(p);
  if (!input) return input.error();
  pc.data_in = std::move(input->data_in);
  pc.repeat = input->repeat;
  if (const ParamValue *c = p.param(kp::check_output); c && c->is_int && c->i) {
    const ParamValue *retval = p.param(kp::expect_retval);
    if (!retval || !retval->is_int)
      return Error(std::string(kp::check_output.name) + " needs the param " + kp::expect_retval.name);
    pc.expected_retval = static_cast<uint32_t>(retval->i);
    auto out = expected_output_for(p, pc.data_in);
    if (!out) return out.error();
    pc.expected_out = std::move(*out);
  }
  return {};
}

// Back-to-back triggers: one operation of the kind's producer loop, for the consumer thread.

Trigger trigger_syscall(const ProducerConfig &cfg) {
  // Called only by the consumer thread: its tid is taken at the first call.
  return [self = cfg.getpgid_self, pid = 0L]() mutable {
    if (pid == 0) pid = getpgid_arg(self);
    (void)syscall(__NR_getpgid, pid);
    return std::string();
  };
}

Trigger trigger_test_run(const ProducerConfig &cfg) {
  if (cfg.test_run_fd < 0) return {};
  return [fd = cfg.test_run_fd] {
    LIBBPF_OPTS(bpf_test_run_opts, opts);
    if (bpf_prog_test_run_opts(fd, &opts)) return "BPF_PROG_TEST_RUN failed: " + errno_text(errno);
    return std::string();
  };
}

Trigger trigger_uprobe_nop(const ProducerConfig &) {
  return [] {
    bpfbench_uprobe_target_nop();
    return std::string();
  };
}

// The makers of the producers whose own files build them from other arguments.
using Made = Result<std::unique_ptr<Producer>>;
Made make_user(const ProducerConfig &cfg) { return make_user_producer(cfg); }
Made make_owner(const ProducerConfig &cfg) { return make_owner_producer(cfg); }
Made make_pair(const ProducerConfig &cfg) { return make_syscall_pair_producer(cfg.producers); }
Made make_getppid(const ProducerConfig &cfg) { return make_getppid_producer(cfg); }
Made make_sendfile(const ProducerConfig &cfg) {
  if (cfg.socket_fd < 0)
    return Error("producer 'sendfile' needs a socket to send to: a socket_pairs setup action with `send`");
  return make_sendfile_producer(cfg.socket_fd, cfg.max_in_flight, cfg.delivered);
}
Made make_map_churn(const ProducerConfig &cfg) {
  if (cfg.churn_map_fd < 0)
    return Error(std::string("producer 'map_churn' needs a map named '") + kChurnTemplateMap + "' in the program");
  return make_map_churn_producer(cfg.churn_map_fd, cfg.churn_entries, cfg.churn_prefix_len);
}

// One row per ProducerKind, in the enum's order (checked below).
constexpr ProducerRow kProducerRows[] = {
    {ProducerKind::Syscall, configure_syscall, make_syscall_producer, true, trigger_syscall},
    {ProducerKind::TestRun, configure_test_run, make_test_run_producer, true, trigger_test_run},
    {ProducerKind::UprobeNop, configure_count, make_uprobe_producer<bpfbench_uprobe_target_nop>, true,
     trigger_uprobe_nop},
    {ProducerKind::UprobePush, configure_count, make_uprobe_producer<bpfbench_uprobe_target_push>, true},
    {ProducerKind::UprobeRet, configure_count, make_uprobe_producer<bpfbench_uprobe_target_ret>, true},
    {ProducerKind::UprobeNop5, configure_count, make_uprobe_producer<bpfbench_uprobe_target_nop5>, true},
    {ProducerKind::UsdtNop, configure_count, make_uprobe_producer<bpfbench_usdt_target_nop>, false},
    {ProducerKind::UsdtNop5, configure_count, make_uprobe_producer<bpfbench_usdt_target_nop5>, false},
    {ProducerKind::CountGlobal, configure_producer_nothing, make_user, false},
    {ProducerKind::CountLocal, configure_producer_nothing, make_user, false},
    {ProducerKind::Rename, configure_rename, make_user, true},
    {ProducerKind::SocketCreate, configure_owners, make_owner, false},
    {ProducerKind::ThreadCreate, configure_owners, make_owner, false},
    {ProducerKind::Getsockopt, configure_producer_nothing, make_owner, true},
    {ProducerKind::SyscallPair, configure_producer_nothing, make_pair, false},
    {ProducerKind::Sendfile, configure_sendfile, make_sendfile, false},
    {ProducerKind::MapChurn, configure_map_churn, make_map_churn, false},
    {ProducerKind::Getppid, configure_count, make_getppid, true},
    {ProducerKind::None, configure_producer_nothing, make_idle_producer, false},
};

// ProducerKind::None is the enum's last value: a kind without a row fails to build here.
static_assert(std::size(kProducerRows) == static_cast<size_t>(ProducerKind::None) + 1, "a ProducerKind has no row");
static_assert(rows_in_enum_order(kProducerRows), "the rows are not in the ProducerKind order");

}  // namespace

const ProducerRow &producer_row(ProducerKind k) {
  return kProducerRows[static_cast<size_t>(k)];
}

Result<std::unique_ptr<Producer>> make_producer(const ProducerConfig &cfg) { return producer_row(cfg.kind).make(cfg); }

Result<ProducerConfig> producer_config_for(const PlanPoint &p, const FamilyManifest &f, const ProgramSpec &prog) {
  ProducerConfig pc;
  pc.kind = f.producer_of(prog);
  pc.producers = p.producers;
  BB_TRY(producer_row(pc.kind).configure(PointParams(p), pc));
  return pc;
}

bool same_producer_settings(const ProducerConfig &a, const ProducerConfig &b) {
  return a.kind == b.kind && a.producers == b.producers && a.getpgid_self == b.getpgid_self &&
         a.atomic_count == b.atomic_count && a.rename_main == b.rename_main && a.batch_size == b.batch_size &&
         a.max_in_flight == b.max_in_flight && a.ops_per_run == b.ops_per_run && a.data_in == b.data_in &&
         a.repeat == b.repeat && a.expected_retval == b.expected_retval && a.expected_out == b.expected_out &&
         a.churn_entries == b.churn_entries && a.churn_prefix_len == b.churn_prefix_len;
}

}  // namespace bpfbench
