// `bpfbench doctor`: runs the probes (runtime/doctor.hpp), prints text or JSON. It reports;
// it never fails on what it finds (exit 0), and changes nothing on the machine.
#include <fmt/format.h>

#include <cstdio>

#include "cli/commands.hpp"
#include "runtime/doctor.hpp"

namespace bpfbench::cli {

int cmd_doctor(const DoctorArgs &a) {
  DoctorOptions o;
  o.sample = !a.quick;
  DoctorReport r = run_doctor(o);
  if (a.json) fmt::print("{}\n", doctor_to_json(r).dump(2));
  else fmt::print("{}", doctor_to_text(r));
  return kExitOk;
}

}  // namespace bpfbench::cli
