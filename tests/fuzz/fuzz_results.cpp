// libFuzzer target: the results-file reader and everything compare and plot do with what
// it accepts (matching, statistics, text/Markdown/JSON reports, CSV, the gnuplot script)
// on arbitrary bytes. Running gnuplot is left out; instead the script is checked for the
// property escaping must give: no command can be smuggled into it.
#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <string>
#include <string_view>

#include "util/escape.hpp"
#include "results/compare.hpp"
#include "results/plot.hpp"
#include "results/report_tables.hpp"
#include "results/results.hpp"

using namespace bpfbench;

namespace {

[[noreturn]] void fail(const char *what, const std::string &text) {
  std::fprintf(stderr, "fuzz_results: %s\n%.2000s\n", what, text.c_str());
  std::abort();
}

// Every line of the script is a command bpfbench writes (set/unset/plot), a data line
// (a number first) or the end of data ("e"); no backquote outside a '…' string, no
// string left open at the end of a line.
void check_gnuplot_script(const std::string &script) {
  size_t pos = 0;
  while (pos < script.size()) {
    size_t nl = script.find('\n', pos);
    if (nl == std::string::npos) fail("script does not end in a newline", script);
    std::string_view line(script.data() + pos, nl - pos);
    pos = nl + 1;
    bool data = !line.empty() && (line[0] == '-' || (line[0] >= '0' && line[0] <= '9') || line == "inf" ||
                                  line.substr(0, 3) == "nan" || line.substr(0, 3) == "inf");
    bool command =
        line.substr(0, 4) == "set " || line.substr(0, 6) == "unset " || line.substr(0, 5) == "plot " || line == "e";
    if (!data && !command) fail("a line bpfbench did not mean to write", std::string(line));
    if (data) {  // x "label" y err: the label is one field
      if (std::count(line.begin(), line.end(), '"') != 2) fail("a data line with a broken label", std::string(line));
      continue;
    }
    bool in_single = false;
    for (char c : line) {
      if (c == '\'') in_single = !in_single;  // '' toggles twice: still inside
      else if (!in_single && (c == '`' || c == '"' || c == '@'))
        fail("substitution outside a '…' string", std::string(line));
    }
    if (in_single) fail("a '…' string left open", std::string(line));
  }
}

}  // namespace

extern "C" int LLVMFuzzerTestOneInput(const uint8_t *data, size_t size) {
  std::string_view text(reinterpret_cast<const char *>(data), size);
  auto rs = results_from_text(text, "fuzz.json");
  if (!rs) {
    const std::string &err = rs.error().message;
    if (err.empty() || err.find("json.exception") != std::string::npos) fail("bad error message", err);
    return 0;
  }
  // compare against itself and against an empty set: both directions of matching.
  ResultSet empty;
  for (const std::string &metric : {std::string(), std::string("hits"), std::string("latency")}) {
    CompareOptions o;
    o.metric = metric;
    CompareReport c = compare_results(*rs, *rs, o);
    (void)compare_to_text(c);
    (void)compare_to_markdown(c);
    (void)json_text(compare_to_json(c), 2);
    (void)c.worst_regression_pct();
    (void)compare_to_text(compare_results(*rs, empty, o));
  }
  // The drift guard's two ways: normalized by the calibration, and judged with no limits.
  for (bool normalize : {false, true}) {
    CompareOptions o;
    o.normalize = normalize;
    o.drift_threshold_pct = normalize ? 0 : 5;
    o.noise_threshold_pct = normalize ? 0 : 10;
    CompareReport c = compare_results(*rs, *rs, o);
    (void)compare_to_text(c);
    (void)json_text(compare_to_json(c), 2);
  }
  (void)metric_names(*rs);
  (void)results_to_csv(*rs);
  (void)results_to_markdown(*rs);
  for (size_t sets = 1; sets <= 2; ++sets) {
    std::vector<const ResultSet *> ptrs(sets, &*rs);
    std::vector<std::string> names = sets == 1 ? std::vector<std::string>{""} : std::vector<std::string>{"A", "B"};
    auto charts = plot_charts(ptrs, names);
    check_gnuplot_script(gnuplot_script(charts, "/tmp/x'`id`\n.svg"));
  }
  return 0;
}
