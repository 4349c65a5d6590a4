// Run results as data: the "bpfbench-results/2" JSON document, written and read back.
#pragma once

#include <atomic>
#include <optional>
#include <string>
#include <string_view>
#include <vector>

#include <nlohmann/json.hpp>

#include "compiler/pipeline.hpp"
#include "compiler/bdsl/plan.hpp"
#include "compiler/bdsl/source.hpp"
#include "results/environment.hpp"
#include "results/histogram.hpp"
#include "results/noise_facts.hpp"
#include "results/point_result.hpp"
#include "util/error.hpp"

namespace bpfbench {

constexpr const char *kResultsSchema = "bpfbench-results/2";
// Files of the version before are read too: they differ only in a baseline's
// `<metric>_adj.values`, which held main's raw values; the reader puts the adjusted ones in
// (results/results_read.cpp), so compare and plot see one meaning.
constexpr const char *kResultsSchemaV1 = "bpfbench-results/1";

// The JSON of one point that ran (or was skipped / failed): identity from the plan, raw
// samples with their real interval lengths, per-metric stats with per-sample values.
nlohmann::json point_result_to_json(const PlanPoint &p, const PointResult &r, const std::string &program_sha256,
                                    double elapsed_s, int64_t interval_ns);

// The document the run writes after every point: `points` holds those measured so far,
// `complete` says whether the run got to the end of the plan.
struct ResultsDoc {
  std::string file, file_sha256, started;
  Environment env;
  nlohmann::json doctor;  // doctor_to_json (results/doctor.hpp) of the untimed probes; null: not written
  std::optional<Calibration> calibration;  // run --calibration: the start/end base-loop points
  nlohmann::json plan;                     // plan_to_json
  std::vector<ProgramHash> programs;
  nlohmann::json points = nlohmann::json::array();
  bool complete = false, interrupted = false;
  nlohmann::json to_json() const;
};

// What compare/plot read back.
struct ResultPoint {
  size_t index = 0;
  std::string label, suite, family, program, status, reason, program_sha256;
  nlohmann::json params = nlohmann::json::object();
  std::vector<std::string> report;
  std::string primary;  // the metric the point's precision/warnings use
  double precision_pct = 0;
  bool precision_reached = false;
  std::string precision_note;  // adaptive: why the target was undefined ("" when it was not)
  bool is_baseline = false;    // a `baseline < >` point (its main point holds the _adj columns)
  size_t nsamples = 0;
  size_t rounds = 1;  // `run --rounds`: runs combined into this point
  std::vector<MetricSummary> metrics;
  std::vector<std::string> warnings;
  std::vector<SelfCheck> self_checks;            // absent in files of older versions: none
  std::vector<ProgFacts> prog_facts;             // the loaded programs' verifier/JIT facts (older files: none)
  std::optional<LatencyHistogram> latency_hist;  // a template's BB_TIME_BEGIN/END buckets
  std::optional<NoiseFacts> noise;               // machine noise while it ran; absent in older files
  // What ran beside it (results/interference.hpp), as its one-line note; "" when nothing
  // did, or in files of older versions.
  std::string interference;
  const MetricSummary *metric(const std::string &name) const;
  std::string key() const;  // label + canonical params: what compare matches on
};

struct ResultSet {
  std::string path, file, file_sha256;
  Environment env;
  std::vector<ResultPoint> points;
  bool complete = false;
  std::optional<Calibration> calibration;  // absent: --calibration off, or an older file
};

// Reading back (results/results_read.cpp): the schema tag and every field compare and plot
// use are checked once, here; a bad one gives an Error naming its JSON path:
// "points[3].stats.hits.mean: expected a number, got a string". results_from_text and
// load_results prefix the file name ("b.json: …", "b.json:4:17: not valid JSON …").
Result<ResultSet> results_from_json(const nlohmann::json &j);
// Text and files are read in pieces (results/results_stream.cpp): each point is checked
// as it completes and its JSON dropped; its raw samples are counted, never held. Files up
// to kMaxResultsInputBytes (1 GiB), nested at most kMaxJsonDepth deep. `stop`, when given,
// ends a long read ("cannot read b.json: interrupted").
Result<ResultSet> results_from_text(std::string_view text, const std::string &name);
Result<ResultSet> load_results(const std::string &path, const std::atomic<bool> *stop = nullptr);

// "2024-05-01T12:00:00Z".
std::string utc_timestamp();

}  // namespace bpfbench
