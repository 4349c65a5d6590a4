// Traffic over the sockets of the `socket_pairs` setup action: the `sendfile` producer
// (the kernel sockmap bench's producer: sendfile() of a pattern file to a non-blocking
// socket, again and again) and the `socket` consumer (reads the receiving socket and
// checks every byte against the pattern). Both count bytes.
#pragma once

#include <cstddef>
#include <cstdint>
#include <memory>

#include "runtime/components.hpp"

namespace bpfbench {

// The file sendfile() sends: byte i is i % 10, as the kernel bench's (128 KiB).
inline constexpr size_t kSendfileSize = 128 * 1024;
inline uint8_t sendfile_pattern_byte(uint64_t stream_pos) {
  return static_cast<uint8_t>((stream_pos % kSendfileSize) % 10);
}

// One producer thread (index 0) sends; a second one is refused (two writers would
// interleave the stream the consumer checks). With `max_in_flight` > 0 it waits while that
// many bytes are sent and not yet in `delivered` (the consumer's count).
std::unique_ptr<Producer> make_sendfile_producer(int socket_fd, uint64_t max_in_flight, const ProducerSlot *delivered);
// Bytes read go to `consumed`; a byte off the pattern fails the run with its position.
// drain_rest() reads on while bytes keep coming (a redirect to another socket's egress
// queues without bound when the sender is faster: the drain can take several times the
// measured part) and gives up when `interrupt` is set. The check is one memcmp() per read,
// or with `per_byte` the kernel bench's loop, a comparison per byte (on a CPU shared with
// the producer that loop is most of the cost: 290 against 2280 MB/s unchecked, measured).
std::unique_ptr<Consumer> make_socket_consumer(int socket_fd, ProducerSlot *consumed,
                                               const std::atomic<bool> *interrupt, bool per_byte = false);

}  // namespace bpfbench
