//===- PoolOffsets.h - Pooled buffers' storage offsets (internal) ---------===//
//
// The FX emitters view tensors with as_strided, whose offset counts from the
// start of the storage; a buffer carved from a pool has the pool as its
// storage. Both emitters track, while they walk a function, the byte offset
// of every carved buffer and of the names that take one over.
//
//===----------------------------------------------------------------------===//
#ifndef WIRC_LIB_EMIT_POOLOFFSETS_H
#define WIRC_LIB_EMIT_POOLOFFSETS_H

#include "wirc/ir/WrapperIR.h"

#include <unordered_map>

namespace wirc::emit {

class PoolOffsets {
public:
  explicit PoolOffsets(const ir::Module &module) : module(module) {}

  /// \p buffer was carved from a pool at \p bytes from its start.
  void carved(ir::BufferId buffer, int64_t bytes) { offsets[buffer] = bytes; }

  /// \p reusedAs takes \p old's storage over (a reuse line).
  void reused(ir::BufferId old, ir::BufferId reusedAs) {
    if (auto it = offsets.find(old); it != offsets.end())
      offsets[reusedAs] = it->second;
  }

  /// \p offset, in elements of \p base, counted from the start of its
  /// storage.
  sym::Expr storageOffset(ir::BufferId base, const sym::Expr &offset) const {
    const ir::BufferInfo &info = module.buffer(base);
    ir::BufferId owner = info.kind == ir::BufferKind::View ? info.viewBase : base;
    auto it = offsets.find(owner);
    if (it == offsets.end())
      return offset;
    return offset + sym::Expr(it->second / graph::dtypeSize(info.layout.dtype));
  }

private:
  const ir::Module &module;
  std::unordered_map<ir::BufferId, int64_t> offsets;
};

} // namespace wirc::emit

#endif // WIRC_LIB_EMIT_POOLOFFSETS_H
