//===- Instance.cpp - Problems in the planners' compressed form -----------===//
#include "PlanInternal.h"

#include <algorithm>

namespace wirc::plan::detail {

Instance makeInstance(const Problem &problem, int64_t lowerBound) {
  Instance inst;
  inst.lowerBound = lowerBound;
  std::vector<int64_t> times;
  for (size_t id = 0; id < problem.requests.size(); ++id) {
    const Request &r = problem.requests[id];
    int64_t padded = paddedSize(r);
    if (padded == 0)
      continue;
    inst.requestId.push_back(static_cast<uint32_t>(id));
    inst.size.push_back(padded);
    inst.alignment.push_back(r.alignment);
    inst.begin.push_back(r.begin);
    inst.end.push_back(r.end);
    times.push_back(r.begin);
    times.push_back(r.end);
  }
  std::sort(times.begin(), times.end());
  times.erase(std::unique(times.begin(), times.end()), times.end());
  inst.numSections = times.empty() ? 0 : static_cast<int32_t>(times.size() - 1);
  auto sectionOf = [&](int64_t time) {
    return static_cast<int32_t>(std::lower_bound(times.begin(), times.end(), time) - times.begin());
  };
  inst.first.resize(inst.count());
  inst.last.resize(inst.count());
  for (size_t i = 0; i < inst.count(); ++i) {
    inst.first[i] = sectionOf(inst.begin[i]);
    inst.last[i] = sectionOf(inst.end[i]);
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
