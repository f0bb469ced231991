//===- wirc/plan/Checker.h - Plan checker and lower bound -----------------===//
//
// The checker and the lower bound share no code with any planner: a plan is
// trusted only after the checker, a separate path, has accepted it.
//
//===----------------------------------------------------------------------===//
#ifndef WIRC_PLAN_CHECKER_H
#define WIRC_PLAN_CHECKER_H

#include "wirc/plan/Problem.h"

#include <cstddef>
#include <optional>
#include <string>
#include <vector>

namespace wirc::plan {

/// What the checker found wrong with a plan; empty when it is valid.
struct CheckResult {
  std::vector<std::string> errors;
  bool ok() const { return errors.empty(); }
};

/// Checks \p plan against \p problem (which must be valid): one offset per
/// request; offsets non-negative and multiples of their alignment; no two
/// requests whose live ranges intersect overlap in [offset, offset +
/// paddedSize); and `plan.peak` equal to the largest offset + paddedSize.
/// Zero-size requests occupy nothing and conflict with nothing. A sweep over
/// time with the live requests ordered by offset: O(n log n). Reports at
/// most \p maxErrors errors.
CheckResult checkPlan(const Problem &problem, const Plan &plan, size_t maxErrors = 8);

/// The lower bound on any plan's peak: the largest sum of padded sizes of
/// the requests live at one time step. A difference array over the sorted
/// begin and end events, O(n log n). nullopt when the sum overflows int64.
std::optional<int64_t> lowerBound(const Problem &problem);

} // namespace wirc::plan

#endif // WIRC_PLAN_CHECKER_H
