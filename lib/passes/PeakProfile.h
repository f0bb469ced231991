//===- PeakProfile.h - Range add, range max over a memory profile -*- C++ -*-===//
//
// The reuse planner asks, for each allocation that could take a freed
// buffer's storage over, whether keeping that storage alive from its free to
// the allocation would raise the peak, and if not, adds its bytes over that
// span. The spans are short (tens of lines on large graphs) and the profile
// long (a line each), so the profile is kept in blocks: the lines of a span's
// partial blocks are scanned in place, and whole blocks go through a segment
// tree over the blocks, small enough to stay in cache (a segment tree over
// every line would take a cache miss per level for each question).
//
//===----------------------------------------------------------------------===//
#ifndef WIRC_PASSES_PEAKPROFILE_H
#define WIRC_PASSES_PEAKPROFILE_H

#include <algorithm>
#include <cstddef>
#include <cstdint>
#include <utility>
#include <vector>

namespace wirc::passes {

class PeakProfile {
public:
  static constexpr size_t kBlockBits = 6;
  static constexpr size_t kBlock = size_t(1) << kBlockBits;

  /// Takes \p values, the bytes live after each line, over.
  explicit PeakProfile(std::vector<int64_t> values) : value(std::move(values)) {
    const size_t blocks = (value.size() + kBlock - 1) / kBlock;
    size = 1;
    while (size < blocks)
      size *= 2;
    maxv.assign(2 * size, kEmpty);
    added.assign(2 * size, 0);
    for (size_t b = 0; b < blocks; ++b)
      maxv[size + b] = scan(b * kBlock, std::min(value.size(), (b + 1) * kBlock));
    for (size_t i = size - 1; i > 0; --i)
      maxv[i] = std::max(maxv[2 * i], maxv[2 * i + 1]);
  }

  size_t length() const { return value.size(); }

  /// The maximum over [lo, hi); a very small number if the range is empty.
  int64_t max(size_t lo, size_t hi) const {
    if (lo >= hi)
      return kEmpty;
    const size_t bl = lo >> kBlockBits, bh = (hi - 1) >> kBlockBits;
    if (bl == bh)
      return scan(lo, hi) + pending(bl);
    int64_t m = std::max(scan(lo, (bl + 1) * kBlock) + pending(bl),
                         scan(bh * kBlock, hi) + pending(bh));
    if (bl + 1 < bh)
      m = std::max(m, treeMax(bl + 1, bh));
    return m;
  }

  /// Adds \p delta over [lo, hi).
  void add(size_t lo, size_t hi, int64_t delta) {
    if (lo >= hi)
      return;
    const size_t bl = lo >> kBlockBits, bh = (hi - 1) >> kBlockBits;
    if (bl == bh) {
      addInBlock(bl, lo, hi, delta);
      return;
    }
    addInBlock(bl, lo, (bl + 1) * kBlock, delta);
    addInBlock(bh, bh * kBlock, hi, delta);
    if (bl + 1 < bh)
      treeAdd(bl + 1, bh, delta);
  }

private:
  static constexpr int64_t kEmpty = INT64_MIN / 4;
  /// Line values, without the additions made to whole blocks (those are in
  /// the tree: `added` of a block's leaf and of its ancestors).
  std::vector<int64_t> value;
  size_t size = 1; ///< leaves of the tree (blocks, rounded up to a power of two)
  /// Each node: the maximum over its blocks, with the additions made to its
  /// whole range and below, but not those made to its ancestors' ranges.
  std::vector<int64_t> maxv;
  std::vector<int64_t> added;

  int64_t scan(size_t lo, size_t hi) const {
    int64_t m = kEmpty;
    for (size_t i = lo; i < hi; ++i)
      m = std::max(m, value[i]);
    return m;
  }
  /// What block \p b's lines have been given as whole blocks: the additions
  /// at its leaf and its ancestors.
  int64_t pending(size_t b) const {
    int64_t sum = 0;
    for (size_t node = size + b; node > 0; node >>= 1)
      sum += added[node];
    return sum;
  }
  void addInBlock(size_t b, size_t lo, size_t hi, int64_t delta) {
    int64_t raised = kEmpty;
    for (size_t i = lo; i < hi; ++i)
      raised = std::max(raised, value[i] += delta);
    size_t node = size + b;
    // What grows can only raise the block's maximum (the planner only adds);
    // what shrinks may lower it, which takes a scan of the block.
    if (delta >= 0)
      maxv[node] = std::max(maxv[node], raised + added[node]);
    else
      maxv[node] = scan(b * kBlock, std::min(value.size(), (b + 1) * kBlock)) + added[node];
    // Up to the first ancestor whose maximum stays what it was.
    for (node >>= 1; node > 0; node >>= 1) {
      int64_t m = std::max(maxv[2 * node], maxv[2 * node + 1]) + added[node];
      if (m == maxv[node])
        break;
      maxv[node] = m;
    }
  }

  // Bottom-up over blocks [lo, hi), without recursion or pushing down:
  // queries add the ancestors' additions on the way up.
  int64_t treeMax(size_t lo, size_t hi) const {
    size_t l = lo + size, r = hi + size;
    int64_t left = kEmpty, right = kEmpty;
    while (l < r) {
      if (l & 1)
        left = std::max(left, maxv[l++]);
      if (r & 1)
        right = std::max(right, maxv[--r]);
      l >>= 1;
      r >>= 1;
      // Nodes taken so far lie under l - 1 (left) and r (right).
      if (left != kEmpty)
        left += added[l - 1];
      if (right != kEmpty)
        right += added[r];
    }
    for (size_t node = l - 1; left != kEmpty && node > 1;)
      left += added[node >>= 1];
    for (size_t node = r; right != kEmpty && node > 1;)
      right += added[node >>= 1];
    return std::max(left, right);
  }
  void treeAdd(size_t lo, size_t hi, int64_t delta) {
    size_t l = lo + size, r = hi + size;
    const size_t a = l >> 1, b = (r - 1) >> 1;
    for (; l < r; l >>= 1, r >>= 1) {
      if (l & 1) {
        maxv[l] += delta;
        added[l++] += delta;
      }
      if (r & 1) {
        maxv[--r] += delta;
        added[r] += delta;
      }
    }
    for (size_t x = a, y = b; x > 0; x >>= 1, y >>= 1) {
      maxv[x] = std::max(maxv[2 * x], maxv[2 * x + 1]) + added[x];
      if (y != x)
        maxv[y] = std::max(maxv[2 * y], maxv[2 * y + 1]) + added[y];
    }
  }
};

} // namespace wirc::passes

#endif // WIRC_PASSES_PEAKPROFILE_H
