#include "runtime/self_checks.hpp"

#include <fmt/format.h>

namespace bpfbench {
namespace {

// "hits (counter:bb_hits) 600 + drops (counter:bb_drops) 400", and the sum.
uint64_t describe(const std::vector<SelfCheckTerm> &terms, const std::vector<MetricSource> &sources,
                  const SourceTotals &totals, std::string &text) {
  uint64_t sum = 0;
  for (size_t i = 0; i < sources.size(); ++i) {
    const std::string src = sources[i].text();
    auto it = totals.find(src);
    uint64_t n = it == totals.end() ? 0 : it->second;
    sum += n;
    const std::string &name = i < terms.size() ? terms[i].text() : src;
    text += fmt::format("{}{}{} {}", i ? " + " : "", name, name == src ? "" : " (" + src + ")", n);
  }
  return sum;
}

}  // namespace

SelfCheck evaluate_self_check(const ResolvedSelfCheck &c, const SourceTotals &totals) {
  std::string exp_text, obs_text;
  uint64_t expected = describe(c.spec->expected, c.expected, totals, exp_text);
  uint64_t observed = describe(c.spec->observed, c.observed, totals, obs_text);
  std::string detail =
      fmt::format("expected {}; observed {}; over the whole run, read after every thread stopped", exp_text, obs_text);
  return SelfCheck{c.spec->name, double(expected), double(observed), expected == observed, std::move(detail)};
}

std::string self_check_failure(const SelfCheck &c) {
  return fmt::format("self-check '{}' failed: expected {:.0f}, observed {:.0f} ({})", c.name, c.expected, c.observed,
                     c.detail);
}

}  // namespace bpfbench
