//===- Checker.cpp - The independent plan checker -------------------------===//
//
// Deliberately shares nothing with the planners: its own event order, its own
// live set, its own arithmetic. A bug would have to be made twice, the same
// way, to slip through.
//
//===----------------------------------------------------------------------===//
#include "wirc/plan/Checker.h"

#include <fmt/format.h>

#include <algorithm>
#include <set>

namespace wirc::plan {

CheckResult checkPlan(const Problem &problem, const Plan &plan, size_t maxErrors) {
  CheckResult result;
  auto fail = [&](std::string message) {
    if (result.errors.size() < maxErrors)
      result.errors.push_back(std::move(message));
  };
  const size_t n = problem.requests.size();
  if (plan.offsets.size() != n) {
    fail(fmt::format("the plan has {} offsets for {} requests", plan.offsets.size(), n));
    return result;
  }

  // Extents first: every later comparison relies on offset + size not
  // overflowing.
  std::vector<int64_t> extentEnd(n, 0);
  std::vector<bool> usable(n, false);
  int64_t peak = 0;
  for (size_t id = 0; id < n; ++id) {
    const Request &r = problem.requests[id];
    int64_t offset = plan.offsets[id];
    if (offset < 0) {
      fail(fmt::format("request {}: negative offset {}", id, offset));
      continue;
    }
    if (offset % r.alignment != 0) {
      fail(fmt::format("request {}: offset {} is not a multiple of its alignment {}", id, offset,
                       r.alignment));
      continue;
    }
    std::optional<int64_t> padded = checkedAlignUp(r.size, r.alignment);
    std::optional<int64_t> end = padded ? checkedAdd(offset, *padded) : std::nullopt;
    if (!end) {
      fail(fmt::format("request {}: offset {} + size {} overflows int64", id, offset, r.size));
      continue;
    }
    extentEnd[id] = *end;
    usable[id] = true;
    if (*padded > 0)
      peak = std::max(peak, *end);
  }
  if (!result.ok())
    return result;
  if (plan.peak != peak)
    fail(fmt::format("the plan's peak is {} but its buffers reach {}", plan.peak, peak));

  // Sweep over time. At equal times a range that ends is removed before one
  // that begins is added: [a, t) and [t, b) do not conflict.
  struct Event {
    int64_t time;
    bool isBegin;
    uint32_t id;
  };
  std::vector<Event> events;
  events.reserve(2 * n);
  for (size_t id = 0; id < n; ++id) {
    if (!usable[id] || extentEnd[id] == plan.offsets[id])
      continue; // zero bytes: occupies nothing
    const Request &r = problem.requests[id];
    events.push_back({r.begin, true, static_cast<uint32_t>(id)});
    events.push_back({r.end, false, static_cast<uint32_t>(id)});
  }
  std::sort(events.begin(), events.end(), [](const Event &a, const Event &b) {
    if (a.time != b.time)
      return a.time < b.time;
    if (a.isBegin != b.isBegin)
      return !a.isBegin;
    return a.id < b.id;
  });

  // The live requests by (offset, id). They are pairwise disjoint, so a new
  // request overlaps one of them exactly when it overlaps its neighbour below
  // or above in offset order.
  std::set<std::pair<int64_t, uint32_t>> live;
  for (const Event &event : events) {
    std::pair<int64_t, uint32_t> key{plan.offsets[event.id], event.id};
    if (!event.isBegin) {
      live.erase(key);
      continue;
    }
    auto above = live.lower_bound(key);
    bool clash = false;
    if (above != live.end() && above->first < extentEnd[event.id]) {
      fail(fmt::format("requests {} and {} are live at time {} and overlap in memory",
                       above->second, event.id, event.time));
      clash = true;
    }
    if (above != live.begin()) {
      auto below = std::prev(above);
      if (extentEnd[below->second] > key.first) {
        fail(fmt::format("requests {} and {} are live at time {} and overlap in memory",
                         below->second, event.id, event.time));
        clash = true;
      }
    }
    // A clashing request stays out of the live set so that the set remains
    // disjoint and later reports stay meaningful.
    if (!clash)
      live.insert(key);
  }
  return result;
}

} // namespace wirc::plan
