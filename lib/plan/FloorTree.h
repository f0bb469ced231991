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
    nodes.assign(2 * static_cast<size_t>(leaves), Node{});
  }

  /// Raises every section in [first, last) to \p value, which must be above
  /// all of their heights.
  void raise(int32_t first, int32_t last, int64_t value) {
    if (first >= last)
      return;
    // Bottom up: the nodes that tile the range take the value as their tag
    // and top. Their ancestors lie on the paths from the two end leaves to
    // the root; every node on those paths recomputes its top from its tag
    // and its children, so that a node's top is exactly the largest tag in
    // its subtree (the searches below rely on a leaf's top being its tag).
    size_t lo = static_cast<size_t>(leaves) + first, hi = static_cast<size_t>(leaves) + last;
    const size_t leftLeaf = lo, rightLeaf = hi - 1;
    for (; lo < hi; lo /= 2, hi /= 2) {
      if (lo & 1) {
        nodes[lo].tag = nodes[lo].top = value;
        ++lo;
      }
      if (hi & 1) {
        --hi;
        nodes[hi].tag = nodes[hi].top = value;
      }
    }
    auto refresh = [&](size_t node) {
      nodes[node].top = std::max({nodes[node].tag, nodes[2 * node].top, nodes[2 * node + 1].top});
    };
    size_t left = leftLeaf / 2, right = rightLeaf / 2;
    for (; left != right; left /= 2, right /= 2) {
      refresh(left);
      refresh(right);
    }
    for (; left >= 1; left /= 2)
      refresh(left);
  }
  /// The height of section \p k.
  int64_t at(int32_t k) const {
    int64_t height = 0;
    for (size_t node = static_cast<size_t>(leaves) + k; node >= 1; node /= 2)
      height = std::max(height, nodes[node].tag);
    return height;
  }
  /// The highest section in [first, last).
  int64_t max(int32_t first, int32_t last) const {
    if (first >= last)
      return 0;
    // The tops of the nodes that tile the range, and the tags of their
    // ancestors, which lie on the paths from the two end leaves to the root.
    int64_t height = 0;
    size_t lo = static_cast<size_t>(leaves) + first, hi = static_cast<size_t>(leaves) + last;
    const size_t leftLeaf = lo, rightLeaf = hi - 1;
    for (; lo < hi; lo /= 2, hi /= 2) {
      if (lo & 1)
        height = std::max(height, nodes[lo++].top);
      if (hi & 1)
        height = std::max(height, nodes[--hi].top);
    }
    size_t left = leftLeaf / 2, right = rightLeaf / 2;
    for (; left != right; left /= 2, right /= 2)
      height = std::max({height, nodes[left].tag, nodes[right].tag});
    for (; left >= 1; left /= 2)
      height = std::max(height, nodes[left].tag);
    return height;
  }
  /// The last section before \p k higher than \p level, or -1.
  int32_t lastAbove(int32_t k, int64_t level) const { return lastAbove(1, 0, leaves, k, level); }
  /// The first section at or after \p k higher than \p level, or the number
  /// of sections.
  int32_t firstAbove(int32_t k, int64_t level) const {
    int32_t found = firstAbove(1, 0, leaves, k, level);
    return found < 0 ? n : std::min(found, n);
  }

private:
  int32_t lastAbove(size_t node, int32_t lo, int32_t hi, int32_t k, int64_t level) const {
    if (lo >= k || nodes[node].top <= level)
      return -1;
    if (nodes[node].tag > level)
      return std::min(hi, k) - 1; // the whole node is above the level
    int32_t mid = lo + (hi - lo) / 2;
    int32_t found = lastAbove(2 * node + 1, mid, hi, k, level);
    return found >= 0 ? found : lastAbove(2 * node, lo, mid, k, level);
  }
  int32_t firstAbove(size_t node, int32_t lo, int32_t hi, int32_t k, int64_t level) const {
    if (hi <= k || nodes[node].top <= level)
      return -1;
    if (nodes[node].tag > level)
      return std::max(lo, k);
    int32_t mid = lo + (hi - lo) / 2;
    int32_t found = firstAbove(2 * node, lo, mid, k, level);
    return found >= 0 ? found : firstAbove(2 * node + 1, mid, hi, k, level);
  }

  int32_t n;
  int32_t leaves;
  // A node's two fields share a cache line: every walk reads both.
  struct Node {
    int64_t top = 0; ///< the highest section below the node
    int64_t tag = 0; ///< the last value assigned to the whole node
  };
  std::vector<Node> nodes;
};

} // namespace wirc::plan::detail

#endif // WIRC_LIB_PLAN_FLOORTREE_H
