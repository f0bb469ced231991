//===- FloorTree.h - Per-section floor heights ----------------------------===//
#ifndef WIRC_LIB_PLAN_FLOORTREE_H
#define WIRC_LIB_PLAN_FLOORTREE_H

#include <algorithm>
#include <cstdint>
#include <vector>

namespace wirc::plan::detail {

/// A height per section that only ever rises: every assignment sets a range
/// to a value above all heights in it. Range maximum and the searches for the
/// nearest section above a level cost O(log S); no lazy propagation is
/// needed, because a section's height is the largest assignment on its path
/// to the root.
class FloorTree {
public:
  explicit FloorTree(int32_t numSections) : n(std::max(numSections, 1)) {
    leaves = 1;
    while (leaves < n)
      leaves *= 2;
    top.assign(2 * static_cast<size_t>(leaves), 0);
    tag.assign(2 * static_cast<size_t>(leaves), 0);
  }

  /// Raises every section in [first, last) to \p value, which must be above
  /// all of their heights.
  void raise(int32_t first, int32_t last, int64_t value) {
    raise(1, 0, leaves, first, last, value);
  }
  /// The height of section \p k.
  int64_t at(int32_t k) const {
    int64_t height = 0;
    for (size_t node = static_cast<size_t>(leaves) + k; node >= 1; node /= 2)
      height = std::max(height, tag[node]);
    return height;
  }
  /// The highest section in [first, last).
  int64_t max(int32_t first, int32_t last) const { return max(1, 0, leaves, first, last); }
  /// The last section before \p k higher than \p level, or -1.
  int32_t lastAbove(int32_t k, int64_t level) const { return lastAbove(1, 0, leaves, k, level); }
  /// The first section at or after \p k higher than \p level, or the number
  /// of sections.
  int32_t firstAbove(int32_t k, int64_t level) const {
    int32_t found = firstAbove(1, 0, leaves, k, level);
    return found < 0 ? n : std::min(found, n);
  }

private:
  void raise(size_t node, int32_t lo, int32_t hi, int32_t first, int32_t last, int64_t value) {
    if (last <= lo || hi <= first)
      return;
    top[node] = std::max(top[node], value);
    if (first <= lo && hi <= last) {
      tag[node] = value;
      return;
    }
    int32_t mid = lo + (hi - lo) / 2;
    raise(2 * node, lo, mid, first, last, value);
    raise(2 * node + 1, mid, hi, first, last, value);
  }
  int64_t max(size_t node, int32_t lo, int32_t hi, int32_t first, int32_t last) const {
    if (last <= lo || hi <= first)
      return 0;
    if ((first <= lo && hi <= last) || tag[node] == top[node])
      return top[node];
    int32_t mid = lo + (hi - lo) / 2;
    return std::max(
        {tag[node], max(2 * node, lo, mid, first, last), max(2 * node + 1, mid, hi, first, last)});
  }
  int32_t lastAbove(size_t node, int32_t lo, int32_t hi, int32_t k, int64_t level) const {
    if (lo >= k || top[node] <= level)
      return -1;
    if (tag[node] > level)
      return std::min(hi, k) - 1; // the whole node is above the level
    int32_t mid = lo + (hi - lo) / 2;
    int32_t found = lastAbove(2 * node + 1, mid, hi, k, level);
    return found >= 0 ? found : lastAbove(2 * node, lo, mid, k, level);
  }
  int32_t firstAbove(size_t node, int32_t lo, int32_t hi, int32_t k, int64_t level) const {
    if (hi <= k || top[node] <= level)
      return -1;
    if (tag[node] > level)
      return std::max(lo, k);
    int32_t mid = lo + (hi - lo) / 2;
    int32_t found = firstAbove(2 * node, lo, mid, k, level);
    return found >= 0 ? found : firstAbove(2 * node + 1, mid, hi, k, level);
  }

  int32_t n;
  int32_t leaves;
  std::vector<int64_t> top; ///< the highest section below each node
  std::vector<int64_t> tag; ///< the last value assigned to the whole node
};

} // namespace wirc::plan::detail

#endif // WIRC_LIB_PLAN_FLOORTREE_H
