#include "compiler/family/address.hpp"

#include <arpa/inet.h>

namespace bpfbench {
namespace {

int hex_digit(char c) {
  if (c >= '0' && c <= '9') return c - '0';
  if (c >= 'a' && c <= 'f') return c - 'a' + 10;
  if (c >= 'A' && c <= 'F') return c - 'A' + 10;
  return -1;
}

// Six groups of two hex digits separated by ':' (the only MAC spelling accepted: one
// form, so "02:00:..." and "2:0:..." are not two names of one value in labels).
bool parse_mac(const std::string &s, Address &out) {
  if (s.size() != 17) return false;
  for (size_t i = 0; i < 6; ++i) {
    const size_t at = i * 3;
    if (i < 5 && s[at + 2] != ':') return false;
    const int hi = hex_digit(s[at]), lo = hex_digit(s[at + 1]);
    if (hi < 0 || lo < 0) return false;
    out.bytes[i] = static_cast<uint8_t>(hi << 4 | lo);
  }
  out.kind = Address::Kind::Mac;
  return true;
}

}  // namespace

Result<Address> parse_address(const std::string &text) {
  Address a;
  if (inet_pton(AF_INET, text.c_str(), a.bytes.data()) == 1) {
    a.kind = Address::Kind::Ipv4;
    return a;
  }
  if (inet_pton(AF_INET6, text.c_str(), a.bytes.data()) == 1) {
    a.kind = Address::Kind::Ipv6;
    return a;
  }
  if (parse_mac(text, a)) return a;
  return Error("'" + text +
               "' is not an address (an IPv4 address like 10.0.0.1, an IPv6 address like fd00::1, or a MAC "
               "like 02:00:00:00:00:01)");
}

const char *address_kind_name(Address::Kind k) {
  switch (k) {
  case Address::Kind::Ipv4: return "IPv4";
  case Address::Kind::Ipv6: return "IPv6";
  case Address::Kind::Mac: return "MAC";
  }
  return "?";
}

}  // namespace bpfbench
