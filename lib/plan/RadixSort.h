//===- RadixSort.h - Stable sorts of request indices on integer keys ------===//
//
// The planners order up to millions of requests by one or two integer keys
// (size, length, begin). A least-significant-digit radix sort does that in a
// few linear passes, and skips the digits on which all keys agree (the high
// bits of sizes and times, the low bits of aligned sizes), where a
// comparison sort would do n log n indirect comparisons.
//
//===----------------------------------------------------------------------===//
#ifndef WIRC_LIB_PLAN_RADIXSORT_H
#define WIRC_LIB_PLAN_RADIXSORT_H

#include <algorithm>
#include <cstdint>
#include <vector>

namespace wirc::plan::detail {

/// A key that orders signed values like unsigned ones.
inline uint64_t signedKey(int64_t value) {
  return static_cast<uint64_t>(value) ^ (uint64_t{1} << 63);
}
/// A key that orders \p value's unsigned key in descending order.
inline uint64_t descendingKey(uint64_t key) { return ~key; }

/// Stably sorts \p order (indices into \p key) by key[index], ascending.
/// Equal keys keep their relative order, so sorting by a secondary key and
/// then by the primary one orders by both.
inline void radixSortBy(std::vector<uint32_t> &order, const std::vector<uint64_t> &key) {
  const size_t n = order.size();
  if (n < 2)
    return;
  if (n < 256) {
    std::stable_sort(order.begin(), order.end(),
                     [&](uint32_t a, uint32_t b) { return key[a] < key[b]; });
    return;
  }
  struct Item {
    uint64_t key;
    uint32_t index;
  };
  std::vector<Item> items(n), spare(n);
  uint64_t differ = 0; // the bits on which some key differs from the first
  const uint64_t firstKey = key[order[0]];
  for (size_t i = 0; i < n; ++i) {
    items[i] = {key[order[i]], order[i]};
    differ |= items[i].key ^ firstKey;
  }
  constexpr unsigned kBits = 11;
  constexpr size_t kBuckets = size_t{1} << kBits;
  std::vector<uint32_t> start(kBuckets);
  for (unsigned shift = 0; shift < 64; shift += kBits) {
    if (((differ >> shift) & (kBuckets - 1)) == 0)
      continue; // every key has the same digit here
    std::fill(start.begin(), start.end(), 0);
    for (const Item &item : items)
      ++start[(item.key >> shift) & (kBuckets - 1)];
    uint32_t sum = 0;
    for (uint32_t &count : start) {
      uint32_t c = count;
      count = sum;
      sum += c;
    }
    for (const Item &item : items)
      spare[start[(item.key >> shift) & (kBuckets - 1)]++] = item;
    items.swap(spare);
  }
  for (size_t i = 0; i < n; ++i)
    order[i] = items[i].index;
}

/// The indices 0..n-1 ordered by \p primary, then \p secondary (which may be
/// empty), then index: a total order, so the result does not depend on the
/// sort algorithm.
inline std::vector<uint32_t> orderByKeys(const std::vector<uint64_t> &primary,
                                         const std::vector<uint64_t> &secondary = {}) {
  std::vector<uint32_t> order(primary.size());
  for (uint32_t i = 0; i < order.size(); ++i)
    order[i] = i;
  if (!secondary.empty())
    radixSortBy(order, secondary);
  radixSortBy(order, primary);
  return order;
}

} // namespace wirc::plan::detail

#endif // WIRC_LIB_PLAN_RADIXSORT_H
