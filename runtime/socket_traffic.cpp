#include "runtime/socket_traffic.hpp"

#include <fcntl.h>
#include <poll.h>
#include <sched.h>
#include <sys/mman.h>
#include <sys/sendfile.h>
#include <sys/socket.h>
#include <unistd.h>

#include <cerrno>
#include <cstring>
#include <string>
#include <vector>

#include "util/error.hpp"

namespace bpfbench {
namespace {

// An in-memory file holding the pattern (memfd: nothing on disk), or -1 and `why`.
int pattern_file(std::string &why) {
  int fd = memfd_create("bpfbench-sendfile", MFD_CLOEXEC);
  if (fd < 0) {
    why = "memfd_create() failed: " + errno_text(errno);
    return -1;
  }
  std::vector<uint8_t> data(kSendfileSize);
  for (size_t i = 0; i < data.size(); ++i) data[i] = sendfile_pattern_byte(i);
  if (write(fd, data.data(), data.size()) != static_cast<ssize_t>(data.size())) {
    why = "writing the sendfile pattern failed: " + errno_text(errno);
    close(fd);
    return -1;
  }
  return fd;
}

class SendfileProducer final : public Producer {
 public:
  SendfileProducer(int socket_fd, uint64_t max_in_flight, const ProducerSlot *delivered)
      : sock_(socket_fd), max_in_flight_(delivered ? max_in_flight : 0), delivered_(delivered) {}

  Result<void> run(int index, ProducerSlot &slot, const std::atomic<bool> &stop) override {
    if (index != 0) return Error("sendfile producer: one producer per socket (two would interleave the stream)");
    std::string why;
    int file = pattern_file(why);
    if (file < 0) return Error("sendfile producer: " + why);
    int flags = fcntl(sock_, F_GETFL);
    if (flags < 0 || fcntl(sock_, F_SETFL, flags | O_NONBLOCK) != 0) why = "cannot make the socket non-blocking";
    off_t off = 0;
    uint64_t total = 0;
    while (why.empty() && !stop.load(std::memory_order_relaxed)) {
      if (max_in_flight_ && total - delivered_->ops.load(std::memory_order_relaxed) >= max_in_flight_) {
        sched_yield();  // the consumer may share this CPU (the kernel bench's -a placement)
        continue;
      }
      ssize_t sent = sendfile(sock_, file, &off, kSendfileSize - static_cast<size_t>(off));
      if (sent < 0) {
        // A full socket buffer or a short-lived allocation failure: try again, as the
        // kernel bench does (it spins too).
        if (errno == EAGAIN || errno == ENOMEM || errno == ENOBUFS || errno == EINTR) continue;
        why = "sendfile() failed: " + errno_text(errno);
        break;
      }
      slot.add(static_cast<uint64_t>(sent));
      total += static_cast<uint64_t>(sent);
      if (static_cast<size_t>(off) >= kSendfileSize) off = 0;
    }
    close(file);
    if (!why.empty()) return Error("sendfile producer: " + why);
    return {};
  }

 private:
  int sock_;
  uint64_t max_in_flight_;
  const ProducerSlot *delivered_;
};

class SocketConsumer final : public Consumer {
 public:
  SocketConsumer(int socket_fd, ProducerSlot *consumed, const std::atomic<bool> *interrupt, bool per_byte)
      : sock_(socket_fd), consumed_(consumed), interrupt_(interrupt), per_byte_(per_byte), pattern_(2 * kSendfileSize),
        buf_(kSendfileSize) {
    for (size_t i = 0; i < pattern_.size(); ++i) pattern_[i] = sendfile_pattern_byte(i);
  }

  Result<void> run(int index, const std::atomic<bool> &stop) override {
    if (index != 0) return {};  // one reader: a second one would split the stream it checks
    while (!stop.load(std::memory_order_relaxed)) {
      bool got = false;
      if (std::string e = read_once(50, got); !e.empty()) return Error(e);
    }
    return {};
  }

  // Data still in flight (socket queues, the sockmap's backlog) until 100 ms pass without any.
  Result<void> drain_rest() override {
    for (bool got = true; got;) {
      if (interrupt_ && interrupt_->load(std::memory_order_relaxed))
        return Error("interrupted while draining the socket");
      if (std::string e = read_once(100, got); !e.empty()) return Error(e);
    }
    return {};
  }

 private:
  // Waits up to `timeout_ms` for data, reads what is there and checks it; `got`: bytes came.
  std::string read_once(int timeout_ms, bool &got) {
    got = false;
    pollfd pfd{sock_, POLLIN, 0};
    int ready = poll(&pfd, 1, timeout_ms);
    if (ready < 0 && errno != EINTR) return "socket consumer: poll() failed: " + errno_text(errno);
    if (ready <= 0) return "";
    ssize_t n = recv(sock_, buf_.data(), buf_.size(), MSG_DONTWAIT);
    if (n < 0) return errno == EAGAIN || errno == EINTR ? "" : "socket consumer: recv() failed: " + errno_text(errno);
    if (n == 0) return "socket consumer: the sending side closed the connection";
    if (std::string e = check(static_cast<size_t>(n)); !e.empty()) return e;
    consumed_->add(static_cast<uint64_t>(n));
    got = true;
    return "";
  }

  // The first `n` bytes of buf_ against the stream from pos_ on; pos_ moves past them.
  std::string check(size_t n) {
    if (per_byte_) {
      // The kernel bench's loop: a byte at a time against a 10-byte table, the position
      // an int wrapping at the file size.
      static constexpr uint8_t kTen[10] = {0, 1, 2, 3, 4, 5, 6, 7, 8, 9};
      int at = static_cast<int>(pos_ % kSendfileSize);
      for (size_t i = 0; i < n; ++i) {
        if (buf_[i] != kTen[at % 10]) return mismatch(i);
        if (++at >= static_cast<int>(kSendfileSize)) at = 0;
      }
    } else if (std::memcmp(buf_.data(), pattern_.data() + pos_ % kSendfileSize, n) != 0) {
      for (size_t i = 0; i < n; ++i)
        if (buf_[i] != sendfile_pattern_byte(pos_ + i)) return mismatch(i);
    }
    pos_ += n;
    return "";
  }

  std::string mismatch(size_t i) const {
    const uint64_t at = pos_ + i;
    return "socket consumer: byte " + std::to_string(at) + " of the stream is " + std::to_string(buf_[i]) +
           ", the pattern says " + std::to_string(sendfile_pattern_byte(at)) + " (data lost, reordered or duplicated)";
  }

  int sock_;
  ProducerSlot *consumed_;
  const std::atomic<bool> *interrupt_;
  bool per_byte_;
  std::vector<uint8_t> pattern_;  // the file twice: any read of up to a file's size starting in it fits
  std::vector<uint8_t> buf_;
  uint64_t pos_ = 0;  // bytes of the stream checked so far
};

}  // namespace

std::unique_ptr<Producer> make_sendfile_producer(int socket_fd, uint64_t max_in_flight, const ProducerSlot *delivered) {
  return std::make_unique<SendfileProducer>(socket_fd, max_in_flight, delivered);
}

std::unique_ptr<Consumer> make_socket_consumer(int socket_fd, ProducerSlot *consumed,
                                               const std::atomic<bool> *interrupt, bool per_byte) {
  return std::make_unique<SocketConsumer>(socket_fd, consumed, interrupt, per_byte);
}

}  // namespace bpfbench
