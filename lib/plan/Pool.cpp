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
  int64_t size = 0;              ///< the size hint in bytes
  std::vector<Range> ranges;     ///< live ranges, sorted, touching ones merged
  std::vector<int32_t> children; ///< Temporal
  int32_t left = -1, right = -1; ///< Spatial: two Temporal nodes
  uint32_t item = 0;             ///< Allocation
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

  /// Where a temporal split sends a block.
  enum class Verdict { Refuse, PlaceHere, Descend };

  /// TemporalSplit's rule, without changing anything: refuse a block larger
  /// than the split unless it may grow, or one live with two children;
  /// descend into the one child it is live with; else place it here.
  Verdict judge(int32_t id, int32_t block, bool isLast, int32_t &into) const {
    const Node &node = nodes[id];
    if (nodes[block].size > node.size && !isLast)
      return Verdict::Refuse;
    const Range range = nodes[block].ranges.front();
    into = -1;
    for (int32_t child : node.children) {
      if (!overlaps(nodes[child].ranges, range))
        continue;
      if (into >= 0)
        return Verdict::Refuse; // live at once with two children: no merging
      into = child;
    }
    if (into < 0)
      return Verdict::PlaceHere;
    // Only a spatial split holds more than one block.
    return nodes[into].kind == Kind::Spatial ? Verdict::Descend : Verdict::Refuse;
  }

  /// Tries to place \p block in the tree below the temporal split \p top.
  /// A spatial split tries its left part (which may not grow), then its right
  /// one. The search is iterative, because trees grow as deep as the number
  /// of blocks, and changes nothing until it has found the place.
  bool allocateIn(int32_t top, int32_t block, bool isLast) {
    struct Alternative {
      size_t pathSize; ///< the path up to and including the spatial split
      int32_t right;
      bool isLast;
    };
    std::vector<int32_t> path; // temporal and spatial splits, root first
    std::vector<Alternative> alternatives;
    int32_t id = top;
    bool last = isLast;
    while (true) {
      path.push_back(id);
      int32_t into;
      Verdict verdict = judge(id, block, last, into);
      if (verdict == Verdict::PlaceHere)
        break;
      if (verdict == Verdict::Descend) {
        path.push_back(into);
        alternatives.push_back({path.size(), nodes[into].right, last});
        id = nodes[into].left;
        last = false;
        continue;
      }
      if (alternatives.empty())
        return false;
      Alternative next = alternatives.back();
      alternatives.pop_back();
      path.resize(next.pathSize);
      id = next.right;
      last = next.isLast;
    }

    placeHere(path.back(), block);
    const Range range = nodes[block].ranges.front();
    for (size_t i = path.size() - 1; i-- > 0;) {
      Node &node = nodes[path[i]];
      addRange(node.ranges, range);
      if (node.kind == Kind::Spatial)
        node.size = addOrThrow(align(nodes[node.left].size), nodes[node.right].size);
      else
        node.size = std::max(node.size, nodes[path[i + 1]].size);
    }
    return true;
  }

  /// Puts \p block into the temporal split \p id, which it is live with no
  /// child of: alone in place of a lone free slot, beside the children when
  /// it has their size, with free space beside it when smaller, and widening
  /// every child when larger.
  void placeHere(int32_t id, int32_t block) {
    const int64_t slot = nodes[id].size;
    const int64_t blockSize = nodes[block].size;
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
    addRange(node.ranges, nodes[block].ranges.front());
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
