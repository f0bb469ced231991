//===- PlanMemory.cpp - Liveness and frees --------------------------------===//
//
// Every buffer the wrapper may release is freed right after the line that
// uses it last. Uses are counted on storage, not names: a named view keeps
// its base alive, and a graph output (or a view of one) is never freed.
//
//===----------------------------------------------------------------------===//
#include "wirc/passes/Pass.h"

#include <algorithm>

namespace wirc::passes {

namespace {

using namespace wirc::ir;

constexpr size_t kNever = SIZE_MAX;

bool mayFree(const BufferInfo &info) {
  return info.kind == BufferKind::Intermediate || info.kind == BufferKind::View ||
         info.kind == BufferKind::Input;
}

void planFunction(Module &module, Function &function) {
  const size_t numBuffers = module.buffers.size();
  std::vector<size_t> lastUse(numBuffers, kNever);
  std::vector<bool> pinned(numBuffers, false); // outputs and what they alias
  std::vector<bool> renamedAway(numBuffers, false); // ended by a reuse line

  auto storageOf = [&](BufferId b) {
    const BufferInfo &info = module.buffers[b];
    return info.kind == BufferKind::View ? info.viewBase : b;
  };
  auto touch = [&](BufferId b, size_t line) {
    lastUse[b] = line;
    BufferId base = storageOf(b);
    if (base != b)
      lastUse[base] = line;
  };

  for (size_t i = 0; i < function.lines.size(); ++i) {
    const Line &line = function.lines[i];
    if (const auto *output = std::get_if<OutputLine>(&line)) {
      for (const Value &v : output->outputs)
        forEachBuffer(v, [&](BufferId b) {
          pinned[b] = true;
          pinned[storageOf(b)] = true;
        });
      continue;
    }
    forEachUse(line, [&](BufferId b) { touch(b, i); });
    forEachDef(line, [&](BufferId b) {
      if (lastUse[b] == kNever)
        touch(b, i);
    });
    if (const auto *reuse = std::get_if<ReuseLine>(&line); reuse && reuse->deleteOld)
      renamedAway[reuse->old] = true;
  }

  // frees[i]: buffers to free after line i, in id order.
  std::vector<std::vector<BufferId>> frees(function.lines.size());
  for (BufferId b = 0; b < numBuffers; ++b) {
    const BufferInfo &info = module.buffers[b];
    if (lastUse[b] == kNever || pinned[b] || renamedAway[b] || !mayFree(info))
      continue;
    if (info.kind == BufferKind::View && pinned[info.viewBase])
      continue;
    frees[lastUse[b]].push_back(b);
  }

  std::vector<Line> planned;
  planned.reserve(function.lines.size() + numBuffers);
  for (size_t i = 0; i < function.lines.size(); ++i) {
    planned.push_back(std::move(function.lines[i]));
    for (BufferId b : frees[i])
      planned.push_back(FreeLine{b});
  }
  function.lines = std::move(planned);
}

} // namespace

bool planMemory(Module &module, PassContext &) {
  for (Function &function : module.functions)
    planFunction(module, function);
  return true;
}

} // namespace wirc::passes
