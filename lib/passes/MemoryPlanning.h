//===- MemoryPlanning.h - Shared pieces of plan-memory ----------*- C++ -*-===//
//
// Storage sizes, storage groups (one allocation and the names that take it
// over), pool placement, the plan verification and the figures of
// --stats. Internal to lib/passes.
//
//===----------------------------------------------------------------------===//
#ifndef WIRC_LIB_PASSES_MEMORYPLANNING_H
#define WIRC_LIB_PASSES_MEMORYPLANNING_H

#include "wirc/passes/Pass.h"

#include <cstdint>
#include <optional>
#include <string>
#include <unordered_map>
#include <vector>

namespace wirc::passes::memory {

/// Every planned byte count is padded to 64 bytes (Inductor's ALIGN_BYTES):
/// pool and arena offsets, the lower bound and every strategy's peak.
inline constexpr int64_t kAlignment = 64;

/// The storage a buffer's layout spans.
struct StorageSize {
  /// Elements spanned, 1 + sum((size - 1) * stride), simplified.
  sym::Expr elements;
  /// Bytes at the size hints, padded to kAlignment; 0 for an empty tensor.
  int64_t paddedBytes = 0;
  /// The padded bytes as an expression of the size symbols.
  sym::Expr paddedExpr;
  /// The storage size does not depend on any symbol.
  bool isStatic = false;
  /// The size at the hints was computable and fits int64.
  bool known = false;
};

/// The storage a layout spans, in elements: 1 + sum((size - 1) * stride),
/// simplified. Memoized per distinct size and stride: graphs repeat a few
/// layouts many times, and simplifying is the costly part.
class ElementsCache {
public:
  const sym::Expr &of(const graph::Layout &layout);

private:
  struct Entry {
    std::vector<sym::Expr> size, stride;
    sym::Expr elements;
  };
  /// By a hash of the size and stride, so a lookup copies nothing; nodes,
  /// so the expressions handed out stay where they are.
  std::unordered_multimap<size_t, Entry> cache;
};

/// Storage sizes, computed once per buffer.
class StorageSizes {
public:
  explicit StorageSizes(const ir::Module &module);
  const StorageSize &of(ir::BufferId buffer);

private:
  const ir::Module &module;
  sym::SymbolValues hints;
  std::vector<std::optional<StorageSize>> sizes;
  ElementsCache elements;
  /// Sizes by what they depend on: the elements (by their entry in
  /// \c elements), the item size and whether the tensor is empty at the
  /// hints or statically. Buffers share a few layouts; the padded
  /// expression is symbolic division.
  struct MemoKey {
    const sym::Expr *elements;
    int64_t itemsize;
    bool empty, constantZero;
    bool operator==(const MemoKey &) const = default;
  };
  struct MemoKeyHash {
    size_t operator()(const MemoKey &key) const {
      return std::hash<const void *>()(key.elements) * 31 + static_cast<size_t>(key.itemsize) * 4 +
             key.empty * 2 + key.constantZero;
    }
  };
  std::unordered_map<MemoKey, StorageSize, MemoKeyHash> memo;
};

/// The tensor a line gets from a kernel that allocates it (an extern
/// kernel's result, an unpacked multi-output result), or kNoBuffer.
ir::BufferId returnedStorage(const ir::Module &module, const ir::Line &line);

inline constexpr uint32_t kNoGroup = UINT32_MAX;

/// One storage of a function (an alloc line, or a tensor an extern kernel
/// returns) with the names that take it over through reuse lines, live over
/// the line positions [begin, end).
struct StorageGroup {
  ir::BufferId root = ir::kNoBuffer; ///< the allocated buffer
  /// The members, root first, then reuse names in order, chained through
  /// StorageGroups::links (no vector per group).
  uint32_t firstLink = 0;
  uint32_t lastLink = 0;
  size_t begin = 0;                  ///< the alloc line
  size_t end = 0;                    ///< one past the last line using any member or view
  bool pinned = false;               ///< a member (or a view of one) is an output
  bool allocated = false;            ///< an alloc line, not a kernel's result
  /// Passed to an extern kernel that returns a tensor, or to a subgraph,
  /// whose result may alias it.
  bool mayBeAliased = false;
};

/// The storage groups of \p function in order of their alloc lines, and for
/// every buffer its group (kNoGroup for buffers the wrapper does not
/// allocate).
struct StorageGroups {
  std::vector<StorageGroup> groups;
  std::vector<uint32_t> groupOf;
  struct Link {
    ir::BufferId member;
    uint32_t next; ///< the next link of the group, or kNoGroup
  };
  std::vector<Link> links;

  /// Calls \p fn(BufferId) for each member of \p group in order.
  template <typename Fn> void forEachMember(const StorageGroup &group, Fn &&fn) const {
    for (uint32_t l = group.firstLink; l != kNoGroup; l = links[l].next)
      fn(links[l].member);
  }
};
StorageGroups collectGroups(const ir::Module &module, const ir::Function &function);

/// Carves the static-size, non-output groups of function \p functionIndex
/// from one pool per device, placed by \p strategy (pool or arena). Returns
/// false after reporting a plan that cannot be made.
bool placeInPools(ir::Module &module, unsigned functionIndex, MemoryPlan strategy,
                  const CompileOptions &options, DiagnosticEngine &diag);

/// The lower bound of function \p functionIndex per device, from its
/// liveness alone (before any reuse): appends one MemoryPlanStats per device
/// with its lower bound filled.
/// With \p symbolic, the bound's symbolic form too.
void recordLowerBounds(ir::Module &module, unsigned functionIndex, StorageSizes &sizes,
                       bool symbolic);

/// Fills the peak of every MemoryPlanStats of \p functionIndex from the
/// final lines: the largest sum of live allocations and pools.
void recordPeaks(ir::Module &module, unsigned functionIndex, StorageSizes &sizes,
                 MemoryPlan strategy, std::string_view method);

/// The sum over devices of \p function's peak bytes at the size hints.
int64_t totalPeak(const ir::Module &module, const ir::Function &function, StorageSizes &sizes);

/// --verify-plan: re-derives every pool's requests from the final lines and
/// runs the independent checker on them, and checks the figures (every peak
/// at least the lower bound; with none, equal to it). Throws InternalError.
void verifyPlans(const ir::Module &module, unsigned functionIndex, MemoryPlan strategy);

} // namespace wirc::passes::memory

#endif // WIRC_LIB_PASSES_MEMORYPLANNING_H
