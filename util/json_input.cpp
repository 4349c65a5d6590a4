#include "util/json_input.hpp"

#include <utility>

#include "util/escape.hpp"

namespace bpfbench {

namespace {

// nlohmann's "[json.exception.parse_error.101] parse error at line 1, column 2: syntax
// error while parsing value - invalid literal; last read: 'x'": only the why. "last read:
// '…'" echoes the file's bytes (a file holding "json.exception" made the message look like
// an internal error); the place is given apart.
std::string syntax_reason(const std::string &what) {
  size_t col = what.find(", column ");
  size_t why = col == std::string::npos ? std::string::npos : what.find(": ", col);
  std::string detail = why == std::string::npos ? "" : what.substr(why + 2);
  if (size_t last = detail.find("; last read: "); last != std::string::npos) detail.resize(last);
  return printable_text(detail.substr(0, 200));
}

}  // namespace

std::string JsonError::text(const std::string &name) const {
  if (kind == Kind::Read) return "cannot read " + name + ": " + reason;
  std::string at = line > 0 ? name + ":" + std::to_string(line) + ":" + std::to_string(col) : name;
  if (kind == Kind::Refused) return at + ": " + reason;
  return at + ": not valid JSON" + (reason.empty() ? "" : ": " + reason);
}

bool JsonSource::more() {
  if (!in_ || failed_ || ended_) return false;
  ssize_t n = in_->read(buf_.data(), buf_.size());
  if (n <= 0) {
    (n < 0 ? failed_ : ended_) = true;
    return false;
  }
  p_ = buf_.data();
  end_ = p_ + n;
  return true;
}

JsonSource::Place JsonSource::place(size_t index) const {
  if (read_ >= 1 && index == read_ - 1) return cur_;
  if (read_ >= 2 && index == read_ - 2) return prev_;  // the lexer read one ahead and put it back
  return after_newline_ ? Place{cur_.line + 1, 1} : Place{cur_.line, cur_.col + 1};  // the end
}

nlohmann::json *JsonBuilder::place(nlohmann::json &&v) {
  bytes_ += 16;
  if (v.is_string()) bytes_ += 48 + v.get_ref<const std::string &>().size();
  else if (v.is_structured()) bytes_ += 64;
  if (stack_.empty()) {
    root_ = std::move(v);
    return &root_;
  }
  nlohmann::json &top = *stack_.back();
  if (top.is_array()) {
    top.push_back(std::move(v));
    return &top.back();
  }
  *slot_ = std::move(v);
  return slot_;
}

nlohmann::json JsonBuilder::take() {
  stack_.clear();
  slot_ = nullptr;
  bytes_ = 0;
  return std::exchange(root_, nlohmann::json());
}

bool JsonReader::read(JsonSource &src, bool comments) {
  src_ = &src;
  bool ok =
      nlohmann::json::sax_parse(src.begin(), src.end(), this, nlohmann::json::input_format_t::json, true, comments);
  // A read that stopped early looks like the end of the text to the parser: say why.
  if (auto read = src.read_status(); !read) {
    error_ = {JsonError::Kind::Read, 0, 0, read.error().message};
    failed_ = true;
  }
  src_ = nullptr;
  if (!ok && !failed_) fail(JsonError::Kind::Syntax, "");
  return !failed_;
}

const std::string &JsonReader::key() const {
  static const std::string kNone;
  return frames_.empty() || frames_.back().is_array ? kNone : key_;
}

const std::string &JsonReader::key_at(size_t depth) const {
  static const std::string kNone;
  return depth < frames_.size() ? frames_[depth].key : kNone;
}

bool JsonReader::fail(JsonError::Kind kind, std::string reason) {
  if (failed_) return false;
  JsonSource::Place at = src_ ? src_->last_place() : JsonSource::Place{0, 0};
  error_ = {kind, at.line, at.col, std::move(reason)};
  failed_ = true;
  return false;
}

// "points[3]", "plan.points[0]": the element being built, for a bound's message.
std::string JsonReader::element_path() const {
  std::string path;
  for (size_t d = 1; d < element_depth_ && d < frames_.size(); ++d) path += (path.empty() ? "" : ".") + frames_[d].key;
  return path + "[" + std::to_string(frames_[element_depth_ - 1].count) + "]";
}

bool JsonReader::within_limits() {
  auto too_much = [&](const std::string &what, uint64_t limit) {
    return fail(JsonError::Kind::Refused,
                what + " would take more than " + format_byte_limit(limit) + " of memory to hold");
  };
  if (builder().bytes() > limits_.max_held)
    return too_much(in_element_ ? element_path() : "the document", limits_.max_held);
  if (handed_over_ + doc_.bytes() + elem_.bytes() > limits_.max_total)
    return too_much("the document", limits_.max_total);
  return true;
}

bool JsonReader::scalar(nlohmann::json &&v) {
  if (failed_) return false;
  if (frames_.empty()) {
    doc_.put(std::move(v));
    return true;
  }
  Frame &f = frames_.back();
  switch (f.role) {
  case Role::Skip: return true;
  case Role::Count: ++f.count; return true;
  case Role::Stream:
    handed_over_ += 16;
    element(std::move(v), f.count++);
    return !failed_;
  case Role::Keep: break;
  }
  builder().put(std::move(v));
  return within_limits();
}

bool JsonReader::key(string_t &k) {
  if (failed_) return false;
  if (frames_.back().role != Role::Keep) return true;
  key_ = k;
  builder().key(std::move(k));
  return within_limits();
}

bool JsonReader::open(bool is_array) {
  if (failed_) return false;
  if (frames_.size() >= limits_.max_depth)
    return fail(JsonError::Kind::Refused, "nested deeper than " + std::to_string(limits_.max_depth) + " levels");
  Frame *parent = frames_.empty() ? nullptr : &frames_.back();
  Role r = Role::Keep;
  if (parent && (parent->role == Role::Skip || parent->role == Role::Count)) {
    parent->count += parent->role == Role::Count;
    r = Role::Skip;
  } else if (parent && parent->role == Role::Stream) {  // an element begins: built alone
    in_element_ = true;
    element_depth_ = frames_.size();
    elem_.open(is_array);
  } else {
    r = role(is_array);
    if (r == Role::Stream && in_element_) r = Role::Keep;  // no stream inside a streamed element
    if (r == Role::Keep) builder().open(is_array);
    else builder().put(is_array ? nlohmann::json::array() : nlohmann::json::object());  // the place stays
    if (!within_limits()) return false;
  }
  std::string k = frames_.size() < 4 && parent && !parent->is_array ? key_ : std::string();
  frames_.push_back({r, is_array, 0, std::move(k)});
  return true;
}

bool JsonReader::close() {
  if (failed_) return false;
  Frame f = std::move(frames_.back());
  frames_.pop_back();
  if (f.role == Role::Count) counted(f.count);
  if (f.role != Role::Keep) return !failed_;
  builder().close();
  if (in_element_ && frames_.size() == element_depth_) {
    in_element_ = false;
    handed_over_ += elem_.bytes();
    element(elem_.take(), frames_.back().count++);
  }
  return !failed_;
}

bool JsonReader::parse_error(std::size_t position, const std::string &, const nlohmann::json::exception &ex) {
  if (failed_) return false;
  std::string what = ex.what();
  if (ex.id >= 100 && ex.id < 200) {  // parse_error: a place in the text
    fail(JsonError::Kind::Syntax, syntax_reason(what));
    JsonSource::Place at = src_->place(position > 0 ? position - 1 : 0);
    error_.line = at.line;
    error_.col = at.col;
    return false;
  }
  // out_of_range.406, "number overflow parsing '1e999'": no place to give.
  size_t tag = what.find("] ");
  fail(JsonError::Kind::Syntax, printable_text(what.substr(tag == std::string::npos ? 0 : tag + 2).substr(0, 200)));
  error_.line = error_.col = 0;
  return false;
}

std::optional<nlohmann::json> parse_json(std::string_view text, JsonError &err, bool comments, JsonLimits limits) {
  JsonSource src(text);
  JsonReader r(limits);
  if (r.read(src, comments)) return r.take();
  err = r.error();
  return std::nullopt;
}

std::optional<nlohmann::json> read_json_file(const std::string &path, uint64_t max_bytes, JsonError &err,
                                             JsonLimits limits) {
  auto in = open_input_stream(path, max_bytes);
  if (!in) {
    err = {JsonError::Kind::Read, 0, 0, in.error().message};
    return std::nullopt;
  }
  JsonSource src(*in);
  JsonReader r(limits);
  if (r.read(src)) return r.take();
  err = r.error();
  return std::nullopt;
}

}  // namespace bpfbench
