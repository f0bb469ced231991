//===- Instance.cpp - Problems in the planners' compressed form -----------===//
#include "PlanInternal.h"

#include "RadixSort.h"

#include <algorithm>

namespace wirc::plan::detail {

std::optional<Instance> makeInstance(const Problem &problem) {
  Instance inst;
  const size_t total = problem.requests.size();
  inst.requestId.reserve(total);
  inst.size.reserve(total);
  inst.alignment.reserve(total);
  inst.begin.reserve(total);
  inst.end.reserve(total);
  for (size_t id = 0; id < total; ++id) {
    const Request &r = problem.requests[id];
    // Validated: the padding cannot overflow.
    const int64_t padded = (r.size + (r.alignment - 1)) & ~(r.alignment - 1);
    if (padded == 0)
      continue;
    inst.requestId.push_back(static_cast<uint32_t>(id));
    inst.size.push_back(padded);
    inst.alignment.push_back(r.alignment);
    inst.begin.push_back(r.begin);
    inst.end.push_back(r.end);
  }

  // Sections: rank the begin and end times (event 2i is request i's begin,
  // 2i + 1 its end) with one radix sort instead of a sort and a binary search
  // per request.
  const size_t n = inst.count();
  std::vector<uint64_t> times(2 * n);
  for (size_t i = 0; i < n; ++i) {
    times[2 * i] = signedKey(inst.begin[i]);
    times[2 * i + 1] = signedKey(inst.end[i]);
  }
  std::vector<uint32_t> events(2 * n);
  for (uint32_t e = 0; e < events.size(); ++e)
    events[e] = e;
  radixSortBy(events, times);
  inst.first.resize(n);
  inst.last.resize(n);
  int32_t rank = -1;
  for (size_t e = 0; e < events.size(); ++e) {
    const uint32_t event = events[e];
    if (e == 0 || times[event] != times[events[e - 1]])
      ++rank;
    (event & 1 ? inst.last : inst.first)[event / 2] = rank;
  }
  inst.numSections = std::max(rank, 0);

  // The lower bound: the largest load of a section, from a difference array.
  // Bytes that begin in one section are all live in it, so if their sum
  // overflows, so does that section's load.
  std::vector<int64_t> begins(static_cast<size_t>(inst.numSections) + 1, 0);
  std::vector<int64_t> ends(static_cast<size_t>(inst.numSections) + 1, 0);
  for (size_t i = 0; i < n; ++i) {
    if (__builtin_add_overflow(begins[inst.first[i]], inst.size[i], &begins[inst.first[i]]))
      return std::nullopt;
    if (__builtin_add_overflow(ends[inst.last[i]], inst.size[i], &ends[inst.last[i]]))
      return std::nullopt; // then the previous section's load overflows too
  }
  int64_t live = 0;
  for (int32_t k = 0; k < inst.numSections; ++k) {
    live -= ends[k];
    if (__builtin_add_overflow(live, begins[k], &live))
      return std::nullopt;
    inst.lowerBound = std::max(inst.lowerBound, live);
  }
  return inst;
}

int64_t peakOf(const Instance &inst, const Offsets &offsets) {
  int64_t peak = 0;
  for (size_t i = 0; i < inst.count(); ++i)
    peak = std::max(peak, addOrThrow(offsets[i], inst.size[i]));
  return peak;
}

Plan toPlan(const Problem &problem, const Instance &inst, const Offsets &offsets) {
  Plan plan;
  plan.offsets.assign(problem.requests.size(), 0);
  for (size_t i = 0; i < inst.count(); ++i)
    plan.offsets[inst.requestId[i]] = offsets[i];
  plan.peak = peakOf(inst, offsets);
  return plan;
}

} // namespace wirc::plan::detail
