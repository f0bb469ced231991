//===- PlanInternal.h - Shared by the planners, not by the checker --------===//
#ifndef WIRC_LIB_PLAN_PLANINTERNAL_H
#define WIRC_LIB_PLAN_PLANINTERNAL_H

#include "wirc/plan/Planner.h"

#include <algorithm>
#include <cstdint>
#include <optional>
#include <stdexcept>
#include <string>
#include <vector>

namespace wirc::plan::detail {

/// Thrown by a planner whose plan would not fit in int64; planMemory turns it
/// into an error.
class PlanOverflow : public std::overflow_error {
public:
  PlanOverflow() : std::overflow_error("the plan exceeds the 64-bit address space") {}
};

inline int64_t addOrThrow(int64_t a, int64_t b) {
  int64_t sum;
  if (__builtin_add_overflow(a, b, &sum))
    throw PlanOverflow();
  return sum;
}

inline int64_t alignUpOrThrow(int64_t value, int64_t alignment) {
  return addOrThrow(value, alignment - 1) & ~(alignment - 1);
}

/// validateProblem without the live-bytes check, which needs the lower bound.
std::string validateRequests(const Problem &problem);

/// validateProblem's message when the bytes live at once overflow.
inline constexpr const char *kLiveOverflow = "the bytes live at one time step overflow int64";

/// The requests that hold bytes, with time compressed to sections: the
/// sorted distinct begin and end times cut the time line into sections, and
/// request i covers sections [first[i], last[i]). Zero-size requests are left
/// out; they take offset 0 and conflict with nothing.
struct Instance {
  std::vector<uint32_t> requestId; ///< instance index -> problem request id
  std::vector<int64_t> size;       ///< padded size, > 0
  std::vector<int64_t> alignment;
  std::vector<int64_t> begin, end; ///< original time steps
  std::vector<int32_t> first, last;
  int32_t numSections = 0;
  int64_t lowerBound = 0;

  size_t count() const { return size.size(); }
  int64_t length(size_t i) const { return end[i] - begin[i]; }
};

/// Builds the instance of a problem that passed validateRequests, with its
/// lower bound (the largest load of a section; the same value as
/// lowerBound()); nullopt when the bytes live at once overflow int64.
std::optional<Instance> makeInstance(const Problem &problem);

/// Offsets by instance index; -1 where not placed.
using Offsets = std::vector<int64_t>;

/// The peak of complete offsets.
int64_t peakOf(const Instance &inst, const Offsets &offsets);

/// Expands instance offsets to a plan of the whole problem.
Plan toPlan(const Problem &problem, const Instance &inst, const Offsets &offsets);

/// A stable order of instance indices by \p less, ties broken by index.
template <typename Less> std::vector<uint32_t> orderBy(const Instance &inst, Less less);

/// Deterministic pseudo-random numbers (splitmix64); the same everywhere.
class Rng {
public:
  explicit Rng(uint64_t seed) : state(seed) {}
  uint64_t next() {
    uint64_t z = (state += 0x9e3779b97f4a7c15ULL);
    z = (z ^ (z >> 30)) * 0xbf58476d1ce4e5b9ULL;
    z = (z ^ (z >> 27)) * 0x94d049bb133111ebULL;
    return z ^ (z >> 31);
  }
  /// Uniform in [0, bound), bound > 0 (the tiny modulo bias does not matter
  /// for test and benchmark data).
  uint64_t below(uint64_t bound) { return next() % bound; }

private:
  uint64_t state;
};

//===----------------------------------------------------------------------===//
// Decoders: each places every request of an instance, in some order, and
// returns the offsets, or nullopt when it would exceed its work budget.
//===----------------------------------------------------------------------===//

/// Best fit (TFLite, XLA): in \p order, each request goes into the smallest
/// gap between the already placed requests it conflicts with, or above the
/// highest of them. Costs O(k log k) per request for k conflicting placed
/// requests; gives up when the total exceeds \p workBudget.
std::optional<Offsets> placeBestFit(const Instance &inst, const std::vector<uint32_t> &order,
                                    uint64_t workBudget, uint64_t *workUsed = nullptr);

/// Skyline: in \p order, each request goes right above the highest request
/// placed so far anywhere in its live range; holes below are never reused.
/// O(log n) per request. Exact on nested (laminar) live ranges placed
/// longest first.
Offsets placeSkyline(const Instance &inst, const std::vector<uint32_t> &order);

/// Online best fit: time runs forward and each request, when it begins, takes
/// the smallest free block that fits (larger requests first among those that
/// begin together); ends return blocks to the free list. The plan of an
/// allocator that knows no future; O(n log n).
Offsets placeOnlineBestFit(const Instance &inst);

/// Lowest level first: repeatedly take the lowest open level of the arena,
/// in its most loaded section, and put there the request of highest \p key
/// that fits entirely in the free valley around it; a section with no such
/// request is closed at that level. Requests are placed in non-decreasing
/// offset order. Needs the section cover lists (sum of spans entries).
class LevelDecoder {
public:
  explicit LevelDecoder(const Instance &inst);
  /// Entries of the cover lists, to decide whether the decoder is affordable
  /// before constructing it.
  static uint64_t coverEntries(const Instance &inst);
  /// Places every request; returns the peak. \p work grows by the work done;
  /// past \p workLimit units the decoder gives up and returns -1.
  int64_t run(const std::vector<double> &key, Offsets &offsets, uint64_t &work,
              uint64_t workLimit = UINT64_MAX);

private:
  const Instance &inst;
  std::vector<uint32_t> coverStart; ///< CSR: section -> its covering requests
  std::vector<uint32_t> coverItems;
  std::vector<int64_t> sectionBytes; ///< total bytes covering each section
};

/// Depth-first search over canonical plans (MiniMalloc's approach) for
/// offsets whose peak is at most \p capacity. Visits at most \p nodeBudget
/// search nodes, adding the number visited to \p nodesUsed; nullopt when it
/// finds no plan within them. Costs O(S) per node for S sections.
std::optional<Offsets> searchWithinCapacity(const Instance &inst, int64_t capacity,
                                            uint64_t nodeBudget, uint64_t &nodesUsed);

/// Inductor's pool planner (memory_planning.py) on one pool that may grow.
Offsets placePool(const Instance &inst, int64_t poolAlignment);

/// The arena planner: portfolio, then search. Fills \p stats.
Offsets planArena(const Instance &inst, const PlanOptions &options, PlanStats &stats);

//===----------------------------------------------------------------------===//

template <typename Less> std::vector<uint32_t> orderBy(const Instance &inst, Less less) {
  std::vector<uint32_t> order(inst.count());
  for (uint32_t i = 0; i < order.size(); ++i)
    order[i] = i;
  std::stable_sort(order.begin(), order.end(), [&](uint32_t a, uint32_t b) {
    if (less(a, b))
      return true;
    if (less(b, a))
      return false;
    return a < b;
  });
  return order;
}

} // namespace wirc::plan::detail

#endif // WIRC_LIB_PLAN_PLANINTERNAL_H
