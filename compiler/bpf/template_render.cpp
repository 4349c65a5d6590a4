// Mustache (kainjow) with HTML escaping off, an unknown-key check, and line mapping:
// every template line is tagged with an invisible marker before rendering, so after
// rendering each output line still knows which template line it came from.
#include "compiler/bpf/template_render.hpp"
#include "util/escape.hpp"
#include "util/strings.hpp"

#include <algorithm>
#include <charconv>
#include <exception>
#include <new>
#include <optional>

#include <kainjow/mustache.hpp>

namespace bpfbench {
namespace {

constexpr char kMarkBegin = '\x01';
constexpr char kMarkEnd = '\x02';

struct Tag {
  char sigil = 0;  // 0 = variable, '#', '^', '/', '&', '{', '!', '>', '='
  std::string name;
  size_t begin = 0, end = 0;  // the tag's offsets: its "{{" and one past its "}}"
  size_t name_at = 0;         // the offset of its name
};

// Where offsets of one template are in the SourceManager: the template file `file`.
class Place {
 public:
  Place(const SourceFile &f, uint32_t file) : f_(f), file_(file) {}
  // The range of bytes [from, to) (at least one), as file:line:col-col.
  SourceRange range(size_t from, size_t to) const {
    auto [line, col] = at(from);
    auto [end_line, end_col] = at(std::max(from, to > 0 ? to - 1 : 0));
    return SourceRange{file_, line, col, end_line, end_col};
  }

 private:
  std::pair<uint32_t, uint32_t> at(size_t offset) const {
    offset = std::min(offset, f_.text.size());
    auto it = std::upper_bound(f_.line_starts.begin(), f_.line_starts.end(), offset);
    size_t line = static_cast<size_t>(it - f_.line_starts.begin());  // >= 1: line_starts[0] == 0
    return {static_cast<uint32_t>(line), static_cast<uint32_t>(offset - f_.line_starts[line - 1] + 1)};
  }
  const SourceFile &f_;
  uint32_t file_;
};

// Tokenizes tags the way kainjow does with the default delimiters ({{ }} and {{{ }}}).
// A "{{" without its "}}" ends the scan: `unclosed` is its offset.
std::vector<Tag> scan_tags(const std::string &text, std::optional<size_t> &unclosed) {
  std::vector<Tag> tags;
  for (size_t pos = text.find("{{"); pos != std::string::npos; pos = text.find("{{", pos)) {
    Tag t;
    t.begin = pos;
    bool triple = pos + 2 < text.size() && text[pos + 2] == '{';
    size_t start = pos + (triple ? 3 : 2);
    size_t end = text.find(triple ? "}}}" : "}}", start);
    if (end == std::string::npos) {
      unclosed = pos;
      break;
    }
    t.end = end + (triple ? 3 : 2);
    std::string raw = text.substr(start, end - start);
    std::string body = trim_blanks(raw);
    size_t at = start + raw.find_first_not_of(" \t\r\n\f\v");
    if (triple) {
      t.sigil = '{';
    } else if (!body.empty() && std::string("#^/&!>=").find(body[0]) != std::string::npos) {
      t.sigil = body[0];
      std::string rest = body.substr(1);
      body = trim_blanks(rest);
      at += 1 + rest.find_first_not_of(" \t\r\n\f\v");
    }
    t.name = body;
    t.name_at = body.empty() ? pos : at;
    tags.push_back(t);
    pos = t.end;
  }
  return tags;
}

const TemplateKey *find_key(const std::vector<TemplateKey> &keys, const std::string &n) {
  for (const auto &k : keys)
    if (k.name == n) return &k;
  return nullptr;
}

SourceRange name_range(const Place &at, const Tag &t) {
  return t.name.empty() ? at.range(t.begin, t.end) : at.range(t.name_at, t.name_at + t.name.size());
}

// An unknown key, with the nearest key and what keys there are.
void unknown_key(const Place &at, const Tag &t, const std::vector<TemplateKey> &keys, Diagnostics &diags) {
  std::vector<std::string> names;
  for (const auto &k : keys) names.push_back(k.name);
  std::vector<std::string> hints;
  std::string close = did_you_mean(t.name, names);
  if (!close.empty()) hints.push_back("did you mean '" + close + "'?");
  if (t.name.find_first_of("{},;()") != std::string::npos || t.name.empty())
    hints.push_back("'{{' starts a mustache tag; in C code write '{ {'");
  else if (names.size() <= 12) {
    std::string list;
    for (const auto &n : names) list += (list.empty() ? "" : ", ") + n;
    hints.push_back("the keys of this template: " + list);
  } else hints.push_back("template keys are `family`, the `template` params and their flags (docs/families.md)");
  diags.error(name_range(at, t), t.name.empty() ? "empty mustache tag" : "unknown mustache key '" + t.name + "'",
              hints);
}

// Sections open and close in order: a close of another name or of nothing, and a section
// never closed, are errors at their tags (kainjow would say "at <offset>").
bool check_sections(const Place &at, const std::vector<Tag> &tags, Diagnostics &diags) {
  bool ok = true;
  std::vector<const Tag *> open;
  for (const Tag &t : tags) {
    if (t.sigil == '#' || t.sigil == '^') open.push_back(&t);
    if (t.sigil != '/') continue;
    if (!open.empty() && open.back()->name == t.name) {
      open.pop_back();
      continue;
    }
    ok = false;
    if (open.empty()) {
      diags.error(at.range(t.begin, t.end), "'{{/" + t.name + "}}' closes a section that is not open");
      continue;
    }
    Diagnostic &d = diags.error(at.range(t.begin, t.end),
                                "'{{/" + t.name + "}}' does not close the open section '" + open.back()->name + "'",
                                {"close '" + open.back()->name + "' first: {{/" + open.back()->name + "}}"});
    d.notes.push_back(Diagnostic{Severity::Note,
                                 at.range(open.back()->begin, open.back()->end),
                                 "section '" + open.back()->name + "' opened here",
                                 {},
                                 {},
                                 {}});
    return false;  // what follows is nested differently than the author meant
  }
  for (const Tag *t : open)
    diags.error(at.range(t->begin, t->end), "section '" + t->name + "' is never closed",
                {"close it with {{/" + t->name + "}}"});
  return ok && open.empty();
}

bool check_tags(const Place &at, const std::string &text, const std::vector<TemplateKey> &keys, Diagnostics &diags) {
  bool ok = true;
  std::optional<size_t> unclosed;
  std::vector<Tag> tags = scan_tags(text, unclosed);
  for (const Tag &t : tags) {
    if (t.sigil == '!' || t.sigil == '/') continue;  // a close is checked with its section
    if (t.sigil == '>' || t.sigil == '=') {
      diags.error(at.range(t.begin, t.end), t.sigil == '>' ? "mustache partials are not supported"
                                                           : "changing the mustache tag delimiters is not supported");
      ok = false;
      continue;
    }
    const TemplateKey *k = find_key(keys, t.name);
    if (!k) {
      unknown_key(at, t, keys, diags);
      ok = false;
    } else if (k->is_bool && (t.sigil == 0 || t.sigil == '&' || t.sigil == '{')) {
      diags.error(name_range(at, t), "bool key '" + t.name + "' renders nothing as a value",
                  {"use a section {{#" + t.name + "}}...{{/" + t.name + "}} or the macro BB_<NAME>"});
      ok = false;
    }
  }
  if (unclosed) {
    diags.error(at.range(*unclosed, *unclosed + 2), "mustache tag '{{' is never closed with '}}'",
                {"'{{' starts a mustache tag; in C code write '{ {'"});
    ok = false;
  }
  return check_sections(at, tags, diags) && ok;
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
    if (c == kMarkBegin) out += kMarkBegin;  // escaped: a marker never starts with two
    out += c;
    if (c == '\n') at_start = true;
  }
  return out;
}

// A value keeps its bytes through map_lines: kMarkBegin doubled, as in add_markers.
std::string escape_markers(const std::string &value) {
  std::string out;
  out.reserve(value.size());
  for (char c : value) {
    if (c == kMarkBegin) out += kMarkBegin;
    out += c;
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
      if (i + 1 < raw.size() && raw[i + 1] == kMarkBegin) {  // an escaped byte of the text
        line += raw[++i];
        continue;
      }
      // The last marker wins: text after it is from that template line.
      size_t n = 0;
      auto [end, ec] = std::from_chars(raw.data() + i + 1, raw.data() + raw.size(), n);
      if (ec != std::errc{} || end == raw.data() + raw.size() || *end != kMarkEnd) {
        line += raw[i];  // not made by add_markers: cannot happen, kept as text
        continue;
      }
      source = n;
      i = static_cast<size_t>(end - raw.data());
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

// The offset in the template of an offset in its marked copy (add_markers).
size_t unmarked_offset(const std::string &marked, size_t offset) {
  offset = std::min(offset, marked.size());
  size_t removed = 0;
  for (size_t i = 0; i < offset; ++i) {
    if (marked[i] != kMarkBegin) continue;
    if (i + 1 < marked.size() && marked[i + 1] == kMarkBegin) {  // an escaped byte: one of the text
      ++removed;
      ++i;
      continue;
    }
    size_t e = marked.find(kMarkEnd, i);
    if (e == std::string::npos) break;
    size_t len = std::min(e + 1, offset) - i;
    removed += len;
    i += len - 1;
  }
  return offset - removed;
}

// kainjow reports "Unclosed tag at <offset>" (an offset in the marked copy): the error
// at that tag. check_tags finds these first; this is for what it does not know.
void mustache_error(const std::string &msg, const std::string &marked, const Place &at, Diagnostics &diags) {
  size_t pos = msg.rfind(" at ");
  size_t offset = 0;
  std::string what = msg;
  if (pos != std::string::npos) {
    auto [end, ec] = std::from_chars(msg.data() + pos + 4, msg.data() + msg.size(), offset);
    if (ec == std::errc{} && end == msg.data() + msg.size()) what = msg.substr(0, pos);
    else offset = 0;
  }
  size_t o = unmarked_offset(marked, offset);
  diags.error(at.range(o, o + 2), "mustache: " + what);
}

}  // namespace

std::optional<std::string> render_template(const std::string &path, const std::string &text,
                                           const std::vector<TemplateKey> &keys, SourceManager &sm,
                                           Diagnostics &diags) {
  int64_t id = sm.find(path);
  if (id >= 0 && sm.file(static_cast<uint32_t>(id)).text != text) id = -1;  // another text by that name
  const auto file = static_cast<uint32_t>(id >= 0 ? id : sm.add(path, text));
  const Place at(sm.file(file), file);
  if (!check_tags(at, text, keys, diags)) return std::nullopt;
  try {
    std::string marked = add_markers(text);
    kainjow::mustache::mustache tmpl{marked};
    if (!tmpl.is_valid()) {
      mustache_error(tmpl.error_message(), marked, at, diags);
      return std::nullopt;
    }
    tmpl.set_custom_escape([](const std::string &s) { return s; });
    kainjow::mustache::data data{kainjow::mustache::data::type::object};
    for (const auto &k : keys) {
      if (k.is_bool) data.set(k.name, kainjow::mustache::data{k.flag});
      else data.set(k.name, escape_markers(k.value));
    }
    std::string rendered = tmpl.render(data);
    if (!tmpl.is_valid()) {
      mustache_error(tmpl.error_message(), marked, at, diags);
      return std::nullopt;
    }
    return map_lines(rendered, path);
  } catch (const std::bad_alloc &) {
    diags.error(at.range(0, 1), "out of memory rendering the template");
    return std::nullopt;
  } catch (const std::exception &) {  // kainjow reports errors as text; this is a fallback
    diags.error(at.range(0, 1), "mustache cannot render this template");
    return std::nullopt;
  }
}

}  // namespace bpfbench
