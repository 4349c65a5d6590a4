// Shared by the grammar tests: whether one grammar rule matches a whole text.
#pragma once

#include <string>

#include <tao/pegtl.hpp>

namespace bpfbench::test {

// True when Rule matches the whole text; a must<> failure inside counts as no match.
template <typename Rule>
bool full_match(const std::string &text) {
  tao::pegtl::memory_input<> in(text, "test");
  try {
    return tao::pegtl::parse<tao::pegtl::seq<Rule, tao::pegtl::eof>>(in);
  } catch (const tao::pegtl::parse_error &) {
    return false;
  }
}

}  // namespace bpfbench::test
