//===- WrapperIR.cpp ------------------------------------------------------===//
#include "wirc/ir/WrapperIR.h"

namespace wirc::ir {

std::optional<int64_t> staticStorageBytes(const graph::Layout &layout) {
  for (const sym::Expr &size : layout.size)
    if (size.constant() == std::optional<int64_t>(0))
      return 0;
  int64_t extent = 1;
  for (size_t i = 0; i < layout.size.size(); ++i) {
    std::optional<int64_t> size = layout.size[i].constant();
    std::optional<int64_t> stride = layout.stride[i].constant();
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
          [](const OutputLine &) { return "output"; },
          [](const PoolAllocateLine &) { return "pool.alloc"; },
          [](const AllocateFromPoolLine &) { return "alloc_from_pool"; },
          [](const PoolFreeLine &) { return "pool.free"; },
      },
      line);
}

void forEachUse(const Line &line, const std::function<void(BufferId)> &fn) {
  auto values = [&](const std::vector<Value> &list) {
    for (const Value &v : list)
      forEachBuffer(v, fn);
  };
  std::visit(Overloaded{
                 [&](const FreeLine &l) { fn(l.buffer); },
                 [&](const ReuseLine &l) { fn(l.old); },
                 [&](const KernelCallLine &l) {
                   for (const CallArg &arg : l.args)
                     if (arg.role != graph::ArgRole::Removed)
                       forEachBuffer(arg.value, fn);
                 },
                 [&](const ExternKernelOutLine &l) {
                   values(l.args);
                   for (const auto &kv : l.kwargs)
                     forEachBuffer(kv.second, fn);
                   forEachBuffer(l.out, fn);
                 },
                 [&](const ExternKernelAllocLine &l) {
                   values(l.args);
                   for (const auto &kv : l.kwargs)
                     forEachBuffer(kv.second, fn);
                   for (BufferId id : l.mutated)
                     fn(id);
                 },
                 [&](const MultiOutputLine &l) { fn(l.source); },
                 [&](const ReinterpretViewLine &l) { fn(l.base); },
                 [&](const AssertSizeStrideLine &l) { fn(l.buffer); },
                 [&](const SymbolBindingLine &l) {
                   if (l.source == SymbolBindingLine::Source::Size ||
                       l.source == SymbolBindingLine::Source::Stride)
                     fn(l.tensor);
                 },
                 [&](const CondLine &l) {
                   forEachBuffer(l.predicate, fn);
                   values(l.operands);
                 },
                 [&](const OutputLine &l) { values(l.outputs); },
                 [](const auto &) {},
             },
             line);
}

void forEachDef(const Line &line, const std::function<void(BufferId)> &fn) {
  std::visit(Overloaded{
                 [&](const AllocateLine &l) { fn(l.buffer); },
                 [&](const AllocateFromPoolLine &l) { fn(l.buffer); },
                 [&](const ReuseLine &l) { fn(l.reusedAs); },
                 [&](const ExternKernelAllocLine &l) {
                   if (l.result != kNoBuffer)
                     fn(l.result);
                 },
                 [&](const MultiOutputLine &l) { fn(l.result); },
                 [&](const ReinterpretViewLine &l) { fn(l.view); },
                 [&](const CondLine &l) {
                   for (BufferId id : l.results)
                     fn(id);
                   if (l.tupleResult != kNoBuffer)
                     fn(l.tupleResult);
                 },
                 [](const auto &) {},
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
