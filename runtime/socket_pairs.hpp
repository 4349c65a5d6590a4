// TCP loopback socket pairs and sockmap wiring (setup actions `socket_pairs` and
// `sockmap`): pair k is c<k>, the connecting side, and p<k>, the side accept() returned,
// after the kernel's sockmap bench (c1 <-> [p1, p2] <-> c2).
#pragma once

#include <cstddef>
#include <cstdint>
#include <string>
#include <utility>
#include <vector>

#include "util/error.hpp"

namespace bpfbench {

class SocketPairs {
 public:
  SocketPairs() = default;
  ~SocketPairs() { close_all(); }
  SocketPairs(const SocketPairs &) = delete;
  SocketPairs &operator=(const SocketPairs &) = delete;

  // `count` connected pairs on 127.0.0.1 (one listening socket, closed once they exist).
  Result<> create(size_t count);
  // The socket named c<k> or p<k>, or -1.
  int fd(const std::string &name) const;
  // The names there are, for messages ("c1, p1, c2, p2").
  std::string names() const;
  void close_all();

  // What the `sendfile` producer writes to and the `socket` consumer reads (-1: none).
  int send_fd = -1, receive_fd = -1;

 private:
  std::vector<std::pair<std::string, int>> fds_;
};

// Attaches `prog_fd` to the sockmap `map_fd` with the program's expected attach type
// (`attach_type`, from its SEC: sk_skb/stream_verdict, sk_skb/stream_parser, sk_msg),
// then stores `fds` at keys 0, 1, ... A socket stored before its map has the program
// would not run it, hence this order. The attachment lasts as long as the map's last
// user-space reference (the kernel drops a sockmap's programs then).
Result<> wire_sockmap(int map_fd, uint32_t value_size, int prog_fd, int attach_type, const std::vector<int> &fds);

}  // namespace bpfbench
