// Mustache (kainjow) with HTML escaping off, an unknown-key check, and line mapping:
// every template line is tagged with an invisible marker before rendering, so after
// rendering each output line still knows which template line it came from.
#include "compiler/template_render.hpp"
#include "compiler/escape.hpp"
#include "compiler/strings.hpp"

#include <algorithm>
#include <exception>

#include <kainjow/mustache.hpp>

namespace bpfbench {
namespace {

constexpr char kMarkBegin = '\x01';
constexpr char kMarkEnd = '\x02';

struct Tag {
  char sigil = 0;  // 0 = variable, '#', '^', '/', '&', '{', '!', '>', '='
  std::string name;
  size_t line = 0;
};

size_t line_of(const std::string &text, size_t offset) {
  offset = std::min(offset, text.size());
  return 1 + static_cast<size_t>(std::count(text.begin(), text.begin() + offset, '\n'));
}

// Tokenizes tags the way kainjow does with the default delimiters ({{ }} and {{{ }}}).
std::vector<Tag> scan_tags(const std::string &text) {
  std::vector<Tag> tags;
  for (size_t pos = text.find("{{"); pos != std::string::npos; pos = text.find("{{", pos)) {
    Tag t;
    t.line = line_of(text, pos);
    bool triple = pos + 2 < text.size() && text[pos + 2] == '{';
    size_t start = pos + (triple ? 3 : 2);
    size_t end = text.find(triple ? "}}}" : "}}", start);
    if (end == std::string::npos) break;  // kainjow reports "Unclosed tag"
    std::string body = trim_blanks(text.substr(start, end - start));
    if (triple) {
      t.sigil = '{';
    } else if (!body.empty() && std::string("#^/&!>=").find(body[0]) != std::string::npos) {
      t.sigil = body[0];
      body = trim_blanks(body.substr(1));
    }
    t.name = body;
    tags.push_back(t);
    pos = end + (triple ? 3 : 2);
  }
  return tags;
}

const TemplateKey *find_key(const std::vector<TemplateKey> &keys, const std::string &n) {
  for (const auto &k : keys)
    if (k.name == n) return &k;
  return nullptr;
}

bool check_tags(const std::string &path, const std::string &text, const std::vector<TemplateKey> &keys,
                Diagnostics &diags) {
  bool ok = true;
  std::vector<std::string> names;
  for (const auto &k : keys) names.push_back(k.name);
  for (const Tag &t : scan_tags(text)) {
    std::string where = "template " + path + ":" + std::to_string(t.line) + ": ";
    if (t.sigil == '!') continue;
    if (t.sigil == '>' || t.sigil == '=') {
      diags.error(SourceRange{}, where + (t.sigil == '>' ? "partials are not supported"
                                                         : "changing the tag delimiters is not supported"));
      ok = false;
      continue;
    }
    const TemplateKey *k = find_key(keys, t.name);
    if (!k) {
      std::vector<std::string> hints;
      std::string close = did_you_mean(t.name, names);
      if (!close.empty()) hints.push_back("did you mean '" + close + "'?");
      if (t.name.find_first_of("{},;()") != std::string::npos)
        hints.push_back("'{{' starts a mustache tag; in C code write '{ {'");
      else
        hints.push_back(names.empty() ? "this family has no template params"
                                      : "template keys are its `template` params");
      diags.error(SourceRange{}, where + "unknown key '" + t.name + "'", hints);
      ok = false;
    } else if (k->is_bool && (t.sigil == 0 || t.sigil == '&' || t.sigil == '{')) {
      diags.error(SourceRange{}, where + "bool key '" + t.name + "' renders nothing as a value",
                  {"use a section {{#" + t.name + "}}...{{/" + t.name + "}} or the macro BB_<NAME>"});
      ok = false;
    }
  }
  return ok;
}

std::string add_markers(const std::string &text) {
  std::string out;
  out.reserve(text.size() + text.size() / 8);
  size_t line = 1;
  bool at_start = true;
  for (char c : text) {
    if (at_start) {
      out += kMarkBegin;
      out += std::to_string(line++);
      out += kMarkEnd;
      at_start = false;
    }
    out += c;
    if (c == '\n') at_start = true;
  }
  return out;
}

// Splits the rendered text into lines, strips the markers and inserts #line directives
// where the source line is not the previous one + 1.
std::string map_lines(const std::string &rendered, const std::string &path) {
  std::string out;
  size_t prev = 0;  // the caller's `#line 1` makes the first template line number 1
  bool continued = false, pending = false;
  size_t pos = 0;
  while (pos < rendered.size()) {
    size_t nl = rendered.find('\n', pos);
    bool has_nl = nl != std::string::npos;
    std::string raw = rendered.substr(pos, (has_nl ? nl : rendered.size()) - pos);
    pos = has_nl ? nl + 1 : rendered.size();

    std::string line;
    size_t source = 0;
    for (size_t i = 0; i < raw.size(); ++i) {
      if (raw[i] != kMarkBegin) {
        line += raw[i];
        continue;
      }
      size_t e = raw.find(kMarkEnd, i);
      if (e == std::string::npos) break;
      // The last marker wins: text after it is from that template line.
      source = std::stoul(raw.substr(i + 1, e - i - 1));
      i = e;
    }
    if (source == 0) source = prev + 1;  // no marker: a value spanning lines
    if (source != prev + 1) pending = true;
    // A directive inside a backslash-continued line would break a multi-line macro.
    if (pending && !continued) {
      out += "#line " + std::to_string(source) + " " + c_string_literal(path) + "\n";
      pending = false;
    }
    out += line;
    if (has_nl) out += '\n';
    continued = !line.empty() && line.back() == '\\';
    prev = source;
  }
  return out;
}

// kainjow reports "... at <offset>": name the template line instead.
std::string locate(const std::string &msg, const std::string &marked, const std::string &path) {
  size_t at = msg.rfind(" at ");
  std::string line = "1";
  std::string what = msg;
  if (at != std::string::npos && msg.find_first_not_of("0123456789", at + 4) == std::string::npos &&
      at + 4 < msg.size()) {
    line = std::to_string(line_of(marked, std::stoul(msg.substr(at + 4))));
    what = msg.substr(0, at);
  }
  return "template " + path + ":" + line + ": mustache: " + what;
}

}  // namespace

std::optional<std::string> render_template(const std::string &path, const std::string &text,
                                           const std::vector<TemplateKey> &keys, Diagnostics &diags) {
  if (!check_tags(path, text, keys, diags)) return std::nullopt;
  try {
    std::string marked = add_markers(text);
    kainjow::mustache::mustache tmpl{marked};
    if (!tmpl.is_valid()) {
      diags.error(SourceRange{}, locate(tmpl.error_message(), marked, path));
      return std::nullopt;
    }
    tmpl.set_custom_escape([](const std::string &s) { return s; });
    kainjow::mustache::data data{kainjow::mustache::data::type::object};
    for (const auto &k : keys) {
      if (k.is_bool) data.set(k.name, kainjow::mustache::data{k.flag});
      else data.set(k.name, k.value);
    }
    std::string rendered = tmpl.render(data);
    if (!tmpl.is_valid()) {
      diags.error(SourceRange{}, locate(tmpl.error_message(), marked, path));
      return std::nullopt;
    }
    return map_lines(rendered, path);
  } catch (const std::exception &e) {
    diags.error(SourceRange{}, "template " + path + ": cannot render: " + e.what());
    return std::nullopt;
  }
}

}  // namespace bpfbench
