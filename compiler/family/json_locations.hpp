// Where each value of a parsed JSON document sits in its text, so manifest diagnostics
// point at a line and column like the .bdsl ones (nlohmann::json keeps no positions).
#pragma once

#include <cstdint>
#include <optional>
#include <string>
#include <unordered_map>

#include <nlohmann/json.hpp>

#include "util/json_input.hpp"
#include "compiler/bdsl/source.hpp"

namespace bpfbench {

class JsonLocations {
 public:
  // Re-reads `text` (comments allowed, as the DOM parse did) through nlohmann's SAX
  // interface, recording the byte range of every key and value, and ties them to the nodes
  // of `root`, the DOM parsed from the same text. Ranges name file `file`.
  static JsonLocations build(const std::string &text, const nlohmann::json &root, uint32_t file);

  // The range of `v` (a string, number or literal: the whole token; an object or array:
  // its opening bracket). Invalid for a node that is not part of the document.
  SourceRange value(const nlohmann::json &v) const;
  // The key of member `key` of object `obj`; the object's range when it has no such key.
  SourceRange key(const nlohmann::json &obj, const std::string &key) const;

 private:
  struct Where {
    SourceRange key, value;
  };
  std::unordered_map<const nlohmann::json *, Where> at_;
};

// Why `text` is not JSON (comments allowed, as the manifest reader parses it): the byte
// offset where nlohmann's parser stopped and its reason without the exception's tag, its
// "parse error at line L, column C: " and its "; last read: '…'" (an echo of the text:
// the offset already says where). Number overflows ("number overflow parsing '1e400'",
// an out_of_range exception with no position of its own in a DOM parse) get their place
// here too. nullopt when the text parses.
struct JsonSyntaxError {
  size_t offset = 0;
  std::string reason;
};
std::optional<JsonSyntaxError> json_syntax_error(const std::string &text);

// The byte at `offset` of `text` as a one-column range of file `file`.
SourceRange json_offset_range(const std::string &text, size_t offset, uint32_t file);

// Where and what a JSON read error of `text` (file `file`) is, as a diagnostic says it:
// "invalid JSON: syntax error …" at its byte, without the parser's echo of the file's bytes
// (json_syntax_error); what the bounded reader refuses (too deep, too much) at its place.
struct LocatedJsonError {
  SourceRange range;
  std::string message;
};
LocatedJsonError locate_json_error(const std::string &text, const JsonError &e, uint32_t file);

}  // namespace bpfbench
