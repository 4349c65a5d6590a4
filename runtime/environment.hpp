// Reads the machine a run measures into an Environment (results/environment.hpp).
#pragma once

#include "results/environment.hpp"

namespace bpfbench {

Environment collect_environment();

}  // namespace bpfbench
