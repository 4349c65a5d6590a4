// emit_programs / emit_point: generated C layout, grouping into units, template errors,
// line mapping, and that the C compiles (errors pointing at the template or the .bdsl).
#include <catch2/catch.hpp>

#include <elf.h>
#include <stdlib.h>

#include <cstring>
#include <filesystem>
#include <fstream>
#include <map>
#include <sstream>
#include <string>

#include "compiler/bpf/clang_compile.hpp"
#include "compiler/bpf/emit_bpf.hpp"
#include "compiler/bpf/template_render.hpp"
#include "runtime/bpf_object.hpp"

using namespace bpfbench;
namespace fs = std::filesystem;

namespace {

const std::string kTemplates = BPFBENCH_SOURCE_DIR "/bpf_templates";
const std::string kFixtures = BPFBENCH_SOURCE_DIR "/tests/fixtures/families";

FamilyRegistry load_families(std::vector<std::string> dirs = {kTemplates, kFixtures}) {
  SourceManager sources;
  Diagnostics diags;
  FamilyRegistry reg = FamilyRegistry::load(dirs, sources, diags);
  for (const auto &d : diags.all()) INFO(d.message);
  REQUIRE_FALSE(diags.has_errors());
  return reg;
}

// A plan point with every param at its manifest default, then `set` applied; `ranges`
// gives the .bdsl location of chosen params.
PlanPoint make_point(const FamilyManifest &f, std::vector<std::pair<std::string, ParamValue>> set = {},
                     std::vector<std::pair<std::string, SourceRange>> ranges = {}) {
  PlanPoint p;
  p.family = f.name;
  p.program = f.default_program;
  for (const auto &spec : f.params) {
    ParamValue v = spec.default_value;
    SourceRange r;
    for (const auto &[n, x] : set)
      if (n == spec.name) v = x;
    for (const auto &[n, x] : ranges)
      if (n == spec.name) r = x;
    p.params.emplace_back(spec.name, v);
    p.param_ranges.push_back(r);
  }
  return p;
}

ParamValue num(int64_t i) { return ParamValue{true, i, {}}; }
ParamValue str(std::string s) { return ParamValue{false, 0, std::move(s)}; }

bool contains(const std::string &hay, const std::string &needle) { return hay.find(needle) != std::string::npos; }

CompileResult compile(const std::string &c, const std::string &name) {
  CompileOptions opts;
  opts.virtual_name = name;
  opts.use_cache = false;
  return compile_bpf(c, opts);
}

// The one program of a plan of point `p`, emitted and compiled (not cached).
CompileResult compile_point(const FamilyRegistry &reg, const PlanPoint &p) {
  RunPlan plan;
  plan.points.push_back(p);
  SourceManager sm;
  Diagnostics diags;
  auto units = emit_programs(plan, reg, sm, diags);
  REQUIRE(units.size() == 1);
  return compile(units[0].c_source, units[0].virtual_name);
}

// The .rodata variables of a compiled object, by offset (none when it does not open).
std::map<size_t, std::string> rodata_layout(const std::vector<uint8_t> &object) {
  std::map<size_t, std::string> vars;
  BpfObject obj;
  if (!obj.open(object, "layout")) return vars;
  for (const DatasecVar &v : obj.datasec_vars(".rodata")) vars[v.offset] = v.name;
  return vars;
}

std::string dump(const CompileResult &r) {
  std::ostringstream ss;
  ss << r.error;
  for (const auto &d : r.diags) ss << "\n" << d.file << ":" << d.line << ":" << d.col << ": " << d.message;
  return ss.str();
}

const CompileDiag *first_error(const CompileResult &r) {
  for (const auto &d : r.diags)
    if (d.severity == Severity::Error) return &d;
  return nullptr;
}

}  // namespace

TEST_CASE("generated C: headers, builtins, rodata defaults, template", "[emit]") {
  FamilyRegistry reg = load_families();
  const FamilyManifest *f = reg.find("ringbuf");
  REQUIRE(f);
  SourceManager sm;
  Diagnostics diags;
  auto c = emit_point(make_point(*f, {{"batch", num(77)}}), *f, reg, sm, diags);
  REQUIRE(c);
  CHECK_FALSE(diags.has_errors());
  CHECK(contains(*c, "#include <linux/bpf.h>\n#include <bpf/bpf_helpers.h>\n"));
  CHECK(contains(*c, "#line 1 \"" + kTemplates + "/include/bpfbench_shared.h\"\n"));
  CHECK(contains(*c, "struct bb_counter {"));  // the shared header, inlined
  CHECK(contains(*c, "const volatile __u32 bb_tgid = 0;\n"));
  // The manifest default, not the point's 77: the object is shared by every batch value.
  CHECK(contains(*c, "const volatile __u32 batch = 500;\n"));
  CHECK(contains(*c, "const volatile __u32 sample_rate = 500;\n"));
  CHECK(contains(*c, "const volatile __u32 sampled = 0;\n"));
  CHECK_FALSE(contains(*c, "ring_size ="));  // map_size and runtime params are not C globals
  CHECK_FALSE(contains(*c, "consumer ="));
  CHECK(contains(*c, "#line 1 \"" + f->template_path + "\"\n"));
  CHECK(contains(*c, "int bench_reserve_commit(void *ctx)"));
  // The template follows its #line 1 verbatim (it has no mustache tags).
  CHECK(c->substr(c->find("#line 1 \"" + f->template_path)).find(f->template_text) != std::string::npos);
  // After the header, the generated lines name the generated file, with the right number.
  size_t back = c->find("#line ", c->find("bpfbench_shared.h\"") + 1);
  REQUIRE(back != std::string::npos);
  size_t line_no = static_cast<size_t>(std::count(c->begin(), c->begin() + static_cast<long>(back), '\n')) + 2;
  CHECK(c->substr(back, c->find('\n', back) - back) == "#line " + std::to_string(line_no) + " \"ringbuf.bpf.c\"");
}

TEST_CASE("points differing in rodata share a unit, template params split units", "[emit]") {
  FamilyRegistry reg = load_families();
  const FamilyManifest *rb = reg.find("ringbuf");
  const FamilyManifest *tp = reg.find("tplparam");
  REQUIRE(rb);
  REQUIRE(tp);
  RunPlan plan;
  plan.points.push_back(make_point(*rb, {{"batch", num(1)}, {"sample_rate", num(1)}}));
  plan.points.push_back(make_point(*rb, {{"batch", num(500)}, {"ring_size", num(1 << 20)}}));
  plan.points.push_back(make_point(*tp, {{"slots", num(4)}}));
  plan.points.push_back(make_point(*tp, {{"slots", num(16)}}));
  plan.points.push_back(make_point(*tp, {{"slots", num(4)}}));
  plan.points.push_back(make_point(*tp, {{"slots", num(4)}, {"mode", str("sum")}}));
  SourceManager sm;
  Diagnostics diags;
  auto units = emit_programs(plan, reg, sm, diags);
  CHECK_FALSE(diags.has_errors());
  REQUIRE(units.size() == 4);
  CHECK(units[0].family == "ringbuf");
  CHECK(units[0].virtual_name == "ringbuf-0.bpf.c");
  CHECK(units[0].points == std::vector<size_t>{0, 1});
  CHECK(units[0].template_params.empty());
  CHECK(units[1].virtual_name == "tplparam-0.bpf.c");
  CHECK(units[1].points == std::vector<size_t>{2, 4});
  CHECK(units[1].template_params ==
        std::vector<std::pair<std::string, ParamValue>>{{"slots", num(4)}, {"mode", str("count")}});
  CHECK(units[2].virtual_name == "tplparam-1.bpf.c");
  CHECK(units[2].points == std::vector<size_t>{3});
  CHECK(units[3].points == std::vector<size_t>{5});
  CHECK(contains(units[1].c_source, "#define BB_SLOTS 4\n"));
  CHECK(contains(units[1].c_source, "#define BB_MODE count\n#define BB_MODE_COUNT 1\n"));
  CHECK(contains(units[1].c_source, "volatile __u64 buf[BB_SLOTS]; /* 4 slots */"));
  CHECK(contains(units[2].c_source, "#define BB_SLOTS 16\n"));
  CHECK(contains(units[3].c_source, "bb_add(bb_hits, buf[BB_SLOTS - 1]);"));
  CHECK_FALSE(contains(units[3].c_source, "bb_inc(bb_hits);"));
  CHECK(contains(units[1].c_source, "bb_inc(bb_hits);"));
}

TEST_CASE("an unknown family in the plan is an error at the bench", "[emit]") {
  FamilyRegistry reg = load_families();
  RunPlan plan;
  PlanPoint p;
  p.family = "nope";
  p.bench_range = SourceRange{0, 3, 1, 3, 5};
  plan.points.push_back(p);
  SourceManager sm;
  Diagnostics diags;
  CHECK(emit_programs(plan, reg, sm, diags).empty());
  REQUIRE(diags.error_count() == 1);
  CHECK(diags.all()[0].message == "unknown benchmark family 'nope'");
  CHECK(diags.all()[0].range.line == 3);
}

TEST_CASE("render_template: unknown keys, bad mustache, escaping off", "[emit]") {
  std::vector<TemplateKey> keys = {{"n", false, false, "<&\"x\">"}, {"flag", true, true, {}}};
  SourceManager sm;
  Diagnostics diags;
  // Every template error is `file:line:col` (-col), the template line and `~` under the tag.
  auto shown = [&] { return render_all(diags, sm); };
  SECTION("values are not HTML-escaped") {
    auto out = render_template("/t/prog.bpf.c", "a {{n}} b\n{{#flag}}yes\n{{/flag}}", keys, sm, diags);
    REQUIRE(out);
    CHECK(*out == "a <&\"x\"> b\nyes\n");
  }
  SECTION("every tag kind is checked, a section once") {
    const char *text = "x\n{{nope}}\n{{#sec}}{{/sec}}\n{{^inv}}{{/inv}}\n{{{tri}}} {{& amp }}\n{{! a comment }}\n";
    CHECK_FALSE(render_template("/t/prog.bpf.c", text, keys, sm, diags));
    std::vector<std::string> where;
    for (const auto &d : diags.all())
      where.push_back(std::to_string(d.range.line) + ":" + std::to_string(d.range.col) + "-" +
                      std::to_string(d.range.end_col) + " " + d.message);
    CHECK(where == std::vector<std::string>{
                       "2:3-6 unknown mustache key 'nope'",
                       "3:4-6 unknown mustache key 'sec'",
                       "4:4-6 unknown mustache key 'inv'",
                       "5:4-6 unknown mustache key 'tri'",
                       "5:15-17 unknown mustache key 'amp'",
                   });
  }
  SECTION("an unknown key is file:line:col-col with the line, the nearest key and what keys there are") {
    CHECK_FALSE(render_template("/t/p.c", "int x;\n\treturn {{falg}};\n", keys, sm, diags));
    CHECK(shown() == "/t/p.c:2:11-14: error: unknown mustache key 'falg'\n"
                     " return {{falg}};\n"
                     "          ~~~~\n"
                     "hint: did you mean 'flag'?\n"
                     "hint: the keys of this template: n, flag\n");
  }
  SECTION("a C initializer that looks like a tag gets a hint") {
    CHECK_FALSE(render_template("/t/p.c", "int a[1][1] = {{0}};\n", keys, sm, diags));
    REQUIRE(diags.all().size() == 1);
    CHECK(diags.all()[0].message == "unknown mustache key '0'");
    auto out = render_template("/t/p.c", "int a[1][2] = {{0, 1}};\n", keys, sm, diags);
    CHECK_FALSE(out);
    CHECK(diags.all()[1].hints.at(0) == "'{{' starts a mustache tag; in C code write '{ {'");
  }
  SECTION("an empty tag says so") {
    CHECK_FALSE(render_template("/t/p.c", "int x;\n{{&}}\n", keys, sm, diags));
    REQUIRE(diags.all().size() == 1);
    CHECK(diags.all()[0].message == "empty mustache tag");
    CHECK(diags.all()[0].range.line == 2);
  }
  SECTION("bool keys only drive sections") {
    CHECK_FALSE(render_template("/t/p.c", "\n{{flag}}", keys, sm, diags));
    CHECK(diags.all()[0].message == "bool key 'flag' renders nothing as a value");
    CHECK(diags.all()[0].range.line == 2);
    CHECK(diags.all()[0].range.col == 3);
  }
  SECTION("broken mustache: the tag that is wrong, at its column") {
    CHECK_FALSE(render_template("/t/p.c", "a\nb\n  {{#flag}}\nc\n", keys, sm, diags));
    CHECK(shown() == "/t/p.c:3:3-11: error: section 'flag' is never closed\n"
                     "  {{#flag}}\n"
                     "  ~~~~~~~~~\n"
                     "hint: close it with {{/flag}}\n");
  }
  SECTION("a close of nothing, of another section, an unclosed tag, a partial") {
    CHECK_FALSE(render_template("/t/a.c", "a\n {{/flag}}\n", keys, sm, diags));
    CHECK_FALSE(render_template("/t/b.c", "{{#flag}}\n{{#n}}\n{{/flag}}\n{{/n}}\n", keys, sm, diags));
    CHECK_FALSE(render_template("/t/c.c", "a\n\nx {{n\n", keys, sm, diags));
    CHECK_FALSE(render_template("/t/d.c", "{{> part}}", keys, sm, diags));
    CHECK(shown() == "/t/a.c:2:2-10: error: '{{/flag}}' closes a section that is not open\n"
                     " {{/flag}}\n"
                     " ~~~~~~~~~\n"
                     "/t/b.c:3:1-9: error: '{{/flag}}' does not close the open section 'n'\n"
                     "{{/flag}}\n"
                     "~~~~~~~~~\n"
                     "hint: close 'n' first: {{/n}}\n"
                     "/t/b.c:2:1-6: note: section 'n' opened here\n"
                     "{{#n}}\n"
                     "~~~~~~\n"
                     "/t/c.c:3:3-4: error: mustache tag '{{' is never closed with '}}'\n"
                     "x {{n\n"
                     "  ~~\n"
                     "hint: '{{' starts a mustache tag; in C code write '{ {'\n"
                     "/t/d.c:1:1-10: error: mustache partials are not supported\n"
                     "{{> part}}\n"
                     "~~~~~~~~~~\n");
  }
  SECTION("the bytes that mark template lines while rendering stay text, in the template and in values") {
    std::vector<TemplateKey> odd = {{"v", false, false,
                                     "/* \x01"
                                     "9\x02 */"}};
    auto out = render_template("/t/q.c",
                               "int \x01"
                               "7\x02 b;\na {{v}}\n\x01\n",
                               odd, sm, diags);
    REQUIRE(out);
    CHECK(*out == "int \x01"
                  "7\x02 b;\na /* \x01"
                  "9\x02 */\n\x01\n");
    CHECK_FALSE(diags.has_errors());
  }
}

TEST_CASE("render_template keeps template line numbers with #line", "[emit]") {
  std::vector<TemplateKey> off = {{"on", true, false, {}}}, on = {{"on", true, true, {}}};
  const std::string text = "l1\n{{#on}}\nl3\nl4\n{{/on}}\nl6\n{{^on}}\nl8 \\\nl9\n{{/on}}\nl11\n";
  SourceManager sm;
  Diagnostics diags;
  auto a = render_template("/t/p.c", text, off, sm, diags);
  REQUIRE(a);
  // Lines 3-4 removed: l6 needs a #line; lines 7-10 render in place (the tag lines stay
  // as empty lines, so no directive is needed until after them).
  CHECK(*a == "l1\n\n#line 6 \"/t/p.c\"\nl6\n\nl8 \\\nl9\n\nl11\n");
  auto b = render_template("/t/p.c", text, on, sm, diags);
  REQUIRE(b);
  CHECK(*b == "l1\n\nl3\nl4\n\nl6\n\n#line 11 \"/t/p.c\"\nl11\n");
  // A directive never lands inside a backslash-continued line.
  const std::string cont = "a {{#on}}\nb\n{{/on}}\\\nc\nd\n";
  auto c = render_template("/t/p.c", cont, off, sm, diags);
  REQUIRE(c);
  CHECK(*c == "a \\\nc\n#line 5 \"/t/p.c\"\nd\n");
  CHECK_FALSE(diags.has_errors());
}

TEST_CASE("an unknown key in a family template fails emit with the template line", "[emit]") {
  std::string tmpl = (fs::temp_directory_path() / "bpfbench-emit-XXXXXX").string();
  fs::path dir = mkdtemp(tmpl.data());
  fs::create_directories(dir / "fam");
  std::ofstream(dir / "fam" / "prog.bpf.c") << "/* x */\nint bench_x(void *ctx) { return {{vaule}}; }\n";
  std::ofstream(dir / "fam" / "family.json") << R"({ "family": "fam", "description": "d", "template": "prog.bpf.c",
              "params": [{ "name": "value", "type": "int", "default": 1, "dest": "template" }],
              "programs": [{ "name": "x", "section": "?raw_tp/sys_enter", "function": "bench_x" }] })";
  FamilyRegistry reg = load_families({kTemplates, dir.string()});
  const FamilyManifest *f = reg.find("fam");
  REQUIRE(f);
  RunPlan plan;
  plan.points.push_back(make_point(*f));
  plan.points.push_back(make_point(*f));
  SourceManager sm;
  Diagnostics diags;
  CHECK(emit_programs(plan, reg, sm, diags).empty());
  // Reported once for the group, not once per point.
  REQUIRE(diags.error_count() == 1);
  const std::string path = (dir / "fam" / "prog.bpf.c").string();
  // At the tag: file:line:col-col, the line, `~` under the key; then where it was used.
  INFO(render_all(diags, sm));
  CHECK(render_all(diags, sm).rfind(path + ":2:35-39: error: unknown mustache key 'vaule'\n"
                                           "int bench_x(void *ctx) { return {{vaule}}; }\n"
                                           "                                  ~~~~~\n"
                                           "hint: did you mean 'value'?\n"
                                           "hint: the keys of this template: family, value\n"
                                           "note: in the BPF program",
                                    0) == 0);
  fs::remove_all(dir);
}

TEST_CASE("the ringbuf family compiles to a BPF object", "[emit][clang]") {
  FamilyRegistry reg = load_families();
  const FamilyManifest *f = reg.find("ringbuf");
  REQUIRE(f);
  CompileResult r = compile_point(reg, make_point(*f));
  INFO(dump(r));
  REQUIRE(r.ok);
  CHECK(first_error(r) == nullptr);
  REQUIRE(r.object.size() > sizeof(Elf64_Ehdr));
  Elf64_Ehdr eh;
  std::memcpy(&eh, r.object.data(), sizeof(eh));
  CHECK(std::memcmp(eh.e_ident, ELFMAG, SELFMAG) == 0);
  CHECK(eh.e_machine == EM_BPF);
  std::string obj(r.object.begin(), r.object.end());
  for (const char *fn : {"bench_reserve_commit", "bench_output", "bench_perfbuf", "bb_drops", "bb_tgid", "sample_rate"})
    CHECK(contains(obj, fn));
}

TEST_CASE("a C error in a template is reported at the template line", "[emit][clang]") {
  FamilyRegistry reg = load_families();
  const FamilyManifest *f = reg.find("broken");
  REQUIRE(f);
  // extra=false removes template lines 3-6, extra=true keeps them: line 11 either way.
  for (bool extra : {false, true}) {
    SourceManager sm;
    Diagnostics diags;
    auto c = emit_point(make_point(*f, {{"extra", num(extra)}}), *f, reg, sm, diags);
    REQUIRE(c);
    CompileResult r = compile(*c, "broken.bpf.c");
    INFO(dump(r));
    CHECK_FALSE(r.ok);
    const CompileDiag *e = first_error(r);
    REQUIRE(e);
    CHECK(e->file == f->template_path);
    CHECK(e->line == 11);
    CHECK(e->col == 9);
    CHECK(contains(e->message, "bb_undeclared_identifier"));
  }
}

TEST_CASE("a template value the template cannot take errors at the .bdsl line", "[emit][clang]") {
  FamilyRegistry reg = load_families();
  const FamilyManifest *f = reg.find("tplparam");
  REQUIRE(f);
  SourceManager sm;
  uint32_t file = sm.add("/x/bench.bdsl", "bench tplparam <\n  mode sum;\n  slots 100;\n>\n");
  SourceRange slots_at{file, 3, 9, 3, 11};
  SourceRange mode_at{file, 2, 8, 2, 10};
  Diagnostics diags;
  auto bad =
      emit_point(make_point(*f, {{"slots", num(100)}, {"mode", str("sum")}}, {{"slots", slots_at}, {"mode", mode_at}}),
                 *f, reg, sm, diags);
  REQUIRE(bad);
  CHECK(contains(*bad, "#line 3 \"/x/bench.bdsl\"\n#define BB_SLOTS 100\n"));
  CHECK(contains(*bad, "#line 2 \"/x/bench.bdsl\"\n#define BB_MODE sum\n"));
  CompileResult r = compile(*bad, "tplparam.bpf.c");
  INFO(dump(r));
  CHECK_FALSE(r.ok);
  const CompileDiag *e = first_error(r);
  REQUIRE(e);
  CHECK(e->file == "/x/bench.bdsl");
  CHECK(e->line == 3);
  CHECK(contains(e->message, "slots = 100 does not satisfy BB_SLOTS * 8 <= 256"));

  // A value that fits compiles, with and without a .bdsl location.
  for (bool located : {false, true}) {
    auto good = emit_point(make_point(*f, {{"slots", num(32)}, {"mode", str("sum")}},
                                      located ? std::vector<std::pair<std::string, SourceRange>>{{"slots", slots_at}}
                                              : std::vector<std::pair<std::string, SourceRange>>{}),
                           *f, reg, sm, diags);
    REQUIRE(good);
    CompileResult ok = compile(*good, "tplparam.bpf.c");
    INFO(dump(ok));
    CHECK(ok.ok);
  }
  CHECK_FALSE(diags.has_errors());
}

// The kernel bench's trigger programs have batch_iters at .rodata offset 0, the page's first
// word; so does bpfbench's (the family's params first, bb_tgid after). Their driver loops
// re-read it after each locked add to CPU 0's counter, also at a page's first word, and
// the CPU makes that read wait on the add (4K aliasing): trig-kernel-count on CPU 0 ran
// ~25 % faster here with batch_iters at offset 8 (docs/measurements/2026-12-01-family-measurements.md, trigger).
TEST_CASE("the trigger family's batch_iters is the first .rodata variable, as in the kernel bench", "[emit][clang]") {
  FamilyRegistry reg = load_families();
  const FamilyManifest *f = reg.find("trigger");
  REQUIRE(f);
  PlanPoint p = make_point(*f);
  p.program = "kernel-count";
  CompileResult r = compile_point(reg, p);
  INFO(dump(r));
  REQUIRE(r.ok);
  std::map<size_t, std::string> vars = rodata_layout(r.object);
  REQUIRE(vars.size() == 3);
  CHECK(vars.at(0) == "batch_iters");
  CHECK(vars.at(4) == "pid_filter");
  CHECK(vars.at(8) == "bb_tgid");
}
