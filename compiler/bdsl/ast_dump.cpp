#include "compiler/bdsl/ast_dump.hpp"

#include <fmt/format.h>

namespace bpfbench {

namespace {

using nlohmann::json;

std::string loc(const SourceRange &r) {
  return fmt::format("{}:{}:{}-{}:{}", r.file, r.line, r.col, r.end_line, r.end_col);
}

json value(const ast::Value &v) {
  using K = ast::Value::Kind;
  json j = {{"at", loc(v.range)}};
  switch (v.kind) {
  case K::Int:
    j["int"] = v.number;
    if (v.decimals > 0) j["decimals"] = v.decimals;
    if (!v.unit.empty()) j["unit"] = v.unit;
    break;
  case K::Ident: j["ident"] = v.text; break;
  case K::String: j["string"] = v.text; break;
  case K::List: {
    json items = json::array();
    for (const auto &i : v.items) items.push_back(value(i));
    j["list"] = items;
    break;
  }
  case K::Range: {
    static constexpr const char *kinds[] = {"step", "geometric", "log"};
    json items = json::array();
    for (const auto &i : v.items) items.push_back(value(i));
    j["range"] = {{"bounds", items}, {"kind", kinds[static_cast<int>(v.range_kind)]}};
    if (v.by) j["range"]["by"] = *v.by;
    break;
  }
  case K::Expr: {
    json items = json::array();
    for (const auto &i : v.items) items.push_back(value(i));
    j["expr"] = {{"op", v.text}, {"operands", items}};
    break;
  }
  }
  return j;
}

const char *kind_name(ast::Setting::Kind k) {
  using K = ast::Setting::Kind;
  switch (k) {
  case K::Assign: return "assign";
  case K::Sweep: return "sweep";
  case K::Report: return "report";
  case K::Where: return "where";
  case K::Until: return "until";
  case K::Expect: return "expect";
  case K::Baseline: return "baseline";
  }
  return "?";
}

json settings(const std::vector<ast::Setting> &list) {
  json out = json::array();
  for (const auto &s : list) {
    json names = json::array();
    for (const auto &n : s.names) names.push_back(n.text);
    json j = {{"kind", kind_name(s.kind)}, {"names", names}, {"at", loc(s.range)}};
    if (s.value) j["value"] = value(*s.value);
    if (s.zipped) j["zipped"] = true;
    if (!s.op.empty()) j["op"] = s.op;
    if (!s.body.empty()) j["body"] = settings(s.body);
    out.push_back(j);
  }
  return out;
}

json items(const std::vector<ast::Item> &list) {
  json out = json::array();
  for (const auto &item : list) {
    if (const auto *l = std::get_if<ast::Let>(&item.node))
      out.push_back({{"let", l->name.text}, {"value", value(l->value)}, {"at", loc(l->range)}});
    else if (const auto *d = std::get_if<ast::Defaults>(&item.node))
      out.push_back({{"defaults", settings(d->settings)}, {"at", loc(d->range)}});
    else if (const auto *b = std::get_if<ast::Bench>(&item.node)) {
      json j = {{"bench", b->family.text}, {"settings", settings(b->settings)}, {"at", loc(b->range)}};
      if (b->label) j["label"] = b->label->text;
      for (const auto &c : b->code)
        j["code"].push_back({{"hook", c.hook.text}, {"text", c.text}, {"at", loc(c.text_range)}});
      out.push_back(j);
    } else if (const auto *s = std::get_if<ast::Suite>(&item.node))
      out.push_back({{"suite", s->title.text}, {"items", items(s->items)}, {"at", loc(s->range)}});
  }
  return out;
}

}  // namespace

nlohmann::json ast_to_json(const ast::File &file) { return {{"items", items(file.items)}}; }

}  // namespace bpfbench
