//===- WrapperIR.cpp ------------------------------------------------------===//
#include "wirc/ir/WrapperIR.h"

namespace wirc::ir {

// A large function holds millions of lines, and every pass walks and moves
// them: a member that makes the common kinds larger belongs out of line
// (support/OutOfLine.h).
static_assert(sizeof(Line) <= 160, "Wrapper IR lines grew");

namespace {

/// The value of an expression that is constant once simplified ("0*s0",
/// "s0 - s0 + 4"): the reader keeps expressions as written.
std::optional<int64_t> constantValue(const sym::Expr &e) {
  if (std::optional<int64_t> c = e.constant())
    return c;
  return sym::simplify(e).constant();
}

} // namespace

std::optional<int64_t> staticStorageBytes(const graph::Layout &layout) {
  for (const sym::Expr &size : layout.size)
    if (constantValue(size) == std::optional<int64_t>(0))
      return 0;
  int64_t extent = 1;
  for (size_t i = 0; i < layout.size.size(); ++i) {
    std::optional<int64_t> stride = constantValue(layout.stride[i]);
    // A stride-0 dimension spans nothing, whatever its size.
    if (stride == std::optional<int64_t>(0))
      continue;
    std::optional<int64_t> size = constantValue(layout.size[i]);
    int64_t span = 0;
    if (!size || !stride || __builtin_mul_overflow(*size - 1, *stride, &span) ||
        __builtin_add_overflow(extent, span, &extent))
      return std::nullopt;
  }
  int64_t bytes = 0;
  if (__builtin_mul_overflow(extent, static_cast<int64_t>(graph::dtypeSize(layout.dtype)),
                             &bytes))
    return std::nullopt;
  return bytes;
}

std::vector<std::pair<BufferId, BufferId>> functionBufferRanges(const Module &module) {
  std::vector<std::pair<BufferId, BufferId>> ranges(module.functions.size(), {0, 0});
  for (BufferId b = 0; b < module.buffers.size(); ++b) {
    unsigned f = module.buffers[b].function;
    if (f >= ranges.size())
      continue;
    auto &range = ranges[f];
    if (range.second == 0) // none yet
      range.first = b;
    range.second = b + 1;
  }
  return ranges;
}

std::string nanAssertMessage(std::string_view tensor) {
  return std::string(tensor) + " holds a NaN";
}

std::string infAssertMessage(std::string_view tensor) {
  return std::string(tensor) + " holds an infinity";
}

std::string AssertScalarLine::what() const {
  if (!message.empty())
    return message;
  return sym::toString(lhs) + " " + std::string(graph::compareSpelling(cmp)) + " " +
         sym::toString(rhs);
}

std::string_view lineKindName(const Line &line) {
  return std::visit(
      Overloaded{
          [](const AllocateLine &) { return "alloc"; },
          [](const FreeLine &) { return "free"; },
          [](const ReuseLine &) { return "reuse"; },
          [](const CommentLine &) { return "comment"; },
          [](const KernelDefinitionLine &) { return "kernel.def"; },
          [](const KernelCallLine &) { return "kernel.call"; },
          [](const ExternKernelOutLine &) { return "extern.out"; },
          [](const ExternKernelAllocLine &) { return "extern.alloc"; },
          [](const MultiOutputLine &) { return "multi_output"; },
          [](const ReinterpretViewLine &) { return "reinterpret"; },
          [](const AssertSizeStrideLine &) { return "assert_size_stride"; },
          [](const SymbolBindingLine &) { return "bind"; },
          [](const DeviceGuardEnterLine &) { return "device_guard.enter"; },
          [](const DeviceGuardExitLine &) { return "device_guard.exit"; },
          [](const SubgraphEnterLine &) { return "subgraph.enter"; },
          [](const SubgraphExitLine &) { return "subgraph.exit"; },
          [](const CondLine &) { return "cond"; },
          [](const WhileLoopLine &) { return "while_loop"; },
          [](const InvokeSubgraphLine &) { return "invoke"; },
          [](const OutputLine &) { return "output"; },
          [](const PoolAllocateLine &) { return "pool.alloc"; },
          [](const AllocateFromPoolLine &) { return "alloc_from_pool"; },
          [](const PoolFreeLine &) { return "pool.free"; },
          [](const AssertScalarLine &) { return "assert_scalar"; },
          [](const ZeroLine &) { return "zero"; },
          [](const AssertFiniteLine &) { return "assert_finite"; },
      },
      line);
}

sym::SymbolValues Module::hints() const {
  sym::SymbolValues values;
  for (const graph::Symbol &symbol : symbols)
    values.emplace(symbol.name, symbol.hint);
  return values;
}

} // namespace wirc::ir
