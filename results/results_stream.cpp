// Reading a results file in pieces: a big sweep with raw samples is hundreds of MB, almost
// all of it `points[i].samples`, which compare and plot only count. Each point is built
// alone, checked into a ResultPoint (results_read.cpp) and dropped; its samples and warmup
// are never built; the plan's points only say which points are baselines.
#include <optional>

#include "util/json_input.hpp"
#include "results/results.hpp"
#include "results/results_read.hpp"

namespace bpfbench {

namespace {

// What the points of one file may take in memory together, estimated as they are built
// (util/json_input.hpp): each point alone at most kMaxJsonHeldBytes. Sweeps of real
// runs' shape come to 0.46 times their size (docs/security.md); a hostile file up to 40.
constexpr uint64_t kMaxResultsHeldBytes = uint64_t{1} << 30;

class ResultsReader final : public JsonReader {
 public:
  ResultsReader() : JsonReader(JsonLimits{kMaxJsonDepth, kMaxJsonHeldBytes, kMaxResultsHeldBytes}) {}
  StreamedPoints parts;

 protected:
  Role role(bool is_array) override {
    if (depth() == 1 && key() == "plan") parts.baselines.clear();  // a second "plan" replaces the first
    if (!is_array) return Role::Keep;
    if (depth() == 1 && key() == "points") {
      parts = StreamedPoints{std::vector<ResultPoint>{}, "", "", std::move(parts.baselines)};
      streaming_ = Stream::Points;
      return Role::Stream;
    }
    if (depth() == 2 && key_at(1) == "plan" && key() == "points") {
      parts.baselines.clear();
      streaming_ = Stream::PlanPoints;
      return Role::Stream;
    }
    // Inside points[i] (an object): its raw samples are counted, its warmup left out.
    if (depth() == 3 && in_element() && key_at(1) == "points" && key() == "samples") return Role::Count;
    if (depth() == 3 && in_element() && key_at(1) == "points" && key() == "warmup") return Role::Skip;
    return Role::Keep;
  }
  void counted(size_t n) override { samples_ = n; }
  void element(nlohmann::json &&e, size_t index) override {
    if (streaming_ == Stream::Points) parts.add_point(e, index, std::exchange(samples_, std::nullopt));
    else parts.add_plan_point(e);
  }

 private:
  enum class Stream { Points, PlanPoints };
  Stream streaming_ = Stream::Points;
  std::optional<size_t> samples_;  // the point being read: how many samples it has
};

Result<ResultSet> read_results(JsonSource &src, const std::string &name) {
  ResultsReader r;
  if (!r.read(src)) return Error(r.error().text(name));
  auto rs = results_from_parts(r.take(), std::move(r.parts));
  if (!rs) return Error(name + ": " + rs.error().message);
  rs->path = name;
  return rs;
}

}  // namespace

Result<ResultSet> results_from_text(std::string_view text, const std::string &name) {
  JsonSource src(text);
  return read_results(src, name);
}

Result<ResultSet> load_results(const std::string &path, const std::atomic<bool> *stop) {
  auto in = open_input_stream(path, kMaxResultsInputBytes, stop);
  if (!in) return Error("cannot read " + path + ": " + in.error().message);
  JsonSource src(*in);
  return read_results(src, path);
}

}  // namespace bpfbench
