#include "runtime/setup_actions.hpp"

#include <bpf/bpf.h>
#include <bpf/libbpf.h>
#include <signal.h>
#include <sys/resource.h>
#include <sys/syscall.h>
#include <sys/wait.h>
#include <time.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <chrono>
#include <cstring>

#include "util/process_owner.hpp"
#include "util/limit_hints.hpp"
#include "runtime/setup_program.hpp"
#include "runtime/test_run_input.hpp"

namespace bpfbench {
namespace {

// The value of an integer argument: a number, a param of the point, "max_entries" or
// "possible_cpus"; `absent` when the action does not set it.
Result<uint64_t> int_arg(const SetupActionSpec &a, const std::string &key, const PlanPoint &p, uint64_t max_entries,
                         uint64_t absent) {
  auto it = a.args.find(key);
  if (it == a.args.end()) return absent;
  const std::string &s = it->second;
  if (s == "max_entries") return max_entries;
  if (s == "possible_cpus") {
    const int n = libbpf_num_possible_cpus();
    if (n <= 0) return Error(std::string(kind_name(a.action)) + ": cannot read the number of possible CPUs");
    return uint64_t(n);
  }
  if (!s.empty() && s[0] >= '0' && s[0] <= '9') return uint64_t(std::stoull(s));
  const ParamValue *v = p.param(s);
  if (!v || !v->is_int || v->i < 0)
    return Error(std::string(kind_name(a.action)) + ": param '" + s + "' has no usable value at this point");
  return static_cast<uint64_t>(v->i);
}

// Fills inner map `i` (`fd`) with keys 0..n-1 and reads it back, adding its counts to
// `sum`.
Result<> fill_inner(int fd, uint64_t n, uint32_t i, SelfCheck &sum) {
  if (Result<> filled = prefill_map(fd, n); !filled) return filled;
  Result<SelfCheck> c = check_prefill(fd, n);
  if (!c) return Error("inner map " + std::to_string(i) + ": " + c.error().message);
  sum.expected += c->expected;
  sum.observed += c->observed;
  if (c->ok) return {};
  sum.ok = false;
  sum.detail += ": inner map " + std::to_string(i) + ": " + c->detail;
  return Error("prefill of inner map " + std::to_string(i) + ": " + c->detail);
}

// Room for `n` more fds: 1000 inner maps are held open briefly one at a time, but libbpf
// and the harness need some too; raise the soft limit to the hard one when short.
void ensure_fds(uint64_t n) {
  rlimit rl{};
  if (getrlimit(RLIMIT_NOFILE, &rl) != 0 || rl.rlim_cur == RLIM_INFINITY) return;
  if (rl.rlim_cur >= n + 256) return;
  rl.rlim_cur = rl.rlim_max;
  (void)setrlimit(RLIMIT_NOFILE, &rl);
}

// `count` inner maps of `inner`'s definition, `size` entries each, the first `fill` keys
// filled and read back (the check goes into `state` when filled or failed). Their fds, or
// why one could not be made (none left open then).
Result<std::vector<int>> create_inner_maps(const InnerMapDef &inner, int btf_fd, const std::string &name,
                                           uint64_t count, uint64_t size, uint64_t fill, SetupState &state) {
  LIBBPF_OPTS(bpf_map_create_opts, opts);
  opts.map_flags = inner.flags;
  // Local storage maps need BTF for their key and value; the object's BTF has them.
  if (btf_fd >= 0 && inner.btf_key_type_id) {
    opts.btf_fd = static_cast<uint32_t>(btf_fd);
    opts.btf_key_type_id = inner.btf_key_type_id;
    opts.btf_value_type_id = inner.btf_value_type_id;
  }
  ensure_fds(count);
  std::vector<int> fds;
  auto close_all = [&] {
    for (int fd : fds) close(fd);
  };
  SelfCheck sum{"prefill", 0, 0, true, "the " + std::to_string(count) + " inner maps of '" + name + "'"};
  for (uint32_t i = 0; i < count; ++i) {
    // Named, so `bpftool map list` (and the leak tests) can tell them apart.
    int fd = bpf_map_create(static_cast<bpf_map_type>(inner.type), "bb_inner", inner.key_size, inner.value_size,
                            static_cast<uint32_t>(size), &opts);
    if (fd < 0) {
      int e = errno;
      close_all();
      return Error("inner_maps: creating inner map " + std::to_string(i) + " failed: " + errno_text(e));
    }
    fds.push_back(fd);
    if (Result<> filled = fill ? fill_inner(fd, fill, i, sum) : Result<>{}; !filled) {
      close_all();
      if (!sum.ok) state.checks.push_back(sum);
      return Error("inner_maps: " + filled.error().message);
    }
  }
  if (fill) state.checks.push_back(sum);
  return fds;
}

// Stores `fds` at keys 0..n-1 of the outer map: one batch update (one RCU wait), or one
// by one where the kernel has no batch operations for the map.
Result<> store_inner_maps(int outer_fd, const std::string &name, std::vector<int> &fds) {
  const uint32_t count = static_cast<uint32_t>(fds.size());
  std::vector<uint32_t> keys(count);
  for (uint32_t i = 0; i < count; ++i) keys[i] = i;
  LIBBPF_OPTS(bpf_map_batch_opts, bo);
  uint32_t n = count;
  if (!count || bpf_map_update_batch(outer_fd, keys.data(), fds.data(), &n, &bo) == 0) return {};
  int e = errno;
  if (e != EINVAL && e != ENOTSUP && e != EOPNOTSUPP)
    return Error("inner_maps: storing the inner maps in '" + name + "' failed: " + errno_text(e));
  for (uint32_t i = 0; i < count; ++i)
    if (bpf_map_update_elem(outer_fd, &keys[i], &fds[i], BPF_ANY) != 0)
      return Error("inner_maps: storing inner map " + std::to_string(i) + " in '" + name +
                   "' failed: " + errno_text(errno));
  return {};
}

Result<> inner_maps(const SetupActionSpec &a, BpfObject &obj, const PlanPoint &p, SetupState &state) {
  const std::string &name = a.args.at("outer");
  bpf_map *outer = obj.map(name);
  auto def = state.inner.find(name);
  if (!outer || def == state.inner.end()) return Error("inner_maps: no map of maps '" + name + "' in the object");
  const InnerMapDef &inner = def->second;
  Result<uint64_t> count = int_arg(a, "count", p, 0, 0);
  if (!count) return count.error();
  if (*count > bpf_map__max_entries(outer))
    return Error("inner_maps: " + std::to_string(*count) + " maps do not fit '" + name + "' (max_entries " +
                 std::to_string(bpf_map__max_entries(outer)) + ")");
  Result<uint64_t> size = int_arg(a, "max_entries", p, 0, inner.max_entries);
  if (!size) return size.error();
  Result<uint64_t> fill = int_arg(a, "prefill", p, *size, 0);
  if (!fill) return fill.error();
  // Every user-space update of a map of maps waits for an RCU grace period (~20 ms here:
  // 1000 maps took 21 s one by one). So: create them all, store them with one batch
  // update (one wait), then close our fds (the outer map holds its own references).
  auto fds = create_inner_maps(inner, bpf_object__btf_fd(obj.raw()), name, *count, *size, *fill, state);
  if (!fds) return fds.error();
  Result<> stored = store_inner_maps(bpf_map__fd(outer), name, *fds);
  for (int fd : *fds) close(fd);
  return stored;
}

// Fills the map, then reads it back: the check goes into `state` and a mismatch fails.
Result<> prefill(const SetupActionSpec &a, BpfObject &obj, const PlanPoint &p, SetupState &state) {
  const std::string &name = a.args.at("map");
  bpf_map *m = obj.map(name);
  if (!m) return Error("prefill: no map '" + name + "' in the object");
  Result<uint64_t> n = int_arg(a, "keys", p, bpf_map__max_entries(m), 0);
  if (!n) return n.error();
  const std::string what = "prefill '" + name + "': ";
  if (Result<> filled = prefill_map(bpf_map__fd(m), *n); !filled) return Error(what + filled.error().message);
  Result<SelfCheck> c = check_prefill(bpf_map__fd(m), *n);
  if (!c) return Error(what + c.error().message);
  std::string why = c->ok ? "" : what + c->detail;
  c->detail = "map '" + name + "'" + (c->ok ? "" : ": " + c->detail);
  state.checks.push_back(*c);
  if (!why.empty()) return Error(why);
  return {};
}

// One test run of the action's program, on the point's packet with `"input": "packet"`
// (its output compared with the expected packet with `"compare_output": true`); its checks
// go into `state`.
Result<> run_program(const SetupActionSpec &a, BpfObject &obj, const PlanPoint &p, SetupState &state) {
  SetupRun run;
  Result<uint64_t> expect = int_arg(a, "expect", p, 0, 0);
  if (!expect) return expect.error();
  run.expect = *expect;
  if (a.args.count("input")) {
    auto in = test_run_input_for(p);
    if (!in) return Error("run_program: " + in.error().message);
    if (in->data_in.empty()) return Error("run_program: \"input\": \"packet\" needs a packet (packet_len > 0)");
    if (auto c = a.args.find("compare_output"); c != a.args.end() && c->second == "1") {
      auto expected = expected_output_for(p, in->data_in);
      if (!expected) return Error("run_program: " + expected.error().message);
      run.expected_out = std::move(*expected);
    }
    run.data_in = std::move(in->data_in);
  }
  return run_setup_program(a, obj, run, state.checks);
}

// The pairs, and the sockets the producer and consumer use.
Result<> socket_pairs(const SetupActionSpec &a, const PlanPoint &p, SetupState &state) {
  Result<uint64_t> n = int_arg(a, "count", p, 0, 0);
  if (!n) return n.error();
  if (*n < 1 || *n > 99) return Error("socket_pairs: count " + std::to_string(*n) + " is outside 1..99");
  if (Result<> made = state.sockets.create(*n); !made) return made;
  for (const char *side : {"send", "receive"}) {
    auto it = a.args.find(side);
    if (it == a.args.end()) continue;
    int fd = state.sockets.fd(it->second);
    if (fd < 0)
      return Error("socket_pairs: `" + std::string(side) + "` names socket '" + it->second + "', not one of " +
                   state.sockets.names());
    (side[0] == 's' ? state.sockets.send_fd : state.sockets.receive_fd) = fd;
  }
  return {};
}

Result<> sockmap(const SetupActionSpec &a, BpfObject &obj, SetupState &state) {
  const std::string &name = a.args.at("map"), &prog = a.args.at("program");
  bpf_map *m = obj.map(name);
  if (!m || bpf_map__type(m) != BPF_MAP_TYPE_SOCKMAP)
    return Error("sockmap: no BPF_MAP_TYPE_SOCKMAP '" + name + "' in the object");
  bpf_program *bp = obj.program(prog);
  const int prog_fd = obj.program_fd(prog);
  if (!bp || prog_fd < 0) return Error("sockmap: program '" + prog + "' is not loaded");
  std::vector<int> fds;
  const std::string &list = a.args.at("sockets");
  for (size_t start = 0; start <= list.size();) {
    size_t comma = std::min(list.find(',', start), list.size());
    std::string s = list.substr(start, comma - start);
    int fd = state.sockets.fd(s);
    if (fd < 0)
      return Error("sockmap: no socket '" + s + "' (there are: " + state.sockets.names() + "; socket_pairs makes them)");
    fds.push_back(fd);
    start = comma + 1;
  }
  Result<> wired =
      wire_sockmap(bpf_map__fd(m), bpf_map__value_size(m), prog_fd, bpf_program__expected_attach_type(bp), fds);
  if (!wired) return Error("sockmap '" + name + "', program '" + prog + "': " + wired.error().message);
  return {};
}

// Async-signal-safe work only: the parent may have other threads.
[[noreturn]] void child_loop(pid_t parent, int pause_max_s) {
  die_with_parent(parent);
  uint32_t seed = static_cast<uint32_t>(getpid()) * 2654435761u;
  for (;;) {
    seed = seed * 1103515245u + 12345u;
    timespec ts{pause_max_s > 0 ? static_cast<time_t>((seed >> 16) % static_cast<uint32_t>(pause_max_s)) : 0, 0};
    nanosleep(&ts, nullptr);
    (void)syscall(__NR_getpgid);
  }
}

Result<> calibrate_batch(SetupState &state) {
  if (!state.calibrate_batch) return Error("calibrate_batch: the point's program times no batches");
  Result<> sized = state.calibrate_batch();
  if (!sized) return Error("calibrate_batch: " + sized.error().message);
  return {};
}

Result<> fork_children(const SetupActionSpec &a, const PlanPoint &p, const StopSource &stop, SetupState &state) {
  Result<uint64_t> n = int_arg(a, "count", p, 0, 0);
  if (!n) return n.error();
  Result<uint64_t> pause = int_arg(a, "pause_max", p, 0, 4);
  if (!pause) return pause.error();
  return state.children.spawn(*n, static_cast<int>(*pause), stop);
}

Result<> run_setup_action(const SetupActionSpec &a, BpfObject &obj, const PlanPoint &p, const StopSource &stop,
                          SetupState &state) {
  switch (a.action) {
  case SetupActionKind::InnerMaps: return inner_maps(a, obj, p, state);
  case SetupActionKind::Prefill: return prefill(a, obj, p, state);
  case SetupActionKind::RunProgram: return run_program(a, obj, p, state);
  case SetupActionKind::SocketPairs: return socket_pairs(a, p, state);
  case SetupActionKind::Sockmap: return sockmap(a, obj, state);
  case SetupActionKind::CalibrateBatch: return calibrate_batch(state);
  case SetupActionKind::Fork: return fork_children(a, p, stop, state);
  }
  return Error("unknown setup action");  // unreachable: the switch names every kind
}

}  // namespace

Result<> ChildProcesses::spawn(size_t count, int pause_max_s, const StopSource &stop) {
  pid_t parent = getpid();
  pids_.reserve(pids_.size() + count);
  for (size_t i = 0; i < count; ++i) {
    if (stop.stop_requested()) return Error("fork: stopped after " + std::to_string(i) + " children");
    pid_t pid = fork();
    if (pid < 0) {
      int e = errno;
      return Error("fork: child " + std::to_string(i + 1) + " of " + std::to_string(count) +
                   " failed: " + errno_text(e) + (e == EAGAIN || e == ENOMEM ? " (" + task_limit_hint() + ")" : ""));
    }
    if (pid == 0) child_loop(parent, pause_max_s);
    pids_.push_back(pid);
  }
  return {};
}

void ChildProcesses::reap() {
  for (pid_t pid : pids_) kill(pid, SIGKILL);
  for (pid_t pid : pids_)
    while (waitpid(pid, nullptr, 0) < 0 && errno == EINTR) {}
  pids_.clear();
}

std::vector<SetupActionSpec> setup_actions_for(const FamilyManifest &f, const ProgramSpec &prog) {
  std::vector<SetupActionSpec> out = f.setup;
  out.insert(out.end(), prog.setup.begin(), prog.setup.end());
  return out;
}

Result<> prepare_setup_actions(const std::vector<SetupActionSpec> &actions, const BpfObject &obj, SetupState &state) {
  for (const auto &a : actions) {
    if (a.action == SetupActionKind::RunProgram || a.action == SetupActionKind::Sockmap) {
      if (auto ok = prepare_setup_program(a, obj); !ok) return ok;
      continue;
    }
    if (a.action != SetupActionKind::InnerMaps) continue;
    const std::string &name = a.args.at("outer");
    bpf_map *outer = obj.map(name);
    bpf_map *inner = outer ? bpf_map__inner_map(outer) : nullptr;
    if (!inner) return Error("inner_maps: '" + name + "' is not a map of maps in the object");
    InnerMapDef d;
    d.type = bpf_map__type(inner);
    d.key_size = bpf_map__key_size(inner);
    d.value_size = bpf_map__value_size(inner);
    d.max_entries = bpf_map__max_entries(inner);
    d.flags = bpf_map__map_flags(inner);
    d.btf_key_type_id = bpf_map__btf_key_type_id(inner);
    d.btf_value_type_id = bpf_map__btf_value_type_id(inner);
    state.inner[name] = d;
  }
  return {};
}

Result<> run_setup_actions(const std::vector<SetupActionSpec> &actions, BpfObject &obj, const PlanPoint &p,
                           const StopSource &stop, SetupState &state) {
  auto t0 = std::chrono::steady_clock::now();
  Result<> done;
  for (const auto &a : actions) {
    done = run_setup_action(a, obj, p, stop, state);
    if (!done) break;
  }
  state.seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
  return done;
}

}  // namespace bpfbench
