// `bpfbench kernels --probe`: `bpfbench probe --json` in a guest of each kernel, its rows
// kept in the kernel's cache folder (probe.json), which `kernels` shows without a boot.
#pragma once

#include <atomic>
#include <string>

#include <nlohmann/json.hpp>

#include "vm/guest_run.hpp"
#include "vm/kernel_cache.hpp"
#include "vm/qemu.hpp"

namespace bpfbench::vm {

// The probe rows kept for `k`: a JSON array, or null when there are none (never probed, the
// file unreadable, too large or not an array: read bounded, never waited on).
nlohmann::json read_guest_probe(const KernelSpec &k);

// Keeps `rows` (a JSON array) as k's probe, written atomically; or why not.
Result<void> write_guest_probe(const KernelSpec &k, const nlohmann::json &rows);

struct GuestProbe {
  GuestResult run;    // the guest's run: its console tail and stderr when it failed
  std::string error;  // "" = probed, and the rows kept for read_guest_probe
};

// Boots `k` and runs `program probe --json` in it (in /, nothing else of the host's command
// line); the rows it prints are kept when it exits 0 with a JSON array.
GuestProbe probe_in_guest(const KernelSpec &k, const AccelChoice &accel, const std::string &program,
                          const std::atomic<bool> *stop);

}  // namespace bpfbench::vm
