#include "runtime/socket_pairs.hpp"

#include <arpa/inet.h>
#include <bpf/bpf.h>
#include <netinet/in.h>
#include <sys/socket.h>
#include <unistd.h>

#include <cerrno>

namespace bpfbench {
namespace {

// A TCP socket on 127.0.0.1 listening on a port the kernel picks; -1 and `why` on failure.
int listen_loopback(sockaddr_in &addr, std::string &why) {
  int s = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
  if (s < 0) {
    why = "socket() failed: " + errno_text(errno);
    return -1;
  }
  addr = sockaddr_in{};
  addr.sin_family = AF_INET;
  addr.sin_addr.s_addr = htonl(INADDR_LOOPBACK);
  socklen_t len = sizeof(addr);
  if (bind(s, reinterpret_cast<sockaddr *>(&addr), sizeof(addr)) != 0 || listen(s, 16) != 0 ||
      getsockname(s, reinterpret_cast<sockaddr *>(&addr), &len) != 0) {
    why = "a listening socket on 127.0.0.1 failed: " + errno_text(errno);
    close(s);
    return -1;
  }
  return s;
}

}  // namespace

Result<> SocketPairs::create(size_t count) {
  sockaddr_in addr{};
  std::string why;
  int listener = listen_loopback(addr, why);
  if (listener < 0) return Error("socket_pairs: " + why);
  for (size_t k = 1; k <= count && why.empty(); ++k) {
    int c = socket(AF_INET, SOCK_STREAM | SOCK_CLOEXEC, 0);
    if (c < 0) {
      why = "socket() failed: " + errno_text(errno);
      break;
    }
    fds_.emplace_back("c" + std::to_string(k), c);
    if (connect(c, reinterpret_cast<sockaddr *>(&addr), sizeof(addr)) != 0) {
      why = "connect() to 127.0.0.1 failed: " + errno_text(errno);
      break;
    }
    int p = accept4(listener, nullptr, nullptr, SOCK_CLOEXEC);
    if (p < 0) {
      why = "accept() failed: " + errno_text(errno);
      break;
    }
    fds_.emplace_back("p" + std::to_string(k), p);
  }
  close(listener);
  if (why.empty()) return {};
  close_all();
  return Error("socket_pairs: " + why);
}

int SocketPairs::fd(const std::string &name) const {
  for (const auto &[n, f] : fds_)
    if (n == name) return f;
  return -1;
}

std::string SocketPairs::names() const {
  std::string out;
  for (const auto &[n, _] : fds_) out += (out.empty() ? "" : ", ") + n;
  return out.empty() ? "none" : out;
}

void SocketPairs::close_all() {
  for (auto &[_, f] : fds_) close(f);
  fds_.clear();
  send_fd = receive_fd = -1;
}

Result<> wire_sockmap(int map_fd, uint32_t value_size, int prog_fd, int attach_type, const std::vector<int> &fds) {
  if (value_size != 4 && value_size != 8)
    return Error("a sockmap's values are socket fds of 4 or 8 bytes, not " + std::to_string(value_size));
  if (bpf_prog_attach(prog_fd, map_fd, static_cast<bpf_attach_type>(attach_type), 0) != 0)
    return Error("attaching the program to the sockmap failed: " + errno_text(errno));
  for (size_t k = 0; k < fds.size(); ++k) {
    uint32_t key = static_cast<uint32_t>(k);
    const uint32_t v32 = static_cast<uint32_t>(fds[k]);
    const uint64_t v64 = static_cast<uint64_t>(fds[k]);
    const void *value = value_size == 4 ? static_cast<const void *>(&v32) : static_cast<const void *>(&v64);
    if (bpf_map_update_elem(map_fd, &key, value, BPF_NOEXIST) != 0)
      return Error("storing socket " + std::to_string(k) + " in the sockmap failed: " + errno_text(errno));
  }
  return {};
}

}  // namespace bpfbench
