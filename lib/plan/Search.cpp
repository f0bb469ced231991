//===- Search.cpp - Depth-first search for a plan within a capacity -------===//
//
// Looks for a plan whose peak is at most a given capacity (the lower bound:
// a plan found there is optimal) in the style of MiniMalloc: a depth-first
// search over the choices of the lowest-level-first decoder, pruned by what
// the capacity implies.
//
//   * Sections: each step takes the lowest section that still has bytes to
//     place (the first on ties) and either puts a request that covers it at
//     its floor, resting on what is below, or leaves the section empty up to
//     its lower wall. Fixing the section removes the orderings of
//     independent placements that lead to the same state.
//   * Inference: a section whose floor plus the bytes still to place in it
//     exceeds the capacity fails at once. Only the sections a step raises
//     can fail, so only they are checked.
//   * Dominance: of several unplaced requests with the same span, size and
//     alignment, only the first is tried; the others give the same subtrees.
//
// Leaving a section empty only up to its lower wall skips some plans, so the
// search is not complete: when it fails, a plan at the capacity may still
// exist. It is bounded by a number of nodes, never by time, so its result is
// the same on every machine.
//
//===----------------------------------------------------------------------===//
#include "PlanInternal.h"

#include <limits>

namespace wirc::plan::detail {

namespace {

class CapacitySearch {
public:
  CapacitySearch(const Instance &inst, int64_t capacity, uint64_t nodeBudget)
      : inst(inst), capacity(capacity), nodeBudget(nodeBudget) {
    const int32_t sections = inst.numSections;
    floor.assign(sections, 0);
    remaining.assign(sections, 0);
    coverStart.assign(static_cast<size_t>(sections) + 1, 0);
    for (size_t i = 0; i < inst.count(); ++i)
      for (int32_t k = inst.first[i]; k < inst.last[i]; ++k) {
        ++coverStart[k + 1];
        remaining[k] += inst.size[i];
      }
    for (int32_t k = 0; k < sections; ++k)
      coverStart[k + 1] += coverStart[k];
    coverItems.resize(coverStart[sections]);
    std::vector<uint32_t> fill(coverStart.begin(), coverStart.end() - 1);
    // Larger requests first within a section: they are the hardest to fit
    // later, so trying them first finds plans sooner.
    std::vector<uint32_t> bySize(inst.count());
    for (uint32_t i = 0; i < bySize.size(); ++i)
      bySize[i] = i;
    std::stable_sort(bySize.begin(), bySize.end(), [&](uint32_t a, uint32_t b) {
      if (inst.size[a] != inst.size[b])
        return inst.size[a] > inst.size[b];
      return inst.length(a) > inst.length(b);
    });
    for (uint32_t i : bySize)
      for (int32_t k = inst.first[i]; k < inst.last[i]; ++k)
        coverItems[fill[k]++] = i;
    offsets.assign(inst.count(), -1);
  }

  /// Offsets within the capacity, or nullopt when the budget ran out or no
  /// canonical plan fits.
  std::optional<Offsets> run(uint64_t &nodesUsed) {
    for (int32_t k = 0; k < inst.numSections; ++k)
      if (remaining[k] > capacity)
        return std::nullopt;
    bool found = dive(inst.count(), 0);
    nodesUsed += nodes;
    if (!found)
      return std::nullopt;
    return offsets;
  }

private:
  /// The lowest section with bytes left to place, or -1.
  int32_t lowestSection() const {
    int32_t lowest = -1;
    for (int32_t k = 0; k < inst.numSections; ++k)
      if (remaining[k] > 0 && (lowest < 0 || floor[k] < floor[lowest]))
        lowest = k;
    return lowest;
  }

  /// Frames of dive at most: keeps the stack within a few megabytes.
  static constexpr size_t kMaxDepth = 16384;

  bool dive(size_t left, size_t depth) {
    if (left == 0)
      return true;
    if (nodes >= nodeBudget || depth > kMaxDepth)
      return false;
    ++nodes;
    const int32_t k = lowestSection();
    const int64_t level = floor[k];

    // Every candidate covers k and fits at the level: no section of its span
    // is higher (none that still has bytes to place is lower).
    const uint32_t *list = coverItems.data() + coverStart[k];
    const uint32_t count = coverStart[k + 1] - coverStart[k];
    for (uint32_t idx = 0; idx < count; ++idx) {
      const uint32_t c = list[idx];
      if (offsets[c] >= 0 || !fitsAt(c, level) || duplicateBefore(list, idx))
        continue;
      const int64_t at = alignUpOrThrow(level, inst.alignment[c]);
      const int64_t top = at + inst.size[c];
      if (top > capacity)
        continue;
      // Raise the span, remembering the floors to restore.
      const size_t mark = trail.size();
      bool feasible = true;
      for (int32_t s = inst.first[c]; s < inst.last[c]; ++s) {
        trail.emplace_back(s, floor[s]);
        floor[s] = top;
        remaining[s] -= inst.size[c];
        feasible &= floor[s] <= capacity - remaining[s];
      }
      offsets[c] = at;
      if (feasible && dive(left - 1, depth + 1))
        return true;
      offsets[c] = -1;
      for (int32_t s = inst.first[c]; s < inst.last[c]; ++s)
        remaining[s] += inst.size[c];
      undo(mark);
      if (nodes >= nodeBudget)
        return false;
    }

    // Or leave k empty up to its lower wall: the nearest higher floor on
    // either side.
    int64_t wall = std::numeric_limits<int64_t>::max();
    for (int32_t s = k - 1; s >= 0; --s)
      if (floor[s] > level) {
        wall = std::min(wall, floor[s]);
        break;
      }
    for (int32_t s = k + 1; s < inst.numSections; ++s)
      if (floor[s] > level) {
        wall = std::min(wall, floor[s]);
        break;
      }
    if (wall == std::numeric_limits<int64_t>::max() || wall > capacity - remaining[k])
      return false;
    const size_t mark = trail.size();
    trail.emplace_back(k, floor[k]);
    floor[k] = wall;
    if (dive(left, depth + 1))
      return true;
    undo(mark);
    return false;
  }

  bool fitsAt(uint32_t c, int64_t level) const {
    for (int32_t s = inst.first[c]; s < inst.last[c]; ++s)
      if (floor[s] > level)
        return false;
    return true;
  }

  /// Whether an unplaced request before \p idx in the list has the same
  /// span, size and alignment as the one at \p idx.
  bool duplicateBefore(const uint32_t *list, uint32_t idx) const {
    const uint32_t c = list[idx];
    for (uint32_t j = idx; j-- > 0;) {
      const uint32_t d = list[j];
      if (inst.size[d] != inst.size[c])
        return false; // the list is ordered by size
      if (offsets[d] < 0 && inst.first[d] == inst.first[c] && inst.last[d] == inst.last[c] &&
          inst.alignment[d] == inst.alignment[c])
        return true;
    }
    return false;
  }

  void undo(size_t mark) {
    while (trail.size() > mark) {
      floor[trail.back().first] = trail.back().second;
      trail.pop_back();
    }
  }

  const Instance &inst;
  const int64_t capacity;
  const uint64_t nodeBudget;
  uint64_t nodes = 0;
  std::vector<int64_t> floor;     ///< per section: nothing goes below it
  std::vector<int64_t> remaining; ///< per section: bytes still to place
  std::vector<uint32_t> coverStart, coverItems;
  std::vector<std::pair<int32_t, int64_t>> trail; ///< (section, old floor)
  Offsets offsets;
};

} // namespace

std::optional<Offsets> searchWithinCapacity(const Instance &inst, int64_t capacity,
                                            uint64_t nodeBudget, uint64_t &nodesUsed) {
  if (inst.count() == 0)
    return Offsets{};
  return CapacitySearch(inst, capacity, nodeBudget).run(nodesUsed);
}

} // namespace wirc::plan::detail
