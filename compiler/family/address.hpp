// Address values of `address` params (packet fields of the test_run input): an IPv4 or
// IPv6 address or an Ethernet MAC, written as text ("10.0.0.1", "fd00::1",
// "02:00:00:00:00:01") and parsed once into bytes in network order.
#pragma once

#include <array>
#include <cstdint>
#include <optional>
#include <string>

namespace bpfbench {

struct Address {
  enum class Kind { Ipv4, Ipv6, Mac };
  Kind kind = Kind::Ipv4;
  std::array<uint8_t, 16> bytes{};  // the first size() bytes hold the address

  size_t size() const { return kind == Kind::Ipv4 ? 4 : kind == Kind::Ipv6 ? 16 : 6; }
};

// The address `text` writes, or nullopt (then *error says why, when error is non-null).
std::optional<Address> parse_address(const std::string &text, std::string *error = nullptr);

// "" when `text` is an address, else why not (for the checker's messages).
std::string address_error(const std::string &text);

const char *address_kind_name(Address::Kind k);  // "IPv4", "IPv6", "MAC"

}  // namespace bpfbench
