#include "cli/run_outputs.hpp"
#include "compiler/escape.hpp"

#include <fmt/format.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstdio>

#include "compiler/plan_dump.hpp"
#include "compiler/sha256.hpp"
#include "compiler/atomic_file.hpp"
#include "results/progress.hpp"
#include "results/report_tables.hpp"
#include "runtime/doctor.hpp"
#include "runtime/environment.hpp"

namespace bpfbench::cli {

namespace {

// The status line goes to the terminal itself, not through stderr's stream: its "\r\033[K"
// is the one control sequence bpfbench writes on purpose, and the stream makes every
// control character printable on a terminal (cli/text_output.hpp). So what it holds from a
// file (the label) is made printable here. A failed write loses only this transient line;
// stderr's next write meets the same error and reports it.
void write_status(const std::string &text) {
  for (size_t done = 0; done < text.size();) {
    ssize_t n = ::write(STDERR_FILENO, text.data() + done, text.size() - done);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) return;
    done += static_cast<size_t>(n);
  }
}

}  // namespace

bool export_paths_ok(const ExportPaths &paths, const Frontend &fe) {
  std::vector<OutputRequest> outputs;
  if (!paths.json.empty()) outputs.push_back({"--json", paths.json});
  if (!paths.csv.empty()) outputs.push_back({"--csv", paths.csv});
  if (!paths.markdown.empty()) outputs.push_back({"--markdown", paths.markdown});
  std::vector<std::string> inputs;
  for (size_t i = 0; i < fe.sources.size(); ++i) inputs.push_back(fe.sources.file(static_cast<uint32_t>(i)).path);
  for (const auto &f : fe.families.all()) {
    inputs.push_back(f.dir + "/family.json");
    if (!f.template_path.empty()) inputs.push_back(f.template_path);
  }
  std::string why = check_output_paths(outputs, inputs);
  if (!why.empty()) fmt::print(stderr, "bpfbench: error: {}\n", why);
  return why.empty();
}

RunOutputs::RunOutputs(ExportPaths paths, bool quiet, const Frontend &fe, std::vector<ProgramHash> programs)
    : paths_(std::move(paths)),
      quiet_(quiet),
      tty_(isatty(STDERR_FILENO) == 1) {
  doc_.file = fe.plan->file;
  if (fe.sources.size() > 0) doc_.file_sha256 = sha256_hex(fe.sources.file(0).text);
  doc_.started = utc_timestamp();
  doc_.env = collect_environment();
  DoctorOptions untimed;  // the timed probes would add a second to every run
  untimed.sample = false;
  doc_.doctor = doctor_to_json(run_doctor(untimed));
  doc_.plan = plan_to_json(*fe.plan, fe.sources);
  for (const auto &p : programs)
    for (size_t idx : p.points) program_sha_[idx] = p.sha256;
  doc_.programs = std::move(programs);
  run_start_ = point_start_ = std::chrono::steady_clock::now();
  for (const auto &p : fe.plan->points) {
    total_ += size_t(std::max(p.rounds, 1));  // runs, not points
    remaining_nominal_[p.precision_pct > 0] += nominal_seconds(p) * std::max(p.rounds, 1);
  }
}

RunOutputs::~RunOutputs() { clear_status(); }

double RunOutputs::since(std::chrono::steady_clock::time_point t) const {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - t).count();
}

void RunOutputs::clear_status() {
  if (!status_shown_) return;
  write_status("\r\033[K");
  status_shown_ = false;
}

double RunOutputs::eta() const {
  double total = 0;
  for (int k = 0; k < 2; ++k) {
    double left = remaining_nominal_[k];
    // remaining_nominal_ still counts the current point: subtract what of it has passed.
    if (k == int(point_adaptive_)) left -= std::min(point_nominal_, since(point_start_));
    total += eta_seconds(std::max(0.0, left), done_nominal_[k], done_actual_[k]);
  }
  return total;
}

void RunOutputs::draw_status(const std::string &extra) {
  if (!tty_) return;
  std::string line = format_status(started_, total_, label_, since(run_start_), eta(), extra);
  write_status("\r\033[K" + line);
  status_shown_ = true;
}

RunOutputs::SampleCallback RunOutputs::wrap(SampleCallback inner) {
  return [this, inner = std::move(inner)](const PlanPoint &p, int iter, const Sample &s, bool warm) {
    if (inner) {
      clear_status();
      inner(p, iter, s, warm);
    }
    if (!warm) ++measured_;
    draw_status(warm ? "warmup" : fmt::format("{} sample{}", measured_, measured_ == 1 ? "" : "s"));
  };
}

void RunOutputs::point_started(const PlanPoint &p) {
  ++started_;
  total_ = std::max(total_, started_);  // adaptive rounds may take more than the minimum
  measured_ = 0;
  label_ = printable_text(p.label);
  point_start_ = std::chrono::steady_clock::now();
  point_nominal_ = nominal_seconds(p);
  point_adaptive_ = p.precision_pct > 0;
  if (tty_) {
    draw_status("");
  } else if (!quiet_) {
    fmt::print(stderr, "bpfbench: {}\n", format_status(started_, total_, p.label, since(run_start_), eta()));
  }
}

void RunOutputs::calibration_done(const Calibration &c) {
  doc_.calibration = c;
  write_all();
}

void RunOutputs::point_done(const PlanPoint &p, const PointResult &r, const std::optional<NoiseFacts> &noise) {
  clear_status();
  double took = since(point_start_);
  double nominal = nominal_seconds(p);
  int k = p.precision_pct > 0;
  if (r.status == PointResult::Status::Ok) {
    done_nominal_[k] += nominal;
    done_actual_[k] += took;
  }
  remaining_nominal_[k] = std::max(0.0, remaining_nominal_[k] - nominal);
  for (const auto &w : r.summary.warnings) fmt::print(stderr, "bpfbench: warning: {}: {}\n", p.label, w);
  if (r.status == PointResult::Status::Interrupted) return;  // not fully measured
  auto sha = program_sha_.find(p.index);
  nlohmann::json j = point_result_to_json(p, r, sha == program_sha_.end() ? "" : sha->second, took, p.interval_ns);
  if (noise) j["noise"] = noise_to_json(*noise);
  auto same = std::find_if(doc_.points.begin(), doc_.points.end(),
                           [&](const nlohmann::json &x) { return x.value("index", size_t(-1)) == p.index; });
  if (same == doc_.points.end()) {
    doc_.points.push_back(std::move(j));
  } else {
    j["elapsed_s"] = (*same).value("elapsed_s", 0.0) + took;  // all rounds
    *same = std::move(j);
  }
  write_all();
}

void RunOutputs::finish(bool complete, bool interrupted) {
  clear_status();
  doc_.complete = complete;
  doc_.interrupted = interrupted;
  write_all();
}

void RunOutputs::write_all() {
  if (paths_.json.empty() && paths_.csv.empty() && paths_.markdown.empty()) return;
  nlohmann::json j = doc_.to_json();
  std::vector<std::pair<std::string, std::string>> files;
  if (!paths_.json.empty()) files.emplace_back(paths_.json, json_text(j, 1) + "\n");
  if (!paths_.csv.empty() || !paths_.markdown.empty()) {
    std::string err;
    auto rs = results_from_json(j, err);
    if (!rs && failed_paths_.insert("\x01tables").second)  // never silently: once per run
      fmt::print(stderr, "bpfbench: error: cannot write the CSV/Markdown tables: {}\n", err);
    if (rs && !paths_.csv.empty()) files.emplace_back(paths_.csv, results_to_csv(*rs));
    if (rs && !paths_.markdown.empty()) files.emplace_back(paths_.markdown, results_to_markdown(*rs));
  }
  for (const auto &[path, text] : files)
    if (std::string why = write_file_atomic(path, text); !why.empty() && failed_paths_.insert(path).second)
      fmt::print(stderr, "bpfbench: error: {}\n", why);  // once per file; keep measuring
}

}  // namespace bpfbench::cli
