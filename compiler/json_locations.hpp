// Where each value of a parsed JSON document sits in its text, so manifest diagnostics
// point at a line and column like the .bdsl ones (nlohmann::json keeps no positions).
#pragma once

#include <cstdint>
#include <string>
#include <unordered_map>

#include <nlohmann/json.hpp>

#include "compiler/source.hpp"

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

}  // namespace bpfbench
