// Address values of `address` params (packet fields of the test_run input): an IPv4 or
// IPv6 address or an Ethernet MAC, written as text ("10.0.0.1", "fd00::1",
// "02:00:00:00:00:01") and parsed once into bytes in network order.
#pragma once

#include <array>
#include <cstdint>
#include <optional>
#include <string>

#include "util/error.hpp"

namespace bpfbench {

struct Address {
  enum class Kind { Ipv4, Ipv6, Mac };
  Kind kind = Kind::Ipv4;
  std::array<uint8_t, 16> bytes{};  // the first size() bytes hold the address

  size_t size() const { return kind == Kind::Ipv4 ? 4 : kind == Kind::Ipv6 ? 16 : 6; }
};

// The address `text` writes, or why it is none ("'x' is not an address (an IPv4 ...)").
Result<Address> parse_address(const std::string &text);

const char *address_kind_name(Address::Kind k);  // "IPv4", "IPv6", "MAC"

}  // namespace bpfbench
