//===- wirc/plan/Problem.h - Memory planning problems and plans -----------===//
//
// The memory planner works on a problem that knows nothing about Wrapper IR:
// a list of allocation requests, each a size, a half-open live range over
// integer time steps and an alignment. A plan gives every request an offset
// in one arena. Requests are addressed by their index (a dense id); nothing
// in a plan depends on pointers, hash order or time.
//
//===----------------------------------------------------------------------===//
#ifndef WIRC_PLAN_PROBLEM_H
#define WIRC_PLAN_PROBLEM_H

#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace wirc::plan {

/// One allocation: `size` bytes, live over the time steps [begin, end).
/// Two requests conflict when their live ranges intersect; a range that ends
/// at t and one that begins at t do not.
struct Request {
  int64_t size = 0;      ///< bytes, >= 0
  int64_t begin = 0;     ///< first time step the bytes are live
  int64_t end = 0;       ///< first time step they are dead again; > begin
  int64_t alignment = 1; ///< a power of two; the offset must be a multiple
};

/// A planning problem. Request ids are indices into `requests`.
struct Problem {
  std::vector<Request> requests;
};

/// Offsets for every request of a problem.
struct Plan {
  std::vector<int64_t> offsets; ///< by request id
  /// The arena size: the largest offset + paddedSize over all requests (0
  /// for a problem without bytes).
  int64_t peak = 0;
};

/// The bytes a request occupies in a plan: its size rounded up to its
/// alignment. Planners, the checker and the lower bound all use it, so a
/// plan's peak is never below the lower bound. Requires a valid request.
int64_t paddedSize(const Request &request);

/// Returns "" when \p problem is valid, else why not, naming the request id:
/// negative sizes, empty or reversed live ranges, alignments that are not
/// powers of two, and sizes whose padding or whose live total overflows
/// int64.
std::string validateProblem(const Problem &problem);

/// `a + b`, or nullopt when it overflows int64.
std::optional<int64_t> checkedAdd(int64_t a, int64_t b);

/// \p value rounded up to a multiple of \p alignment (a power of two), or
/// nullopt when that overflows int64.
std::optional<int64_t> checkedAlignUp(int64_t value, int64_t alignment);

} // namespace wirc::plan

#endif // WIRC_PLAN_PROBLEM_H
