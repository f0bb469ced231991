//===- Problem.cpp - Requests, validation, checked arithmetic -------------===//
#include "wirc/plan/Problem.h"

#include "PlanInternal.h"

#include "wirc/plan/Checker.h"

#include <fmt/format.h>

namespace wirc::plan {

std::optional<int64_t> checkedAdd(int64_t a, int64_t b) {
  int64_t sum;
  if (__builtin_add_overflow(a, b, &sum))
    return std::nullopt;
  return sum;
}

std::optional<int64_t> checkedAlignUp(int64_t value, int64_t alignment) {
  std::optional<int64_t> bumped = checkedAdd(value, alignment - 1);
  if (!bumped)
    return std::nullopt;
  return *bumped & ~(alignment - 1);
}

int64_t paddedSize(const Request &request) {
  return *checkedAlignUp(request.size, request.alignment);
}

namespace detail {

std::string validateRequests(const Problem &problem) {
  for (size_t id = 0; id < problem.requests.size(); ++id) {
    const Request &r = problem.requests[id];
    if (r.size < 0)
      return fmt::format("request {}: negative size {}", id, r.size);
    if (r.end <= r.begin)
      return fmt::format("request {}: live range [{}, {}) is empty or reversed", id, r.begin,
                         r.end);
    if (r.alignment <= 0 || (r.alignment & (r.alignment - 1)) != 0)
      return fmt::format("request {}: alignment {} is not a power of two", id, r.alignment);
    if (!checkedAlignUp(r.size, r.alignment))
      return fmt::format("request {}: size {} aligned to {} overflows int64", id, r.size,
                         r.alignment);
  }
  return {};
}

} // namespace detail

std::string validateProblem(const Problem &problem) {
  if (std::string error = detail::validateRequests(problem); !error.empty())
    return error;
  if (!lowerBound(problem))
    return detail::kLiveOverflow;
  return {};
}

} // namespace wirc::plan
