// JSON from files bpfbench did not write: read through nlohmann's SAX interface, from
// memory or in pieces from an InputStream, with a bound on nesting and on the memory
// the values held take; errors as a place (line:col) and a reason, never exception text.
//
// Why SAX: nlohmann's own parse builds the whole document (a 100 MB file took ~0.9 GB),
// and its copy, dump and == recurse, so a document nested 300,000 deep crashed the first
// copy of it. Here nothing deeper than kMaxJsonDepth is built, and a reader may leave the
// bulk of a file unbuilt: skip a place, count its elements, or take each element of an
// array as it completes and drop it (results/results_stream.cpp, results/floor_file.cpp).
#pragma once

#include <cstddef>
#include <cstdint>
#include <iterator>
#include <optional>
#include <string>
#include <string_view>
#include <type_traits>
#include <vector>

#include <nlohmann/json.hpp>

#include "util/input_file.hpp"

namespace bpfbench {

// Arrays and objects inside each other. bpfbench's own files nest at most 7 deep (a
// results file: points[i].stats.hits.values[j]); copies and dumps of 64 levels are cheap.
inline constexpr size_t kMaxJsonDepth = 64;
// The memory a document's values may take as nlohmann objects, estimated as they are
// built: 16 bytes a value, 48 more (and its length) a string, 64 more an array or object,
// 96 more (and the key's length) an object member. Those objects take up to 40 times the
// text they come from (a 12 MB array of 4 million "" took 0.5 GB), so the bound is on them.
inline constexpr uint64_t kMaxJsonHeldBytes = uint64_t{64} << 20;

struct JsonLimits {
  size_t max_depth = kMaxJsonDepth;
  uint64_t max_held = kMaxJsonHeldBytes;   // the document, and each streamed element alone
  uint64_t max_total = kMaxJsonHeldBytes;  // the document and every element handed over
};

struct JsonError {
  enum class Kind { Syntax, Refused, Read };
  Kind kind = Kind::Syntax;
  size_t line = 0, col = 0;  // 0: no place to give (a number too large, a read error)
  std::string reason;
  // "b.json:2:4: not valid JSON: syntax error while parsing value - invalid literal",
  // "b.json:9:3: nested deeper than 64 levels", "cannot read b.json: is a directory".
  std::string text(const std::string &name) const;
};

// The bytes the parser reads: a text in memory, or an InputStream read in 256 KiB pieces.
// Knows the line and column of the last bytes read, for errors.
class JsonSource {
 public:
  explicit JsonSource(std::string_view text) : p_(text.data()), end_(text.data() + text.size()) {}
  // The text must outlive the source: a temporary std::string does not compile.
  template <class S, std::enable_if_t<std::is_same_v<S, std::string>, int> = 0>
  explicit JsonSource(S &&) = delete;
  explicit JsonSource(InputStream &in) : in_(&in), buf_(size_t{256} << 10) {}

  // An input iterator over the bytes, for nlohmann's iterator input adapter.
  class Iterator {
   public:
    using iterator_category = std::input_iterator_tag;
    using value_type = char;
    using difference_type = std::ptrdiff_t;
    using pointer = const char *;
    using reference = const char &;
    explicit Iterator(JsonSource *s) : s_(s) {}
    reference operator*() const { return *s_->p_; }
    Iterator &operator++() {
      s_->advance();
      return *this;
    }
    bool operator==(const Iterator &o) const { return done() == o.done(); }
    bool operator!=(const Iterator &o) const { return done() != o.done(); }

   private:
    bool done() const { return !s_ || (s_->p_ == s_->end_ && !s_->more()); }
    JsonSource *s_;
  };
  Iterator begin() { return Iterator(this); }
  Iterator end() { return Iterator(nullptr); }

  struct Place {
    size_t line = 1, col = 0;
  };
  // Byte `index` (0-based; one of the last two read, or the end of what was read).
  Place place(size_t index) const;
  Place last_place() const { return cur_; }
  // Why the stream ended before its end, when it did: see InputStream::read.
  Result<void> read_status() const {
    if (failed_ && !in_->error().empty()) return Error(in_->error());
    return {};
  }

 private:
  bool more();
  void advance() {
    char c = *p_++;
    ++read_;
    prev_ = cur_;
    if (after_newline_) cur_ = {cur_.line + 1, 1};
    else ++cur_.col;
    after_newline_ = c == '\n';
  }
  const char *p_ = nullptr, *end_ = nullptr;
  InputStream *in_ = nullptr;
  std::vector<char> buf_;
  bool failed_ = false, ended_ = false, after_newline_ = false;
  uint64_t read_ = 0;
  Place cur_, prev_;
};

// A document built from SAX events (the reader below keeps the bounds).
class JsonBuilder {
 public:
  void put(nlohmann::json &&v) { place(std::move(v)); }
  void open(bool is_array) { stack_.push_back(place(is_array ? nlohmann::json::array() : nlohmann::json::object())); }
  void key(std::string &&k) {
    bytes_ += 96 + k.size();
    slot_ = &(*stack_.back())[std::move(k)];
  }
  void close() { stack_.pop_back(); }
  uint64_t bytes() const { return bytes_; }  // estimated: see kMaxJsonHeldBytes
  nlohmann::json take();                     // the document, and a fresh start

 private:
  nlohmann::json *place(nlohmann::json &&v);
  nlohmann::json root_;
  std::vector<nlohmann::json *> stack_;
  nlohmann::json *slot_ = nullptr;
  uint64_t bytes_ = 0;
};

// Reads one JSON document within `limits`: its depth, and the memory of what it holds. A
// derived reader says per array or object what happens to it (role()); by default
// everything is kept.
class JsonReader : public nlohmann::json_sax<nlohmann::json> {
 public:
  enum class Role : uint8_t {
    Keep,    // built into the document
    Skip,    // read and checked as JSON, not kept (the document holds an empty one there)
    Count,   // like Skip; counted() gets the number of its elements when it closes
    Stream,  // each element built alone and handed to element(), then dropped (the document
             // holds an empty one); only outside other streamed elements
  };
  explicit JsonReader(JsonLimits limits = {}) : limits_(limits) {}
  JsonReader(const JsonReader &) = delete;
  JsonReader &operator=(const JsonReader &) = delete;

  // Reads all of `src` (with `comments`: // and /* */ allowed, as in manifests); false with
  // error() set on bad JSON, a bound crossed or a read error.
  bool read(JsonSource &src, bool comments = false);
  nlohmann::json take() { return doc_.take(); }
  const JsonError &error() const { return error_; }

  // The SAX events (nlohmann calls them).
  bool null() override { return scalar(nullptr); }
  bool boolean(bool v) override { return scalar(v); }
  bool number_integer(number_integer_t v) override { return scalar(v); }
  bool number_unsigned(number_unsigned_t v) override { return scalar(v); }
  bool number_float(number_float_t v, const string_t &) override { return scalar(v); }
  bool string(string_t &v) override { return scalar(std::move(v)); }
  bool binary(binary_t &) override { return false; }  // not in JSON text
  bool start_object(std::size_t) override { return open(false); }
  bool key(string_t &k) override;
  bool end_object() override { return close(); }
  bool start_array(std::size_t) override { return open(true); }
  bool end_array() override { return close(); }
  bool parse_error(std::size_t position, const std::string &last_token, const nlohmann::json::exception &ex) override;

 protected:
  // The role of the array or object opening now (not called inside Skip/Count places).
  virtual Role role(bool is_array) {
    (void)is_array;
    return Role::Keep;
  }
  // An element of a Stream array, complete; `index` counts from 0.
  virtual void element(nlohmann::json &&e, size_t index) {
    (void)e;
    (void)index;
  }
  // A Count place closed with `n` elements.
  virtual void counted(size_t n) { (void)n; }
  // Where the opening one sits: the arrays/objects around it (0: it is the document), its
  // key ("" in an array), the key of the one around it at `depth` (1: a member of the
  // document; "" beyond depth 3), whether it is inside a streamed element.
  size_t depth() const { return frames_.size(); }
  const std::string &key() const;
  const std::string &key_at(size_t depth) const;
  bool in_element() const { return in_element_; }

 private:
  struct Frame {
    Role role;
    bool is_array;
    size_t count = 0;
    std::string key;  // kept at depth < 4 only
  };
  bool scalar(nlohmann::json &&v);
  bool open(bool is_array);
  bool close();
  bool within_limits();
  bool fail(JsonError::Kind kind, std::string reason);
  std::string element_path() const;
  JsonBuilder &builder() { return in_element_ ? elem_ : doc_; }

  JsonLimits limits_;
  uint64_t handed_over_ = 0;  // estimated bytes of the elements handed to element()
  JsonSource *src_ = nullptr;
  std::vector<Frame> frames_;
  std::string key_;  // the last key read in a kept object
  JsonBuilder doc_, elem_;
  bool in_element_ = false;
  size_t element_depth_ = 0;  // frames_.size() outside the element being built
  JsonError error_;
  bool failed_ = false;
};

// A whole document from `text` or from the file at `path` (read through the checked
// opener, streamed: regular files of at most `max_bytes`), bounded as above.
std::optional<nlohmann::json> parse_json(std::string_view text, JsonError &err, bool comments = false,
                                         JsonLimits limits = {});
std::optional<nlohmann::json> read_json_file(const std::string &path, uint64_t max_bytes, JsonError &err,
                                             JsonLimits limits = {});

}  // namespace bpfbench
