// The one way bpfbench reads a file it did not write itself: regular files only, size-bounded.
#pragma once

#include <sys/types.h>

#include <atomic>
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

#include "util/error.hpp"

namespace bpfbench {

// Per-kind size limits. Text inputs (.bdsl, includes, family.json, templates, results
// JSON) are small by nature: 16 MiB is ~1000x the largest shipped one and keeps a
// hostile file from costing gigabytes in the parser. BPF objects may carry big .data
// sections; kernel images (an uncompressed vmlinux with symbols) are the largest.
inline constexpr uint64_t kMaxTextInputBytes = uint64_t{16} << 20;
inline constexpr uint64_t kMaxObjectInputBytes = uint64_t{256} << 20;
inline constexpr uint64_t kMaxKernelImageBytes = uint64_t{1} << 30;
// Results files are read in pieces (results/results_stream.cpp): a big sweep with raw
// samples passes 16 MiB, and memory stays far below the file's size.
inline constexpr uint64_t kMaxResultsInputBytes = uint64_t{1} << 30;

// What a path names, for messages: "a directory", "a FIFO", "a character device", ...
// (by lstat-free stat: symlinks are followed, like an open would).
std::string describe_file_type(mode_t mode);

struct InputFile {
  std::string data;
  dev_t dev = 0;  // identity of what was read (outputs must never replace an input)
  ino_t ino = 0;
};

// Reads all of `path` when it is a regular file of at most `max_bytes`. Anything else is
// refused before a byte is read, with the reason as the Error (without the path; callers
// say which file they wanted): "is a directory", "is a FIFO, not a regular file",
// "is a character device, not a regular file", "is larger than the 16 MiB limit", or the
// errno text ("No such file or directory").
//
// Non-regular files are refused by stat() before open(): opening some devices has side
// effects (a watchdog arms, a tape rewinds). The open is O_NONBLOCK so a FIFO swapped in
// after the stat cannot block it, and fstat() of the opened fd decides (a race cannot
// slip a device past it). Files whose size the kernel does not know (/proc) are read up
// to the limit and refused beyond it.
Result<InputFile> read_input_file(const std::string &path, uint64_t max_bytes);

// The read half of read_input_file, for a file the caller opened itself (openat with
// O_NOFOLLOW, util/safe_dir.hpp): refused unless fstat says it is a regular file of at
// most `max_bytes`; read to its end, and refused when it grows past the limit meanwhile.
Result<InputFile> read_input_fd(int fd, uint64_t max_bytes);

// An input too big to hold whole, opened with read_input_file's checks (the same
// refusals, word for word) and read in pieces. Not copyable; closes on destruction.
class InputStream {
 public:
  InputStream(InputStream &&o) noexcept;
  InputStream &operator=(InputStream &&) = delete;
  ~InputStream();

  // Up to `n` bytes into `buf`; 0 at the end. -1 when the read failed, the file grew past
  // the limit, or `stop` was set; error() then says which ("is larger than the 1 GiB
  // limit", "interrupted", the errno text).
  ssize_t read(char *buf, size_t n);
  // Reads on from byte `offset` (of a file another process appends to); the bytes before
  // count toward the limit. false with error() set when the file cannot seek.
  bool seek(uint64_t offset);
  const std::string &error() const { return error_; }
  dev_t dev() const { return dev_; }
  ino_t ino() const { return ino_; }
  uint64_t size() const { return size_; }  // at the open (0 for /proc files)

 private:
  friend Result<InputStream> open_input_stream(const std::string &, uint64_t, const std::atomic<bool> *);
  InputStream(int fd, uint64_t max_bytes, const std::atomic<bool> *stop) : fd_(fd), max_(max_bytes), stop_(stop) {}
  int fd_ = -1;
  uint64_t max_ = 0, read_ = 0;
  const std::atomic<bool> *stop_ = nullptr;
  dev_t dev_ = 0;
  ino_t ino_ = 0;
  uint64_t size_ = 0;
  std::string error_;
};

// Opens `path` as read_input_file would read it (regular files of at most `max_bytes`,
// never a FIFO or a device: refused before the open). `stop`, when given, is polled
// before each piece, so a stop signal ends a long read.
Result<InputStream> open_input_stream(const std::string &path, uint64_t max_bytes,
                                      const std::atomic<bool> *stop = nullptr);

// The stat() half of read_input_file, for callers that read in their own way (or later):
// nothing when `path` is a regular file, else the reason, as read_input_file words it.
Result<void> check_input_file(const std::string &path);

// A file of a folder someone else wrote (a template folder: family.json, the template, the
// shared header), read as read_input_file reads a path, but resolved inside `folder` only.
// `folder` is canonical and absolute (canonical_folder(), resolved once by the caller and
// passed again for each of its files): it is opened from "/" one component at a time
// without following a symlink, so a folder swapped for a link after it was resolved is
// refused, not followed. `name` is relative to it and has no `..` component. Each
// component is opened from the folder already reached with O_NOFOLLOW; a symlink on the
// way is followed only when its target is relative and stays inside `folder` (its `..`
// steps back over folders this walk opened, never above `folder`), at most 40 of them.
// The file itself is looked at through an O_PATH descriptor first, so a device or a FIFO
// is refused without being opened. Reasons, as the Error (without the path): those of
// read_input_file, and "is an absolute path", "names '..'", "'fam/family.json' is a
// symbolic link to '/proc/self/environ'; only relative links that stay inside the folder
// '/t' are followed", "'fam/prog.bpf.c' is a symbolic link to '../../x', which leads out of
// the folder '/t'".
Result<InputFile> read_input_file_in(const std::string &folder, const std::string &name, uint64_t max_bytes);

// Nothing when `name` can name a file inside a folder, else why not: "is empty", "is an
// absolute path", "names '..'" (read_input_file_in refuses such names).
Result<void> check_inside_name(const std::string &name);

// realpath() of `path` when it is a directory, else the reason ("No such file or
// directory", "is not a directory (it is a FIFO)").
Result<std::string> canonical_folder(const std::string &path);

// "a/./b//c" -> {"a", "b", "c"}: the components of a path ("" and "." left out).
std::vector<std::string> path_components(const std::string &path);

// "16 MiB", "256 MiB", "1 GiB": limits as the messages print them.
std::string format_byte_limit(uint64_t bytes);

}  // namespace bpfbench
