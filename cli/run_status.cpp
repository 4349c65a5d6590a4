#include "cli/run_status.hpp"

#include <fmt/format.h>
#include <unistd.h>

#include <algorithm>
#include <cerrno>
#include <cstdio>

#include "util/escape.hpp"
#include "results/progress.hpp"

namespace bpfbench::cli {

namespace {

// The status line goes to the terminal itself, not through stderr's stream: its "\r\033[K"
// is the one control sequence bpfbench writes on purpose, and the stream makes every
// control character printable on a terminal (cli/text_output.hpp). So what it holds from a
// file (the label) is made printable here. A failed write loses only this transient line;
// stderr's next write meets the same error and reports it.
void write_status(const std::string &text) {
  for (size_t done = 0; done < text.size();) {
    ssize_t n = ::write(STDERR_FILENO, text.data() + done, text.size() - done);
    if (n < 0 && errno == EINTR) continue;
    if (n <= 0) return;
    done += static_cast<size_t>(n);
  }
}

}  // namespace

RunStatus::RunStatus(const RunPlan &plan, bool quiet) : quiet_(quiet), tty_(isatty(STDERR_FILENO) == 1) {
  restart();
  for (const auto &p : plan.points) {
    total_ += size_t(std::max(p.rounds, 1));  // runs, not points
    remaining_nominal_[p.precision_pct > 0] += nominal_seconds(p) * std::max(p.rounds, 1);
  }
}

RunStatus::~RunStatus() { clear(); }

void RunStatus::restart() { run_start_ = point_start_ = std::chrono::steady_clock::now(); }

double RunStatus::since(std::chrono::steady_clock::time_point t) const {
  return std::chrono::duration<double>(std::chrono::steady_clock::now() - t).count();
}

void RunStatus::clear() {
  if (!shown_) return;
  write_status("\r\033[K");
  shown_ = false;
}

double RunStatus::eta() const {
  double total = 0;
  for (int k = 0; k < 2; ++k) {
    double left = remaining_nominal_[k];
    // remaining_nominal_ still counts the current point: subtract what of it has passed.
    if (k == int(point_adaptive_)) left -= std::min(point_nominal_, since(point_start_));
    total += eta_seconds(std::max(0.0, left), done_nominal_[k], done_actual_[k]);
  }
  return total;
}

void RunStatus::draw(const std::string &extra) {
  if (!tty_) return;
  std::string line = format_status(started_, total_, label_, since(run_start_), eta(), extra);
  write_status("\r\033[K" + line);
  shown_ = true;
}

void RunStatus::sampled(bool warmup) {
  if (!warmup) ++measured_;
  draw(warmup ? "warmup" : fmt::format("{} sample{}", measured_, measured_ == 1 ? "" : "s"));
}

void RunStatus::point_started(const PlanPoint &p) {
  ++started_;
  total_ = std::max(total_, started_);  // adaptive rounds may take more than the minimum
  measured_ = 0;
  label_ = printable_text(p.label);
  point_start_ = std::chrono::steady_clock::now();
  point_nominal_ = nominal_seconds(p);
  point_adaptive_ = p.precision_pct > 0;
  if (tty_) {
    draw("");
  } else if (!quiet_) {
    fmt::print(stderr, "bpfbench: {}\n", format_status(started_, total_, p.label, since(run_start_), eta()));
  }
}

void RunStatus::point_done(const PlanPoint &p, const PointResult &r) {
  clear();
  double took = since(point_start_);
  double nominal = nominal_seconds(p);
  int k = p.precision_pct > 0;
  if (r.status == PointResult::Status::Ok) {
    done_nominal_[k] += nominal;
    done_actual_[k] += took;
  }
  remaining_nominal_[k] = std::max(0.0, remaining_nominal_[k] - nominal);
}

}  // namespace bpfbench::cli
