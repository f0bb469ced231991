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
  if (deltas.empty())
    return 0;
  int64_t live = 0;
  int64_t peak = 0;
  auto add = [&](int64_t delta) {
    std::optional<int64_t> next = checkedAdd(live, delta);
    if (next)
      live = *next;
    return next.has_value();
  };
  // Frees go before allocations at the same time. Within a time the frees
  // only lower the live bytes and the allocations only raise them, so their
  // order among themselves changes neither the peak nor whether a sum
  // overflows: times in a compact range are bucketed rather than sorted.
  auto [minIt, maxIt] = std::minmax_element(
      deltas.begin(), deltas.end(), [](const auto &a, const auto &b) { return a.first < b.first; });
  const int64_t minTime = minIt->first;
  const uint64_t range = static_cast<uint64_t>(maxIt->first) - static_cast<uint64_t>(minTime);
  if (range < 4 * deltas.size() + 1024) {
    // bytes[start[t], start[t + 1]): the deltas at time minTime + t.
    std::vector<uint32_t> start(range + 2, 0);
    for (const auto &[time, delta] : deltas)
      ++start[static_cast<uint64_t>(time) - static_cast<uint64_t>(minTime) + 1];
    for (size_t t = 1; t < start.size(); ++t)
      start[t] += start[t - 1];
    std::vector<int64_t> bytes(deltas.size());
    {
      std::vector<uint32_t> next(start.begin(), start.end() - 1);
      for (const auto &[time, delta] : deltas)
        bytes[next[static_cast<uint64_t>(time) - static_cast<uint64_t>(minTime)]++] = delta;
    }
    for (size_t t = 0; t + 1 < start.size(); ++t) {
      for (uint32_t k = start[t]; k < start[t + 1]; ++k)
        if (bytes[k] < 0 && !add(bytes[k]))
          return std::nullopt;
      for (uint32_t k = start[t]; k < start[t + 1]; ++k)
        if (bytes[k] > 0 && !add(bytes[k]))
          return std::nullopt;
      peak = std::max(peak, live);
    }
    return peak;
  }
  std::sort(deltas.begin(), deltas.end());
  for (const auto &[time, delta] : deltas) {
    if (!add(delta))
      return std::nullopt;
    peak = std::max(peak, live);
  }
  return peak;
}

} // namespace wirc::plan
