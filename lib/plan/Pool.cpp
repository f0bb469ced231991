//===- Pool.cpp - Inductor's pool planner ---------------------------------===//
//
// Re-implements the semantics of Inductor's memory_planning.py pool planner
// as described in the research notes: a pool is a tree of temporal splits
// (children share addresses, never live at the same time) and spatial splits
// (a left and a right part side by side, the right one starting at the left
// one's size rounded up to the alignment). Requests are placed largest first,
// then longest-lived first. The pool may grow at its end, so with one device
// every request lands in one pool.
//
//===----------------------------------------------------------------------===//
#include "PlanInternal.h"

namespace wirc::plan::detail {

namespace {

struct Range {
  int64_t begin, end;
};

enum class Kind : uint8_t { Allocation, Empty, Temporal, Spatial };

struct Node {
  explicit Node(Kind kind) : kind(kind) {}
  Kind kind;
  int64_t size = 0;           ///< the size hint in bytes
  std::vector<Range> ranges;  ///< live ranges, sorted, touching ones merged
  std::vector<int32_t> children; ///< Temporal
  int32_t left = -1, right = -1; ///< Spatial: two Temporal nodes
  uint32_t item = 0;          ///< Allocation
};

class PoolTree {
public:
  PoolTree(const Instance &inst, int64_t alignment) : inst(inst), alignment(alignment) {}

  void allocate(uint32_t item) {
    int32_t block = makeAllocation(item);
    if (root < 0) {
      root = makeTemporal({block});
      return;
    }
    if (allocateIn(root, block, /*isLast=*/true))
      return;
    // The pool is the last one and may expand: the block goes after it.
    int32_t tail = makeTemporal({block});
    int32_t spatial = makeSpatial(root, tail);
    root = makeTemporal({spatial});
  }

  Offsets finalize() {
    Offsets offsets(inst.count(), -1);
    if (root < 0)
      return offsets;
    std::vector<std::pair<int32_t, int64_t>> stack{{root, 0}};
    while (!stack.empty()) {
      auto [id, at] = stack.back();
      stack.pop_back();
      const Node &node = nodes[id];
      switch (node.kind) {
      case Kind::Allocation:
        offsets[node.item] = at;
        break;
      case Kind::Empty:
        break;
      case Kind::Temporal:
        for (int32_t child : node.children)
          stack.push_back({child, at});
        break;
      case Kind::Spatial:
        stack.push_back({node.left, at});
        stack.push_back({node.right, addOrThrow(at, align(nodes[node.left].size))});
        break;
      }
    }
    return offsets;
  }

private:
  int64_t align(int64_t size) const { return alignUpOrThrow(size, alignment); }

  int32_t add(Node node) {
    nodes.push_back(std::move(node));
    return static_cast<int32_t>(nodes.size() - 1);
  }
  int32_t makeAllocation(uint32_t item) {
    Node node(Kind::Allocation);
    node.size = inst.size[item];
    node.ranges.push_back({inst.begin[item], inst.end[item]});
    node.item = item;
    return add(std::move(node));
  }
  int32_t makeEmpty(int64_t size) {
    Node node(Kind::Empty);
    node.size = size;
    return add(std::move(node));
  }
  int32_t makeTemporal(std::vector<int32_t> children) {
    Node node(Kind::Temporal);
    for (int32_t child : children) {
      node.size = std::max(node.size, nodes[child].size);
      for (const Range &r : nodes[child].ranges)
        addRange(node.ranges, r);
    }
    node.children = std::move(children);
    return add(std::move(node));
  }
  int32_t makeSpatial(int32_t left, int32_t right) {
    Node node(Kind::Spatial);
    node.left = left;
    node.right = right;
    node.size = addOrThrow(align(nodes[left].size), nodes[right].size);
    for (int32_t side : {left, right})
      for (const Range &r : nodes[side].ranges)
        addRange(node.ranges, r);
    return add(std::move(node));
  }
  /// SpatialSplit.create: \p child on the left, \p extra free bytes right.
  int32_t makeSplit(int32_t child, int64_t extra) {
    int32_t left = makeTemporal({child});
    int32_t right = makeTemporal({makeEmpty(extra)});
    return makeSpatial(left, right);
  }

  static void addRange(std::vector<Range> &ranges, Range r) {
    // The first range that ends at or after r.begin may touch or overlap r.
    auto it = std::lower_bound(ranges.begin(), ranges.end(), r.begin,
                               [](const Range &x, int64_t begin) { return x.end < begin; });
    auto last = it;
    while (last != ranges.end() && last->begin <= r.end) {
      r.begin = std::min(r.begin, last->begin);
      r.end = std::max(r.end, last->end);
      ++last;
    }
    it = ranges.erase(it, last);
    ranges.insert(it, r);
  }
  static bool overlaps(const std::vector<Range> &ranges, Range r) {
    auto it = std::upper_bound(ranges.begin(), ranges.end(), r.begin,
                               [](int64_t begin, const Range &x) { return begin < x.end; });
    return it != ranges.end() && it->begin < r.end;
  }

  /// Adds the placed block's range to \p id and refreshes its size.
  void grew(int32_t id, Range range) {
    Node &node = nodes[id];
    addRange(node.ranges, range);
    if (node.kind == Kind::Spatial)
      node.size = addOrThrow(align(nodes[node.left].size), nodes[node.right].size);
  }

  bool allocateIn(int32_t id, int32_t block, bool isLast) {
    switch (nodes[id].kind) {
    case Kind::Temporal:
      return allocateTemporal(id, block, isLast);
    case Kind::Spatial: {
      Node &node = nodes[id];
      int32_t left = node.left, right = node.right;
      if (!allocateTemporal(left, block, false) && !allocateTemporal(right, block, isLast))
        return false;
      grew(id, nodes[block].ranges.front());
      return true;
    }
    case Kind::Allocation:
    case Kind::Empty:
      return false;
    }
    return false;
  }

  bool allocateTemporal(int32_t id, int32_t block, bool isLast) {
    const int64_t slot = nodes[id].size;
    const int64_t blockSize = nodes[block].size;
    const Range range = nodes[block].ranges.front();
    if (blockSize > slot && !isLast)
      return false;
    int32_t overlapping = -1;
    for (int32_t child : nodes[id].children) {
      if (!overlaps(nodes[child].ranges, range))
        continue;
      if (overlapping >= 0)
        return false; // live at once with two children: no merging
      overlapping = child;
    }
    if (overlapping >= 0) {
      if (!allocateIn(overlapping, block, isLast))
        return false;
      Node &node = nodes[id];
      node.size = std::max(node.size, nodes[overlapping].size);
      addRange(node.ranges, range);
      return true;
    }

    std::vector<int32_t> children = std::move(nodes[id].children);
    if (children.size() == 1 && nodes[children[0]].kind == Kind::Empty)
      children.clear();
    if (slot == blockSize) {
      children.push_back(block);
    } else if (slot > blockSize) {
      children.push_back(makeSplit(block, slot - blockSize));
    } else {
      for (int32_t &child : children)
        child = makeSplit(child, blockSize - slot);
      children.push_back(block);
    }
    int64_t size = 0;
    for (int32_t child : children)
      size = std::max(size, nodes[child].size);
    Node &node = nodes[id];
    node.children = std::move(children);
    node.size = size;
    addRange(node.ranges, range);
    return true;
  }

  const Instance &inst;
  int64_t alignment;
  std::vector<Node> nodes;
  int32_t root = -1;
};

} // namespace

Offsets placePool(const Instance &inst, int64_t poolAlignment) {
  // Largest first, then longest-lived; Python's stable sort keeps the input
  // order among equals.
  std::vector<uint32_t> order = orderBy(inst, [&](uint32_t a, uint32_t b) {
    if (inst.size[a] != inst.size[b])
      return inst.size[a] > inst.size[b];
    return inst.length(a) > inst.length(b);
  });
  PoolTree tree(inst, poolAlignment);
  for (uint32_t item : order)
    tree.allocate(item);
  return tree.finalize();
}

} // namespace wirc::plan::detail
