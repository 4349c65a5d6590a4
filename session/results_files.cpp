#include "session/results_files.hpp"

#include <algorithm>

#include "util/atomic_file.hpp"
#include "util/escape.hpp"
#include "compiler/bdsl/plan_dump.hpp"
#include "util/sha256.hpp"
#include "results/report_tables.hpp"
#include "runtime/doctor.hpp"
#include "runtime/environment.hpp"

namespace bpfbench {

std::string export_paths_problem(const ExportPaths &paths, const Frontend &fe) {
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
  auto ok = check_output_paths(outputs, inputs);
  return ok ? std::string() : ok.error().message;
}

ResultsFiles::ResultsFiles(ExportPaths paths, const Frontend &fe, std::vector<ProgramHash> programs,
                           std::function<void(const std::string &)> on_error)
    : paths_(std::move(paths)),
      point_start_(std::chrono::steady_clock::now()),
      on_error_(std::move(on_error)) {
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
}

void ResultsFiles::point_started() { point_start_ = std::chrono::steady_clock::now(); }

void ResultsFiles::calibration_done(const Calibration &c) {
  doc_.calibration = c;
  write_all();
}

void ResultsFiles::point_done(const PlanPoint &p, const PointResult &r, const std::optional<NoiseFacts> &noise) {
  const double took = std::chrono::duration<double>(std::chrono::steady_clock::now() - point_start_).count();
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

void ResultsFiles::finish(bool complete, bool interrupted) {
  doc_.complete = complete;
  doc_.interrupted = interrupted;
  write_all();
}

void ResultsFiles::fail(const std::string &key, const std::string &message) {
  if (failed_paths_.insert(key).second && on_error_) on_error_(message);
}

void ResultsFiles::write_all() {
  if (paths_.json.empty() && paths_.csv.empty() && paths_.markdown.empty()) return;
  nlohmann::json j = doc_.to_json();
  std::vector<std::pair<std::string, std::string>> files;
  if (!paths_.json.empty()) files.emplace_back(paths_.json, json_text(j, 1) + "\n");
  if (!paths_.csv.empty() || !paths_.markdown.empty()) {
    auto rs = results_from_json(j);
    if (!rs) fail("\x01tables", "cannot write the CSV/Markdown tables: " + rs.error().message);  // once per run
    if (rs && !paths_.csv.empty()) files.emplace_back(paths_.csv, results_to_csv(*rs));
    if (rs && !paths_.markdown.empty()) files.emplace_back(paths_.markdown, results_to_markdown(*rs));
  }
  // A file not written is said once; the run keeps measuring.
  for (const auto &[path, text] : files)
    if (auto written = write_file_atomic(path, text); !written) fail(path, written.error().message);
}

}  // namespace bpfbench
