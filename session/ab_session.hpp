// `bpfbench ab` below the CLI: each side's input and front end, the points of A matched to
// B's, both verified first, then every matched point compared (runtime/ab/ab_runner.hpp:
// interleaved in one process, else whole ABBA turns) or, with --a-kernel/--b-kernel, each
// side's turns in a guest (session/ab_kernels.hpp). The CLI loads and prints; tests call
// this in-process.
#pragma once

#include <memory>
#include <optional>
#include <string>
#include <vector>

#include "compiler/pipeline.hpp"
#include "results/ab_report.hpp"
#include "results/floor_file.hpp"
#include "util/error.hpp"
#include "runtime/ab/ab_runner.hpp"
#include "runtime/probe.hpp"
#include "runtime/stop.hpp"
#include "session/ab_args.hpp"
#include "session/verify_points.hpp"

namespace bpfbench {

// One side: its front end (plan, families) and compiled programs.
struct AbVariant {
  std::string name;  // "before.bdsl", "f.bdsl --b producers=2", "f.bdsl --a-templates DIR"
  std::unique_ptr<Frontend> fe = std::make_unique<Frontend>();
  CompiledPrograms programs;
  const std::vector<uint8_t> no_object;  // programs that load nothing (trigger base)
  const std::vector<uint8_t> &object(size_t point) const;
};

struct AbMatchedPoint {
  const PlanPoint *a = nullptr, *b = nullptr;
};

// The report's `a`/`b` name of a side: its file, then its template folder and settings.
std::string ab_variant_name(const std::string &file, const std::vector<std::string> &sets, const char *opt,
                            const std::string &templates);

// The front end's input of one side (`opt` "--a"/"--b" names it in messages): the command's
// shared options with the side's file, its family folder (the only one searched before
// --templates; it must hold its own include/) and its NAME=VALUE settings.
Result<FileArgs> ab_variant_input(const AbArgs &a, const std::string &file, const std::vector<std::string> &sets,
                                  const char *opt, const std::string &templates);

// Two files: by suite and label (the unmatched ones go to rep.only_a/only_b). One file
// (`same_file`): by plan position (both plans come from the same benches, `where` judged
// before the settings; --a/--b may change the labels, so --only reads A's). Baselines are
// never compared; `only` is a label or glob (session/point_select.hpp).
std::vector<AbMatchedPoint> match_ab_points(const AbVariant &va, const AbVariant &vb, bool same_file,
                                            const std::string &only, AbReport &rep);

// --a-templates/--b-templates: the matched points whose two programs are the same C (they
// measure A against itself), by name ("S / label").
std::vector<std::string> same_program_points(const AbVariant &va, const AbVariant &vb,
                                             const std::vector<AbMatchedPoint> &matched);

// Both sides of every matched point for the verifier (A alone in a control run).
std::vector<VerifySide> ab_verify_sides(const AbVariant &va, const AbVariant &vb,
                                        const std::vector<AbMatchedPoint> &matched, bool control);

// --floor-from: a control run's floors, per "suite / label".
using AbFloors = std::optional<FloorMap>;
// The floor the user gives a point: --threshold or the control run's, the larger.
double ab_user_floor(const AbArgs &a, const AbFloors &floors, const AbPointKey &k);

// The report's head: what A and B are (`vb` is `va` in a control run), the rule.
AbReport ab_report_head(const AbArgs &a, const AbVariant &va, const AbVariant &vb);

// The runner's options from the command's: the turns' rule, the interleaving settings
// (--precision and --max-time apply to both), the turns' runs probed with `prober`. No
// progress and no log folder: the caller sets them.
AbRunOptions ab_run_options(const AbArgs &a, FeatureProber &prober);

// Every matched point in order until a stop, each one's report appended to rep.points,
// judged against its user floor (`vb` is `va` in a control run).
void run_ab_points(const AbVariant &va, const AbVariant &vb, const std::vector<AbMatchedPoint> &matched,
                   const AbArgs &a, const AbFloors &floors, const AbRunOptions &o, StopSource &stop, AbReport &rep);

// --a-kernel/--b-kernel: the report of the selected points of `va`'s plan (the file as
// written, run in both guests), each with the method note and no turn yet. No point: none
// matched --only.
AbReport ab_kernels_report(const AbArgs &a, const AbVariant &va);

// Each point's floor set and its verdict judged (after guest turns).
void judge_ab_points(const AbArgs &a, const AbFloors &floors, AbReport &rep);

// The points that failed (a note "failed…") and those left without a ratio.
struct AbTally {
  size_t failed = 0, no_ratio = 0;
};
AbTally ab_tally(const AbReport &rep);

}  // namespace bpfbench
