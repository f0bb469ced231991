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
#include <memory>
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
  /// Bytes at the size hints, unpadded: what reuse estimates peaks with. 0
  /// for an empty tensor or when the hints do not give a size.
  int64_t bytes = 0;
  /// Equal for sizes whose element counts print alike: storage reuse
  /// compares sizes this way (symbolic ones structurally).
  uint32_t elementsId = 0;
  /// The storage size does not depend on any symbol.
  bool isStatic = false;
  /// The size at the hints was computable and fits int64.
  bool known = false;
};

/// Storage sizes, computed once per buffer. Sizes handed out stay where
/// they are.
class StorageSizes {
public:
  explicit StorageSizes(const ir::Module &module);
  const StorageSize &of(ir::BufferId buffer) {
    uint32_t slot = sizeOf[buffer];
    return slot != kUnknown ? *distinct[slot] : compute(buffer);
  }
  /// Computes the sizes of buffers [\p first, \p last) ahead, in \p parts
  /// parts on threads: each part finds the distinct layouts of its buffers
  /// and sizes them, and one thread takes the parts' sizes in order. On a
  /// large function, hashing and comparing layouts was a fifth of the
  /// reuse planner's time on one thread.
  void computeInParts(ir::BufferId first, ir::BufferId last, size_t parts);

private:
  static constexpr uint32_t kUnknown = UINT32_MAX;
  const ir::Module &module;
  sym::SymbolValues hints;
  /// By buffer: the index of its size in \c distinct, or kUnknown.
  std::vector<uint32_t> sizeOf;
  /// Buffers share a few layouts: one size per distinct size, stride and
  /// item size, the only parts of a layout the size depends on. Simplifying
  /// the extent and the padded bytes is the costly part.
  std::vector<std::unique_ptr<StorageSize>> distinct;
  /// A representative buffer of each distinct size, by a hash of its
  /// size, stride and item size.
  std::unordered_multimap<size_t, ir::BufferId> layouts;
  /// Element counts by their printed form, for StorageSize::elementsId.
  std::unordered_map<std::string, uint32_t> elementsIds;

  const StorageSize &compute(ir::BufferId buffer);
  /// The index in \c distinct of the size of \p buffer's layout, whose
  /// hash is \p hash, or kUnknown.
  uint32_t find(ir::BufferId buffer, size_t hash) const;
  /// Adds \p size, that of \p buffer's layout, to the distinct sizes.
  uint32_t add(ir::BufferId buffer, size_t hash, std::unique_ptr<StorageSize> size);
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

/// Storage reuse decided but not made (plan-memory's reuse planner): the
/// allocations that take a freed buffer's storage over, as (alloc line,
/// freed buffer), and the frees that then go, as (free line, buffer), each
/// in line order. Made, each allocation becomes a reuse line of the freed
/// buffer and each free goes.
struct ReusePlan {
  std::vector<std::pair<size_t, ir::BufferId>> takeOvers;
  std::vector<std::pair<size_t, ir::BufferId>> dropped;
};

/// Calls \p visit(const Line &) on each line of \p function, or with
/// \p plan, on each line the function would have once the plan is made.
template <typename Visit>
void forEachLine(const ir::Function &function, const ReusePlan *plan, Visit &&visit) {
  const size_t numTakeOvers = plan ? plan->takeOvers.size() : 0;
  const size_t numDropped = plan ? plan->dropped.size() : 0;
  size_t t = 0, d = 0;
  ir::Line reuse; // the line a take-over becomes
  for (size_t i = 0; i < function.lines.size(); ++i) {
    const ir::Line *line = &function.lines[i];
    if (d < numDropped && plan->dropped[d].first == i) {
      ++d;
      continue;
    }
    if (t < numTakeOvers && plan->takeOvers[t].first == i) {
      reuse = ir::ReuseLine{plan->takeOvers[t++].second, std::get<ir::AllocateLine>(*line).buffer,
                            /*deleteOld=*/true, /*inPlace=*/false};
      line = &reuse;
    }
    visit(*line);
  }
}

/// With \p plan, the groups the function would have once the plan is made.
StorageGroups collectGroups(const ir::Module &module, const ir::Function &function,
                            const ReusePlan *plan = nullptr);

/// Carves the static-size, non-output groups of function \p functionIndex
/// from one pool per device, placed by \p strategy (pool or arena). Returns
/// false after reporting a plan that cannot be made.
bool placeInPools(ir::Module &module, unsigned functionIndex, MemoryPlan strategy,
                  const CompileOptions &options, DiagnosticEngine &diag, StorageSizes &sizes);

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
/// With \p plan, that of the function once the plan is made.
int64_t totalPeak(const ir::Module &module, const ir::Function &function, StorageSizes &sizes,
                  const ReusePlan *plan = nullptr);

/// --verify-plan: re-derives every pool's requests from the final lines and
/// runs the independent checker on them, and checks the figures (every peak
/// at least the lower bound; with none, equal to it). Throws InternalError.
void verifyPlans(const ir::Module &module, unsigned functionIndex, MemoryPlan strategy);

} // namespace wirc::passes::memory

#endif // WIRC_LIB_PASSES_MEMORYPLANNING_H
