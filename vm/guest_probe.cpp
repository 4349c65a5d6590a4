#include "vm/guest_probe.hpp"

#include "util/atomic_file.hpp"
#include "util/escape.hpp"
#include "util/input_file.hpp"
#include "util/json_input.hpp"

namespace bpfbench::vm {

namespace {

std::string probe_path(const KernelSpec &k) { return k.dir + "/probe.json"; }

}  // namespace

nlohmann::json read_guest_probe(const KernelSpec &k) {
  JsonError bad;
  auto j = read_json_file(probe_path(k), kMaxTextInputBytes, bad);
  return j && j->is_array() ? *j : nlohmann::json();
}

Result<void> write_guest_probe(const KernelSpec &k, const nlohmann::json &rows) {
  return write_file_atomic(probe_path(k), json_text(rows, 2) + "\n");
}

GuestProbe probe_in_guest(const KernelSpec &k, const AccelChoice &accel, const std::string &program,
                          const std::atomic<bool> *stop) {
  GuestRequest req;
  req.kernel = k;
  req.accel = accel;
  req.argv = {program, "probe", "--json"};
  req.cwd = "/";
  req.stop = stop;
  std::string captured;
  req.on_stdout = [&](const std::string &s) { captured += s; };
  GuestProbe p;
  p.run = run_in_guest(req);
  JsonError bad;
  auto rows = parse_json(captured, bad).value_or(nlohmann::json());
  if (!p.run.ok) p.error = p.run.error;
  else if (p.run.job_exit != 0 || !rows.is_array())
    p.error = "probe in the guest failed (exit " + std::to_string(p.run.job_exit) + ")";
  else if (auto written = write_guest_probe(k, rows); !written) p.error = written.error().message;
  return p;
}

}  // namespace bpfbench::vm
