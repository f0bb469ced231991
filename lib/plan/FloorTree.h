//===- FloorTree.h - Per-section floor heights ----------------------------===//
#ifndef WIRC_LIB_PLAN_FLOORTREE_H
#define WIRC_LIB_PLAN_FLOORTREE_H

#include <algorithm>
#include <cstdint>
#include <vector>

namespace wirc::plan::detail {

/// A height per section with range assignment, range maximum and searches
/// for the nearest section above a level, each O(log S).
class FloorTree {
public:
  explicit FloorTree(int32_t numSections) : n(std::max(numSections, 1)) {
    leaves = 1;
    while (leaves < n)
      leaves *= 2;
    top.assign(2 * static_cast<size_t>(leaves), 0);
    pending.assign(2 * static_cast<size_t>(leaves), kNoTag);
  }

  /// Sets every section in [first, last) to \p value.
  void assign(int32_t first, int32_t last, int64_t value) {
    assign(1, 0, leaves, first, last, value);
  }
  /// The highest section in [first, last).
  int64_t max(int32_t first, int32_t last) { return max(1, 0, leaves, first, last); }
  /// The last section before \p k higher than \p level, or -1.
  int32_t lastAbove(int32_t k, int64_t level) { return lastAbove(1, 0, leaves, k, level); }
  /// The first section at or after \p k higher than \p level, or the number
  /// of sections.
  int32_t firstAbove(int32_t k, int64_t level) {
    int32_t found = firstAbove(1, 0, leaves, k, level);
    return found < 0 ? n : std::min(found, n);
  }

private:
  static constexpr int64_t kNoTag = -1;

  void apply(size_t node, int64_t value) {
    top[node] = value;
    pending[node] = value;
  }
  void push(size_t node) {
    if (pending[node] != kNoTag) {
      apply(2 * node, pending[node]);
      apply(2 * node + 1, pending[node]);
      pending[node] = kNoTag;
    }
  }
  void assign(size_t node, int32_t lo, int32_t hi, int32_t first, int32_t last, int64_t value) {
    if (last <= lo || hi <= first)
      return;
    if (first <= lo && hi <= last) {
      apply(node, value);
      return;
    }
    push(node);
    int32_t mid = lo + (hi - lo) / 2;
    assign(2 * node, lo, mid, first, last, value);
    assign(2 * node + 1, mid, hi, first, last, value);
    top[node] = std::max(top[2 * node], top[2 * node + 1]);
  }
  int64_t max(size_t node, int32_t lo, int32_t hi, int32_t first, int32_t last) {
    if (last <= lo || hi <= first)
      return 0;
    if (first <= lo && hi <= last)
      return top[node];
    push(node);
    int32_t mid = lo + (hi - lo) / 2;
    return std::max(max(2 * node, lo, mid, first, last), max(2 * node + 1, mid, hi, first, last));
  }
  int32_t lastAbove(size_t node, int32_t lo, int32_t hi, int32_t k, int64_t level) {
    if (lo >= k || top[node] <= level)
      return -1;
    if (hi - lo == 1)
      return lo;
    push(node);
    int32_t mid = lo + (hi - lo) / 2;
    int32_t found = lastAbove(2 * node + 1, mid, hi, k, level);
    return found >= 0 ? found : lastAbove(2 * node, lo, mid, k, level);
  }
  int32_t firstAbove(size_t node, int32_t lo, int32_t hi, int32_t k, int64_t level) {
    if (hi <= k || top[node] <= level)
      return -1;
    if (hi - lo == 1)
      return lo;
    push(node);
    int32_t mid = lo + (hi - lo) / 2;
    int32_t found = firstAbove(2 * node, lo, mid, k, level);
    return found >= 0 ? found : firstAbove(2 * node + 1, mid, hi, k, level);
  }

  int32_t n;
  int32_t leaves;
  std::vector<int64_t> top;
  std::vector<int64_t> pending;
};

} // namespace wirc::plan::detail

#endif // WIRC_LIB_PLAN_FLOORTREE_H
