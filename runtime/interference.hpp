// Watches one point for what runs beside it (results/interference.hpp): the processes
// before it starts and after its measured part (runtime/process_watch.hpp), and the BPF
// programs not ours on its hooks once it is attached and again at its end
// (runtime/foreign_links.hpp). Nothing of it runs during the measured part.
#pragma once

#include <vector>

#include "results/interference.hpp"
#include "runtime/process_watch.hpp"

namespace bpfbench {

class InterferenceWatch {
 public:
  // Before the point's load: the processes now. `cpus`: the CPUs it measures on.
  void begin(std::vector<int> cpus);
  // Once its programs are attached, and at the end: foreign programs on its hooks.
  void check_hooks();
  // After its measured part: what the other processes did meanwhile, and the hooks again.
  Interference end();
  bool begun() const { return begun_; }

 private:
  bool begun_ = false;
  ProcSnapshot before_;
  Interference found_;
};

// The CPUs a point measures on: the pinned ones (a producer or consumer CPU, -1 = not
// pinned) when any is, else every CPU this process may run on.
std::vector<int> measured_cpus(const std::vector<int> &pinned);

}  // namespace bpfbench
