//===- BestFit.cpp - Best-fit and online best-fit decoders ----------------===//
#include "PlanInternal.h"
#include "RadixSort.h"

#include <limits>
#include <map>
#include <set>

namespace wirc::plan::detail {

namespace {

/// The placed requests, found by live range: a segment tree over sections in
/// which each request is stored in the O(log S) nodes that tile its span. A
/// query visits only subtrees that hold something, so its cost follows the
/// number of requests it reports, not the length of the range.
class OverlapIndex {
public:
  OverlapIndex(int32_t numSections, size_t numItems) : stamp(numItems, 0) {
    leaves = 1;
    while (leaves < numSections)
      leaves *= 2;
    nodes.assign(2 * static_cast<size_t>(leaves), Node{});
  }

  void insert(uint32_t item, int32_t first, int32_t last) {
    insert(1, 0, leaves, item, first, last);
  }

  /// Calls \p fn once for each stored item whose span meets [first, last);
  /// returns the number of entries visited.
  template <typename Fn> uint64_t forEachOverlap(int32_t first, int32_t last, Fn &&fn) {
    ++epoch;
    uint64_t visited = 0;
    visit(1, 0, leaves, first, last, fn, visited);
    return visited;
  }

private:
  static constexpr uint32_t kNone = std::numeric_limits<uint32_t>::max();

  uint32_t insert(size_t node, int32_t lo, int32_t hi, uint32_t item, int32_t first, int32_t last) {
    if (last <= lo || hi <= first)
      return 0;
    uint32_t added;
    if (first <= lo && hi <= last) {
      entryItem.push_back(item);
      entryNext.push_back(nodes[node].head);
      nodes[node].head = static_cast<uint32_t>(entryItem.size() - 1);
      added = 1;
    } else {
      int32_t mid = lo + (hi - lo) / 2;
      added = insert(2 * node, lo, mid, item, first, last) +
              insert(2 * node + 1, mid, hi, item, first, last);
    }
    nodes[node].count += added;
    return added;
  }

  template <typename Fn>
  void visit(size_t node, int32_t lo, int32_t hi, int32_t first, int32_t last, Fn &fn,
             uint64_t &visited) {
    if (nodes[node].count == 0 || last <= lo || hi <= first)
      return;
    for (uint32_t e = nodes[node].head; e != kNone; e = entryNext[e]) {
      ++visited;
      uint32_t item = entryItem[e];
      if (stamp[item] != epoch) {
        stamp[item] = epoch;
        fn(item);
      }
    }
    if (hi - lo > 1) {
      int32_t mid = lo + (hi - lo) / 2;
      visit(2 * node, lo, mid, first, last, fn, visited);
      visit(2 * node + 1, mid, hi, first, last, fn, visited);
    }
  }

  int32_t leaves;
  // Read together on every visit, so kept together.
  struct Node {
    uint32_t head = kNone; ///< the node's first entry
    uint32_t count = 0;    ///< entries in the node's subtree
  };
  std::vector<Node> nodes;
  std::vector<uint32_t> entryItem, entryNext;
  std::vector<uint32_t> stamp;
  uint32_t epoch = 0;
};

} // namespace

std::optional<Offsets> placeBestFit(const Instance &inst, const std::vector<uint32_t> &order,
                                    uint64_t workBudget, uint64_t *workUsed) {
  Offsets offsets(inst.count(), -1);
  OverlapIndex index(inst.numSections, inst.count());
  std::vector<std::pair<int64_t, int64_t>> occupied; // (offset, end) of conflicting
  uint64_t work = 0;
  for (uint32_t i : order) {
    occupied.clear();
    work += index.forEachOverlap(inst.first[i], inst.last[i], [&](uint32_t j) {
      occupied.emplace_back(offsets[j], offsets[j] + inst.size[j]);
    });
    std::sort(occupied.begin(), occupied.end());
    work += occupied.size() + 1;
    const int64_t size = inst.size[i];
    const int64_t align = inst.alignment[i];
    int64_t reached = 0; // everything below is taken by some conflicting request
    int64_t best = -1;
    int64_t bestGap = std::numeric_limits<int64_t>::max();
    for (const auto &[start, end] : occupied) {
      if (start > reached) {
        int64_t at = alignUpOrThrow(reached, align);
        if (at <= start && start - at >= size && start - reached < bestGap) {
          bestGap = start - reached;
          best = at;
        }
      }
      reached = std::max(reached, end);
    }
    if (best < 0)
      best = alignUpOrThrow(reached, align);
    addOrThrow(best, size);
    offsets[i] = best;
    index.insert(i, inst.first[i], inst.last[i]);
    if (work > workBudget) {
      if (workUsed)
        *workUsed = work;
      return std::nullopt;
    }
  }
  if (workUsed)
    *workUsed = work;
  return offsets;
}

Offsets placeOnlineBestFit(const Instance &inst) {
  // Events by section boundary; frees before allocations; allocations
  // largest first; then by request. Event i < n begins request i, event
  // n + i ends it, so the final tie-break is the request.
  const size_t n = inst.count();
  std::vector<uint64_t> when(2 * n), bySize(2 * n, 0);
  for (size_t i = 0; i < n; ++i) {
    when[i] = 2 * static_cast<uint64_t>(inst.first[i]) + 1;
    when[n + i] = 2 * static_cast<uint64_t>(inst.last[i]);
    bySize[i] = descendingKey(static_cast<uint64_t>(inst.size[i]));
  }
  const std::vector<uint32_t> events = orderByKeys(when, bySize);

  std::map<int64_t, int64_t> byStart;             // free block start -> end
  std::set<std::pair<int64_t, int64_t>> byLength; // (length, start)
  auto addFree = [&](int64_t start, int64_t end) {
    if (start >= end)
      return;
    auto next = byStart.lower_bound(start);
    if (next != byStart.end() && next->first == end) {
      end = next->second;
      byLength.erase({next->second - next->first, next->first});
      next = byStart.erase(next);
    }
    if (next != byStart.begin()) {
      auto prev = std::prev(next);
      if (prev->second == start) {
        start = prev->first;
        byLength.erase({prev->second - prev->first, prev->first});
        byStart.erase(prev);
      }
    }
    byStart[start] = end;
    byLength.insert({end - start, start});
  };
  auto takeFree = [&](int64_t start) {
    auto it = byStart.find(start);
    byLength.erase({it->second - it->first, it->first});
    byStart.erase(it);
  };

  Offsets offsets(inst.count(), -1);
  int64_t top = 0; // high-water mark; everything above is free
  for (const uint32_t event : events) {
    const uint32_t i = event < n ? event : static_cast<uint32_t>(event - n);
    const int64_t size = inst.size[i];
    if (event >= n) {
      addFree(offsets[i], offsets[i] + size);
      continue;
    }
    const int64_t align = inst.alignment[i];
    int64_t at = -1;
    for (auto it = byLength.lower_bound({size, std::numeric_limits<int64_t>::min()});
         it != byLength.end(); ++it) {
      int64_t start = it->second, end = start + it->first;
      int64_t aligned = alignUpOrThrow(start, align);
      if (aligned + size <= end) {
        takeFree(start);
        addFree(start, aligned);
        addFree(aligned + size, end);
        at = aligned;
        break;
      }
    }
    if (at < 0 && !byStart.empty() && byStart.rbegin()->second == top) {
      // Grow the arena from the free block at its top.
      int64_t start = byStart.rbegin()->first;
      at = alignUpOrThrow(start, align);
      takeFree(start);
      addFree(start, at);
      top = addOrThrow(at, size);
    }
    if (at < 0) {
      at = alignUpOrThrow(top, align);
      addFree(top, at);
      top = addOrThrow(at, size);
    }
    offsets[i] = at;
  }
  return offsets;
}

} // namespace wirc::plan::detail
