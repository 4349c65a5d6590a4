// nlohmann::json reports no positions to a SAX handler, but it reads its input one byte at
// a time through the iterator it is given: an iterator that counts tells the handler how
// far the lexer got when each callback fires, and each token is found from there.
#include "compiler/family/json_locations.hpp"

#include <algorithm>
#include <iterator>
#include <map>
#include <vector>

namespace bpfbench {
namespace {

using json = nlohmann::json;

// A char iterator that writes how many bytes were read past `begin` into `*consumed`.
struct CountingIterator {
  using iterator_category = std::input_iterator_tag;
  using value_type = char;
  using difference_type = std::ptrdiff_t;
  using pointer = const char *;
  using reference = const char &;

  const char *p = nullptr, *begin = nullptr;
  size_t *consumed = nullptr;

  reference operator*() const { return *p; }
  CountingIterator &operator++() {
    ++p;
    *consumed = static_cast<size_t>(p - begin);
    return *this;
  }
  CountingIterator operator++(int) {
    CountingIterator old = *this;
    ++*this;
    return old;
  }
  bool operator==(const CountingIterator &o) const { return p == o.p; }
};

// One path segment, length-prefixed so no key can be mistaken for two.
std::string segment(const std::string &s) { return std::to_string(s.size()) + ":" + s; }

struct Span {
  size_t key_begin = 0, key_end = 0;  // key_end == 0: not an object member
  size_t begin = 0, end = 0;          // [begin, end) of the value token
};

// Paths grow with depth, so a hostile document nested 100k deep would cost O(depth^2):
// values deeper than any manifest goes (4 levels) get no position.
constexpr size_t kMaxDepth = 32;

bool number_char(char c) { return (c >= '0' && c <= '9') || c == '-' || c == '+' || c == '.' || c == 'e' || c == 'E'; }

// Records the span of every value by its path from the root.
class Recorder {
 public:
  Recorder(const std::string &text, const size_t &consumed) : text_(text), consumed_(consumed) {}

  std::map<std::string, Span> spans;

  bool null() { return scalar(consumed_ - 4); }
  bool boolean(bool b) { return scalar(consumed_ - (b ? 4 : 5)); }
  bool number_integer(json::number_integer_t) { return number(); }
  bool number_unsigned(json::number_unsigned_t) { return number(); }
  bool number_float(json::number_float_t, const json::string_t &) { return number(); }
  bool string(json::string_t &) { return scalar(string_begin(consumed_)); }
  bool binary(json::binary_t &) { return true; }
  bool start_object(size_t) { return open(false); }
  bool start_array(size_t) { return open(true); }
  bool end_object() { return close(); }
  bool end_array() { return close(); }
  bool key(json::string_t &k) {
    Frame &f = stack_.back();
    f.key = k;
    f.key_begin = string_begin(consumed_);
    f.key_end = consumed_;
    return true;
  }
  bool parse_error(size_t, const std::string &, const json::exception &) { return false; }

 private:
  struct Frame {
    bool array = false;
    size_t index = 0;
    std::string key, path;
    size_t key_begin = 0, key_end = 0;
  };

  // The lexer has read up to and including the closing quote; find the opening one.
  size_t string_begin(size_t end) const {
    for (size_t i = end >= 2 ? end - 2 : 0; i > 0; --i) {
      if (text_[i] != '"') continue;
      size_t backslashes = 0;
      while (backslashes < i && text_[i - 1 - backslashes] == '\\') ++backslashes;
      if (backslashes % 2 == 0) return i;
    }
    return 0;
  }

  // The lexer reads one byte past a number (unless the input ends there).
  bool number() {
    size_t end = std::min(consumed_, text_.size());
    if (end > 0 && !number_char(text_[end - 1])) --end;
    size_t begin = end;
    while (begin > 0 && number_char(text_[begin - 1])) --begin;
    record(begin, end);
    return true;
  }

  bool scalar(size_t begin) {
    record(begin, consumed_);
    return true;
  }

  bool open(bool array) {
    std::string path = record(consumed_ - 1, consumed_);
    stack_.push_back(Frame{array, 0, {}, std::move(path), 0, 0});
    return true;
  }

  bool close() {
    stack_.pop_back();
    return true;
  }

  std::string record(size_t begin, size_t end) {
    if (stack_.size() > kMaxDepth) return {};
    Span s;
    s.begin = begin;
    s.end = end;
    std::string path;
    if (!stack_.empty()) {
      Frame &f = stack_.back();
      if (f.array) {
        path = f.path + segment(std::to_string(f.index++));
      } else {
        path = f.path + segment(f.key);
        s.key_begin = f.key_begin;
        s.key_end = f.key_end;
      }
    }
    spans[path] = s;
    return path;
  }

  const std::string &text_;
  const size_t &consumed_;
  std::vector<Frame> stack_;
};

// Byte offsets to 1-based lines and columns.
class LineIndex {
 public:
  explicit LineIndex(const std::string &text) {
    starts_.push_back(0);
    for (size_t i = 0; i < text.size(); ++i)
      if (text[i] == '\n') starts_.push_back(i + 1);
  }
  // [begin, end) as an inclusive range; an empty span covers its first byte.
  SourceRange range(uint32_t file, size_t begin, size_t end) const {
    SourceRange r;
    r.file = file;
    place(begin, r.line, r.col);
    place(end > begin ? end - 1 : begin, r.end_line, r.end_col);
    return r;
  }

 private:
  void place(size_t off, uint32_t &line, uint32_t &col) const {
    size_t l = static_cast<size_t>(std::upper_bound(starts_.begin(), starts_.end(), off) - starts_.begin());
    line = static_cast<uint32_t>(l);
    col = static_cast<uint32_t>(off - starts_[l - 1] + 1);
  }
  std::vector<size_t> starts_;
};

// Accepts everything, remembers the first error: where it is and nlohmann's message.
class ErrorCatcher {
 public:
  explicit ErrorCatcher(const std::string &text) : text_(text) {}
  std::optional<JsonSyntaxError> error;
  bool null() { return true; }
  bool boolean(bool) { return true; }
  bool number_integer(json::number_integer_t) { return true; }
  bool number_unsigned(json::number_unsigned_t) { return true; }
  bool number_float(json::number_float_t, const json::string_t &) { return true; }
  bool string(json::string_t &) { return true; }
  bool binary(json::binary_t &) { return true; }
  bool start_object(size_t) { return true; }
  bool start_array(size_t) { return true; }
  bool end_object() { return true; }
  bool end_array() { return true; }
  bool key(json::string_t &) { return true; }
  bool parse_error(size_t position, const std::string &last_token, const json::exception &e) {
    std::string what = e.what();
    size_t tag = what.find("] ");  // "[json.exception.parse_error.101] "
    if (tag != std::string::npos) what.erase(0, tag + 2);
    if (what.starts_with("parse error")) {  // "parse error at line 1, column 2: "
      size_t colon = what.find(": ");
      what.erase(0, colon == std::string::npos ? what.size() : colon + 2);
    }
    if (size_t last = what.find("; last read: "); last != std::string::npos) what.resize(last);
    if (what.size() > 200) what = what.substr(0, 200) + "...";  // a 1 MB number's overflow
    // position: the 1-based index of the last byte read, the offending one; a number that
    // overflows (out_of_range.406) is read whole first: its place is where it starts.
    size_t offset = position == 0 ? 0 : position - 1;
    if (e.id == 406 && !last_token.empty())
      if (size_t start = text_.rfind(last_token, offset); start != std::string::npos) offset = start;
    error = JsonSyntaxError{offset, what};
    return false;
  }

 private:
  const std::string &text_;
};

}  // namespace

std::optional<JsonSyntaxError> json_syntax_error(const std::string &text) {
  ErrorCatcher c(text);
  if (json::sax_parse(text, &c, json::input_format_t::json, true, true)) return std::nullopt;
  if (!c.error) return JsonSyntaxError{0, "not a JSON document"};
  c.error->offset = std::min(c.error->offset, text.size());
  return c.error;
}

SourceRange json_offset_range(const std::string &text, size_t offset, uint32_t file) {
  return LineIndex(text).range(file, offset, offset);
}

JsonLocations JsonLocations::build(const std::string &text, const json &root, uint32_t file) {
  JsonLocations out;
  size_t consumed = 0;
  Recorder rec(text, consumed);
  CountingIterator first{text.data(), text.data(), &consumed};
  CountingIterator last{text.data() + text.size(), text.data(), &consumed};
  if (!json::sax_parse(first, last, &rec, json::input_format_t::json, true, true)) return out;

  // Walk the DOM with an explicit stack: a deeply nested document must not overflow ours.
  LineIndex lines(text);
  struct Todo {
    const json *node;
    std::string path;
    size_t depth;
  };
  std::vector<Todo> todo = {{&root, "", 0}};
  while (!todo.empty()) {
    auto [node, path, depth] = std::move(todo.back());
    todo.pop_back();
    auto it = rec.spans.find(path);
    if (it != rec.spans.end()) {
      const Span &s = it->second;
      Where w;
      w.value = lines.range(file, s.begin, s.end);
      w.key = s.key_end ? lines.range(file, s.key_begin, s.key_end) : w.value;
      out.at_[node] = w;
    }
    if (depth >= kMaxDepth) continue;
    if (node->is_object())
      for (auto m = node->begin(); m != node->end(); ++m)
        todo.push_back({&m.value(), path + segment(m.key()), depth + 1});
    else if (node->is_array())
      for (size_t i = 0; i < node->size(); ++i)
        todo.push_back({&(*node)[i], path + segment(std::to_string(i)), depth + 1});
  }
  return out;
}

SourceRange JsonLocations::value(const json &v) const {
  auto it = at_.find(&v);
  return it == at_.end() ? SourceRange{} : it->second.value;
}

SourceRange JsonLocations::key(const json &obj, const std::string &k) const {
  if (obj.is_object())
    if (auto m = obj.find(k); m != obj.end())
      if (auto it = at_.find(&*m); it != at_.end()) return it->second.key;
  return value(obj);
}

LocatedJsonError locate_json_error(const std::string &text, const JsonError &e, uint32_t file) {
  if (e.kind == JsonError::Kind::Syntax || e.line == 0)
    if (auto se = json_syntax_error(text))
      return {json_offset_range(text, se->offset, file), "invalid JSON: " + se->reason};
  auto line = static_cast<uint32_t>(std::max<size_t>(e.line, 1)),
       col = static_cast<uint32_t>(std::max<size_t>(e.col, 1));
  return {SourceRange{file, line, col, line, col},
          e.kind == JsonError::Kind::Syntax ? "invalid JSON: " + e.reason : e.reason};
}

}  // namespace bpfbench
