//===- LowerBound.cpp - The load lower bound -------------------------------===//
//
// No plan can be smaller than the bytes live at once: the peak of a
// difference array over the begin and end events.
//
//===----------------------------------------------------------------------===//
#include "wirc/plan/Checker.h"

#include <algorithm>

namespace wirc::plan {

std::optional<int64_t> lowerBound(const Problem &problem) {
  std::vector<std::pair<int64_t, int64_t>> deltas; // (time, signed bytes)
  deltas.reserve(2 * problem.requests.size());
  for (const Request &r : problem.requests) {
    std::optional<int64_t> padded = checkedAlignUp(r.size, r.alignment);
    if (!padded)
      return std::nullopt;
    if (*padded == 0)
      continue;
    deltas.emplace_back(r.begin, *padded);
    deltas.emplace_back(r.end, -*padded);
  }
  // Frees sort before allocations at the same time (negative first).
  std::sort(deltas.begin(), deltas.end());
  int64_t live = 0;
  int64_t peak = 0;
  for (const auto &[time, delta] : deltas) {
    std::optional<int64_t> next = checkedAdd(live, delta);
    if (!next)
      return std::nullopt;
    live = *next;
    peak = std::max(peak, live);
  }
  return peak;
}

} // namespace wirc::plan
