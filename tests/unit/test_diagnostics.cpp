// Rendering of diagnostics: the full text a user sees.
#include <catch2/catch.hpp>

#include "compiler/bdsl/diagnostics.hpp"
#include "compiler/pipeline.hpp"

using namespace bpfbench;

TEST_CASE("a ranged error renders location, source line, underline and hint", "[diagnostics]") {
  SourceManager sm;
  uint32_t id = sm.add("x.bdsl", "# c\nbench ringbuf < smaple_rate 5 >\n");
  Diagnostics ds;
  ds.error(SourceRange{id, 2, 17, 2, 27}, "unknown parameter 'smaple_rate'", {"did you mean 'sample_rate'?"});
  CHECK(render_all(ds, sm) == "x.bdsl:2:17-27: error: unknown parameter 'smaple_rate'\n"
                              "bench ringbuf < smaple_rate 5 >\n"
                              "                ~~~~~~~~~~~\n"
                              "hint: did you mean 'sample_rate'?\n");
  CHECK(ds.has_errors());
  CHECK(ds.error_count() == 1);
}

TEST_CASE("a one-column error prints line:col and one tilde", "[diagnostics]") {
  SourceManager sm;
  uint32_t id = sm.add("y.bdsl", "bench a < b 5 c >");
  Diagnostics ds;
  ds.warning(SourceRange{id, 1, 15, 1, 15}, "careful");
  CHECK(render_all(ds, sm) == "y.bdsl:1:15: warning: careful\nbench a < b 5 c >\n              ~\n");
  CHECK_FALSE(ds.has_errors());
}

TEST_CASE("notes render after their diagnostic, unlocated messages have no source line", "[diagnostics]") {
  SourceManager sm;
  uint32_t id = sm.add("z.bdsl", "bench r < batch 1; batch 2 >\n");
  Diagnostics ds;
  Diagnostic &d = ds.error(SourceRange{id, 1, 20, 1, 24}, "'batch' is set twice in this bench");
  d.notes.push_back(Diagnostic{Severity::Note, SourceRange{id, 1, 11, 1, 15}, "first set here", {}, {}, {}});
  ds.error({}, "family.json: bad");
  CHECK(render_all(ds, sm) == "z.bdsl:1:20-24: error: 'batch' is set twice in this bench\n"
                              "bench r < batch 1; batch 2 >\n"
                              "                   ~~~~~\n"
                              "z.bdsl:1:11-15: note: first set here\n"
                              "bench r < batch 1; batch 2 >\n"
                              "          ~~~~~\n"
                              "error: family.json: bad\n");
}

TEST_CASE("control bytes and tabs in the source line do not break the underline", "[diagnostics]") {
  SourceManager sm;
  std::string text = "\tbench \x01 x";
  uint32_t id = sm.add("b.bdsl", text);
  Diagnostics ds;
  ds.error(SourceRange{id, 1, 8, 1, 8}, "invalid character");
  CHECK(render_all(ds, sm) == "b.bdsl:1:8: error: invalid character\n bench ? x\n       ~\n");
}

TEST_CASE("a 1 MB line is cut around the error", "[diagnostics]") {
  SourceManager sm;
  std::string line(1 << 20, 'a');
  uint32_t id = sm.add("long.bdsl", line);
  Diagnostics ds;
  ds.error(SourceRange{id, 1, 500000, 1, 500002}, "here");
  std::string out = render_all(ds, sm);
  CHECK(out.size() < 600);
  CHECK(out.find("long.bdsl:1:500000-500002: error: here\n") == 0);
  CHECK(out.find("~~~\n") != std::string::npos);
}

TEST_CASE("did_you_mean finds close names only", "[diagnostics]") {
  std::vector<std::string> names = {"sample_rate", "batch", "ring_size"};
  CHECK(did_you_mean("smaple_rate", names) == "sample_rate");
  CHECK(did_you_mean("bacth", names) == "batch");
  CHECK(did_you_mean("zzzzzz", names).empty());
}
