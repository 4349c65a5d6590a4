// Every reader of a file from someone else is bounded: the checked opener read in pieces
// (util/input_file.hpp), the bounded JSON reader (util/json_input.hpp), results
// files read in pieces up to 1 GiB, and `ab --floor-from` through both.
#include <catch2/catch.hpp>

#include <sys/stat.h>
#include <unistd.h>

#include <atomic>
#include <chrono>
#include <filesystem>

#include "util/input_file.hpp"
#include "util/json_input.hpp"
#include "util/escape.hpp"
#include "metric_support.hpp"
#include "results/floor_file.hpp"
#include "results/results.hpp"
#include "run_process.hpp"
#include "temp_dir.hpp"
#include "test_paths.hpp"
#include "result_support.hpp"

namespace fs = std::filesystem;
using namespace bpfbench;
using bpfbench::test::kBin;
using bpfbench::test::run_process;
using bpfbench::test::TempDir;

namespace {

// All of `path` through open_input_stream in 7-byte pieces, or the error.
std::string read_pieces(const std::string &path, uint64_t limit, const std::atomic<bool> *stop = nullptr,
                        uint64_t from = 0) {
  std::string out;
  auto in = open_input_stream(path, limit, stop);
  if (!in) return "refused: " + in.error().message;
  if (from && !in->seek(from)) return "seek: " + in->error();
  char buf[7];
  for (ssize_t n; (n = in->read(buf, sizeof buf)) != 0;) {
    if (n < 0) return "failed: " + in->error();
    out.append(buf, static_cast<size_t>(n));
  }
  return out;
}

std::string nested(size_t depth) { return std::string(depth, '[') + std::string(depth, ']'); }

// "[x,x,…]": `n` times `item`.
std::string list(size_t n, const std::string &item) {
  std::string out = "[";
  for (size_t i = 0; i < n; ++i) out += (i ? "," : "") + item;
  return out + "]";
}
std::string zeros(size_t n) { return list(n, "0"); }

// A results file of `points` points with `samples` raw samples each (hits and latency).
std::string results_text(size_t points, size_t samples) {
  ResultsDoc doc;
  doc.file = "x.bdsl";
  for (size_t i = 0; i < points; ++i) {
    PlanPoint p;
    p.index = i;
    p.label = "p" + std::to_string(i);
    PointResult r;
    r.report = {"hits", "latency"};
    for (size_t k = 0; k < samples; ++k) {
      Sample s;
      s.duration_s = 1;
      s.deltas["hits"] = 5'000'000 + k % 1000;
      r.samples.push_back(s);
    }
    r.summary = summarize(r.samples, {test::counter_metric("hits", "hits", "events")}, 1, r.report);
    doc.points.push_back(point_result_to_json(p, r, "", 1, 1'000'000'000));
  }
  return json_text(doc.to_json());
}

// `text` with the value of the first `"key": <value>` (a JSON string or [...] of no nested
// brackets) replaced by `value`.
std::string with_value(std::string text, const std::string &key, const std::string &value) {
  size_t at = text.find("\"" + key + "\":");
  REQUIRE(at != std::string::npos);
  size_t from = at + key.size() + 3, to = from;
  if (text[from] == '[') to = text.find(']', from) + 1;
  else if (text[from] == '"') to = text.find('"', from + 1) + 1;
  else to = text.find_first_of(",}", from);
  return text.replace(from, to - from, value);
}

}  // namespace

TEST_CASE("open_input_stream: read_input_file's refusals, then pieces bounded while read", "[io][json]") {
  TempDir d;
  std::string file = d.write("a.txt", "0123456789abcdefghij");
  CHECK(read_pieces(file, 100) == "0123456789abcdefghij");
  CHECK(read_pieces(file, 100, nullptr, 10) == "abcdefghij");
  CHECK(read_pieces(file, 10) == "refused: is larger than the 10 bytes limit");
  CHECK(read_pieces(d.path.string(), 100) == "refused: is a directory");
  REQUIRE(::mkfifo((d.path / "fifo").c_str(), 0600) == 0);
  auto start = std::chrono::steady_clock::now();
  CHECK(read_pieces((d.path / "fifo").string(), 100) == "refused: is a FIFO, not a regular file");
  CHECK(std::chrono::steady_clock::now() - start < std::chrono::seconds(2));
  CHECK(read_pieces("/dev/zero", 100) == "refused: is a character device, not a regular file");
  // /proc files say size 0: refused once more than the limit has come.
  CHECK(read_pieces("/proc/self/status", 16) == "failed: is larger than the 16 bytes limit");
  std::atomic<bool> stop{true};
  CHECK(read_pieces(file, 100, &stop) == "failed: interrupted");
}

TEST_CASE("bounded JSON: depth and memory are bounded, errors have a place and no exception text", "[json]") {
  JsonError e;
  CHECK(parse_json(nested(64), e));
  CHECK_FALSE(parse_json(nested(65), e));
  CHECK(e.text("b.json") == "b.json:1:65: nested deeper than 64 levels");
  auto start = std::chrono::steady_clock::now();
  CHECK_FALSE(parse_json("{\"a\":\n  " + nested(300'000) + "}", e));  // nlohmann's copy of it recursed
  CHECK(e.text("b.json") == "b.json:2:66: nested deeper than 64 levels");
  CHECK(std::chrono::steady_clock::now() - start < std::chrono::seconds(5));
  // 1 KiB: 50 numbers take 16 bytes each (+80 for the array), 100 do not fit; nor do 20
  // strings (64 bytes each) or 10 members (112 bytes each).
  const JsonLimits kib{kMaxJsonDepth, 1024, 1024};
  CHECK(parse_json(zeros(50), e, false, kib));
  CHECK_FALSE(parse_json(zeros(100), e, false, kib));
  CHECK(e.text("b.json") == "b.json:1:121: the document would take more than 1 KiB of memory to hold");
  CHECK(parse_json(list(10, "\"\""), e, false, kib));
  CHECK_FALSE(parse_json(list(20, "\"\""), e, false, kib));
  CHECK(parse_json(list(1, "{\"a\":1,\"b\":1,\"c\":1,\"d\":1}"), e, false, kib));
  CHECK_FALSE(
      parse_json(list(1, "{\"a\":1,\"b\":1,\"c\":1,\"d\":1,\"e\":1,\"f\":1,\"g\":1,\"h\":1,\"i\":1}"), e, false, kib));
  // The default: 64 MiB of values, whatever the text's size.
  CHECK(format_byte_limit(kMaxJsonHeldBytes) == "64 MiB");

  CHECK_FALSE(parse_json("{\"schema\": \n  nope}", e));
  CHECK(e.text("b.json") == "b.json:2:4: not valid JSON: syntax error while parsing value - invalid literal");
  CHECK_FALSE(parse_json("[1e999]", e));
  CHECK(e.text("b.json") == "b.json: not valid JSON: number overflow parsing '1e999'");
  CHECK_FALSE(parse_json("[\"json.exception\" x]", e));  // the file's bytes are not echoed
  CHECK(e.text("b.json").find("json.exception") == std::string::npos);
  CHECK_FALSE(parse_json("[1] // c", e));
  CHECK(parse_json("[1] // c", e, true));  // manifests allow comments

  TempDir d;
  REQUIRE(::mkfifo((d.path / "fifo").c_str(), 0600) == 0);
  std::string fifo = (d.path / "fifo").string();
  CHECK_FALSE(read_json_file(fifo, kMaxTextInputBytes, e));
  CHECK(e.text(fifo) == "cannot read " + fifo + ": is a FIFO, not a regular file");
  auto j = read_json_file(d.write("ok.json", "{\"a\": [1, 2]}"), kMaxTextInputBytes, e);
  REQUIRE(j);
  CHECK((*j)["a"].size() == 2);
}

namespace {

// Skips "skip", counts "count", streams "items"; the document keeps the rest.
class RolesReader final : public JsonReader {
 public:
  using JsonReader::JsonReader;
  std::vector<nlohmann::json> items;
  std::vector<size_t> counts;

 protected:
  Role role(bool) override {
    if (depth() != 1) return Role::Keep;
    return key() == "skip" ? Role::Skip : key() == "count" ? Role::Count : key() == "items" ? Role::Stream : Role::Keep;
  }
  void element(nlohmann::json &&e, size_t index) override {
    CHECK(index == items.size());
    items.push_back(std::move(e));
  }
  void counted(size_t n) override { counts.push_back(n); }
};

}  // namespace

TEST_CASE("bounded JSON: what a reader skips, counts or streams is never held whole", "[json]") {
  // 1 KiB: the 1000 skipped and counted numbers (16 KB held) and the streamed elements
  // (each alone within it) do not count.
  std::string many = zeros(1000);
  const JsonLimits kib{kMaxJsonDepth, 1024, 1024 * 1024};
  RolesReader r(kib);
  const std::string text =
      "{\"skip\": {\"a\": " + many + "}, \"count\": " + many + ", \"items\": [{\"x\": [1, 2]}, 7, [3]], \"k\": 1}";
  JsonSource src(text);
  bool ok = r.read(src);
  INFO(r.error().text("b.json"));
  REQUIRE(ok);
  nlohmann::json doc = r.take();
  CHECK(doc == nlohmann::json::parse(R"({"skip": {}, "count": [], "items": [], "k": 1})"));
  CHECK(r.counts == std::vector<size_t>{1000});
  REQUIRE(r.items.size() == 3);
  CHECK(r.items[0] == nlohmann::json::parse(R"({"x": [1, 2]})"));
  CHECK(r.items[1] == 7);
  // An element over the budget is named by its path.
  RolesReader big(kib);
  const std::string text2 = "{\"items\": [1, " + zeros(100) + "]}";
  JsonSource src2(text2);
  CHECK_FALSE(big.read(src2));
  CHECK(big.error().text("b.json") == "b.json:1:135: items[1] would take more than 1 KiB of memory to hold");
  // Elements handed over count toward the total (the reader keeps them in some form).
  RolesReader total(JsonLimits{kMaxJsonDepth, 1024, 4096});
  const std::string text3 = "{\"items\": " + list(10, zeros(40)) + "}";
  JsonSource src3(text3);
  CHECK_FALSE(total.read(src3));
  CHECK(total.error().text("b.json").find(": the document would take more than 4 KiB of memory to hold") !=
        std::string::npos);
}

// --- results files ----------------------------------------------------------------------

TEST_CASE("results files: a plan nested 300,000 deep is refused at its place, not a crash", "[results][read][json]") {
  TempDir d;
  std::string text = with_value(results_text(1, 4), "plan", "{\"a\":" + nested(300'000) + "}");
  std::string deep = d.write("deep.json", text), err;
  err = test::expect_error(results_from_text(text, deep));
  CHECK(err.rfind(deep + ":1:", 0) == 0);
  CHECK(err.find(": nested deeper than 64 levels") != std::string::npos);
  // compare and plot copied the plan: exit 139 (SIGSEGV) before.
  for (std::vector<std::string> args : {std::vector<std::string>{"compare", deep, deep},
                                        std::vector<std::string>{"plot", deep, "-o", (d.path / "p.svg").string()}}) {
    args.insert(args.begin(), kBin);
    auto r = run_process(args, 60);
    CHECK(r.exit_code == 2);
    CHECK(r.err == "bpfbench: error: " + err + "\n");
  }
}

TEST_CASE("results files past 16 MiB read in pieces: samples counted, never held, up to 1 GiB",
          "[results][read][json]") {
  TempDir d;
  // 6 points of 40,000 samples: ~22 MB, refused at 16 MiB before.
  std::string big = d.write("big.json", results_text(6, 40'000));
  REQUIRE(fs::file_size(big) > (uint64_t{16} << 20));
  auto rs = load_results(big);
  INFO(test::error_text(rs));
  REQUIRE(rs);
  REQUIRE(rs->points.size() == 6);
  CHECK(rs->points[5].nsamples == 40'000);
  CHECK(rs->points[5].metric("hits")->values.size() == 40'000);
  auto r = run_process({kBin, "compare", big, big, "--format", "json"}, 120);
  CHECK(r.exit_code == 0);
  CHECK(nlohmann::json::parse(r.out)["points"].size() == 6);

  // More samples than a point may hold in memory: read, because they are only counted; the
  // same numbers where the values are kept are refused, named by the point.
  std::string one = results_text(1, 4);
  const size_t n = kMaxJsonHeldBytes / 16 + 1;
  std::string many = zeros(n);
  rs = results_from_text(with_value(one, "samples", many), "b.json");
  REQUIRE(rs);
  CHECK(rs->points[0].nsamples == n);
  std::string err = test::expect_error(results_from_text(with_value(one, "values", many), "b.json"));
  CHECK(err.find(": points[0] would take more than 64 MiB of memory to hold") != std::string::npos);
  // 4 million empty strings in a point's report: 12 MB of text, ~0.5 GB as nlohmann objects
  // (peak RSS of compare before the memory bound); refused now.
  err = test::expect_error(results_from_text(with_value(one, "report", list(4'000'000, "\"\"")), "b.json"));
  CHECK(err.find(": points[0] would take more than 64 MiB of memory to hold") != std::string::npos);

  // The bound is 1 GiB now (sparse files: nothing is written).
  std::string past = d.write("past.json", "");
  fs::resize_file(past, (uint64_t{1} << 30) + 1);
  err = test::expect_error(load_results(past));
  CHECK(err == "cannot read " + past + ": is larger than the 1 GiB limit");
  fs::resize_file(past, (uint64_t{16} << 20) + 1);
  err = test::expect_error(load_results(past));
  CHECK(err.find("not valid JSON") != std::string::npos);  // read, not refused by size
  // A stop signal ends a long read.
  std::atomic<bool> stop{true};
  err = test::expect_error(load_results(big, &stop));
  CHECK(err == "cannot read " + big + ": interrupted");
}

// --- ab --floor-from ----------------------------------------------------------------------

TEST_CASE("floor files: only the floors are kept, each a number >= 0", "[ab][json]") {
  auto floors = floors_from_text(R"({"bpfbench_ab": 1, "control": true, "noise_floor_pct": 2.5,
                                     "floors": {"S / t": 1.5, "S / u": null}, "points": [{"a": [1]}]})",
                                 "c.json");
  REQUIRE(floors);
  CHECK(*floors == FloorMap{{"", 2.5}, {"S / t", 1.5}});
  // A control run's points are read past, not held: more values than a document may hold.
  std::string many = zeros(kMaxJsonHeldBytes / 16 + 1);
  CHECK(floors_from_text(R"({"bpfbench_ab": 1, "control": true, "noise_floor_pct": 1, "points": )" + many + "}",
                         "c.json"));
  auto error = [](const std::string &text) {
    auto f = floors_from_text(text, "c.json");
    return f ? std::string("accepted") : f.error().message;
  };
  const std::string head = R"({"bpfbench_ab": 1, "control": true, )";
  CHECK(error(head + R"("noise_floor_pct": -5})") == "c.json: noise_floor_pct: expected a number >= 0, got -5");
  CHECK(error(head + R"("floors": {"S / t": -3}})") == "c.json: floors[\"S / t\"]: expected a number >= 0, got -3");
  CHECK(error(head + R"("floors": {"S / t": "1"}})") ==
        "c.json: floors[\"S / t\"]: expected a number >= 0, got a string");
  CHECK(error(head + R"("floors": [1]})") == "c.json: floors: expected an object, got an array");
  // The key names the entry, as printable text (no terminal escape reaches stderr).
  CHECK(error(head + "\"floors\": {\"\\u001b\": -1}}").find('\x1b') == std::string::npos);
  CHECK(error(head + "\"floors\": {\"S /\\u001b[31m\": {}}}") ==
        "c.json: floors[\"S /" + printable_text("\x1b") + "[31m\"]: expected a number >= 0, got an object");
  CHECK(error(R"({"bpfbench_ab": 1, "control": "yes", "noise_floor_pct": 1})") ==
        "c.json: control: expected true or false, got a string");
  CHECK(error(R"({"bpfbench_ab": 1, "control": false, "noise_floor_pct": 1})") ==
        "c.json: not the JSON of a control run (bpfbench ab --control --format json)");
  CHECK(error(head + R"("floors": {}})") ==
        "c.json: the control run holds no noise floor (no point of it has a ratio)");
  CHECK(error(head + R"("x": )" + nested(100) + "}") == "c.json:1:105: nested deeper than 64 levels");
}

TEST_CASE("ab --floor-from: FIFO, folder, missing or bad file: exit 2 at once with a clear message",
          "[ab][cli][json]") {
  TempDir d;
  const char *bench = "suite \"S\" < bench trigger as \"t\" < prog base; warmup 0s; duration 1s; > >\n";
  std::string a = d.write("a.bdsl", bench), b = d.write("b.bdsl", bench);
  REQUIRE(::mkfifo((d.path / "fifo").c_str(), 0600) == 0);
  std::string fifo = (d.path / "fifo").string(), missing = (d.path / "missing.json").string();
  std::string big = d.write("big.json", "");
  fs::resize_file(big, (uint64_t{16} << 20) + 1);
  struct Case {
    std::string file, message;
  };
  std::vector<Case> cases{
      // Before: waited for a writer forever, deaf to SIGINT/SIGTERM (held for the run).
      {fifo, "cannot read " + fifo + ": is a FIFO, not a regular file"},
      // Before: "internal error: basic_filebuf::underflow …", "… is not JSON", exception text.
      {d.path.string(), "cannot read " + d.path.string() + ": is a directory"},
      {missing, "cannot read " + missing + ": No such file or directory"},
      {big, "cannot read " + big + ": is larger than the 16 MiB limit"},
  };
  std::string yes = d.write("yes.json", R"({"bpfbench_ab": 1, "control": "yes", "noise_floor_pct": 1})");
  cases.push_back({yes, yes + ": control: expected true or false, got a string"});
  std::string neg = d.write("neg.json", R"({"bpfbench_ab": 1, "control": true, "floors": {"S / t": -3}})");
  cases.push_back({neg, neg + ": floors[\"S / t\"]: expected a number >= 0, got -3"});  // was used as 0
  for (const auto &c : cases) {
    auto start = std::chrono::steady_clock::now();
    auto r = run_process({kBin, "ab", a, b, "--max-pairs", "3", "--floor-from", c.file}, 30);
    CHECK(r.exit_code == 2);
    CHECK(r.err == "bpfbench: error: " + c.message + "\n");
    CHECK(std::chrono::steady_clock::now() - start < std::chrono::seconds(10));
  }
}
