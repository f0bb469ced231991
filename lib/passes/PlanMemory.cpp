//===- PlanMemory.cpp - Liveness, frees and buffer reuse ------------------===//
//
// Every buffer the wrapper may release is freed right after the line that
// uses it last. Uses are counted on storage, not names: a named view keeps
// its base alive, and a graph output (or a view of one) is never freed.
//
// With reuse (Inductor's default), an allocation takes over the storage of
// the most recently freed buffer with the same device, dtype and storage size
// (symbolic sizes compared structurally), unless keeping that storage alive
// from its free to the allocation would raise the estimated peak.
//
// With pool or arena, static-size intermediates are then carved from one
// pool per device (MemoryPlanning.cpp). Every strategy records its figures
// in Module::memoryStats.
//
//===----------------------------------------------------------------------===//
#include "wirc/passes/Pass.h"

#include "MemoryPlanning.h"

#include <fmt/format.h>

#include <algorithm>
#include <functional>
#include <map>
#include <tuple>
#include <unordered_map>

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

  // The free lines go in place, from the back: a second vector of lines was
  // a large part of the peak memory on big graphs, and the vector often has
  // the room already.
  size_t added = 0;
  for (const std::vector<BufferId> &list : frees)
    added += list.size();
  size_t n = function.lines.size();
  function.lines.resize(n + added);
  size_t w = n + added;
  for (size_t i = n; i-- > 0 && w != i + 1;) {
    for (size_t k = frees[i].size(); k-- > 0;)
      function.lines[--w] = FreeLine{frees[i][k]};
    if (--w != i)
      function.lines[w] = std::move(function.lines[i]);
  }
}

/// Range add, range max over line positions: the estimated bytes live after
/// each line, for the peak check of a reuse.
class PeakTree {
public:
  // Bottom-up, without recursion: leaves at [size, 2 size), each inner node
  // holds the maximum of its subtree including the additions pending at it
  // (`lazy`), which apply to its whole range.
  explicit PeakTree(const std::vector<int64_t> &values) : n(values.size()) {
    size = 1;
    height = 0;
    while (size < n) {
      size *= 2;
      ++height;
    }
    maxv.assign(2 * size, kEmpty);
    lazy.assign(size, 0);
    for (size_t i = 0; i < n; ++i)
      maxv[size + i] = values[i];
    for (size_t i = size - 1; i > 0; --i)
      maxv[i] = std::max(maxv[2 * i], maxv[2 * i + 1]);
  }

  /// The maximum over [lo, hi).
  int64_t max(size_t lo, size_t hi) {
    if (lo >= hi)
      return kEmpty;
    size_t l = lo + size, r = hi + size;
    // With the additions above both ends pushed down, every node the loop
    // reads holds its true maximum.
    push(l);
    push(r - 1);
    int64_t best = kEmpty;
    for (; l < r; l >>= 1, r >>= 1) {
      if (l & 1)
        best = std::max(best, maxv[l++]);
      if (r & 1)
        best = std::max(best, maxv[--r]);
    }
    return best;
  }

  /// Adds \p delta over [lo, hi).
  void add(size_t lo, size_t hi, int64_t delta) {
    if (lo >= hi)
      return;
    size_t l = lo + size, r = hi + size;
    size_t l0 = l, r0 = r - 1;
    for (; l < r; l >>= 1, r >>= 1) {
      if (l & 1)
        apply(l++, delta);
      if (r & 1)
        apply(--r, delta);
    }
    pull(l0);
    pull(r0);
  }

private:
  static constexpr int64_t kEmpty = INT64_MIN / 4;
  size_t n, size, height;
  std::vector<int64_t> maxv, lazy;

  void apply(size_t node, int64_t delta) {
    maxv[node] += delta;
    if (node < size)
      lazy[node] += delta;
  }
  /// Moves the additions pending on the ancestors of \p node to their
  /// children, from the root down.
  void push(size_t node) {
    for (size_t s = height; s > 0; --s) {
      size_t i = node >> s;
      if (lazy[i] != 0) {
        apply(2 * i, lazy[i]);
        apply(2 * i + 1, lazy[i]);
        lazy[i] = 0;
      }
    }
  }
  /// Recomputes the ancestors of \p node.
  void pull(size_t node) {
    for (node >>= 1; node > 0; node >>= 1)
      maxv[node] = std::max(maxv[2 * node], maxv[2 * node + 1]) + lazy[node];
  }
};


/// Turns free-then-allocate pairs into reuse lines, LIFO per key. An
/// allocation takes a freed buffer's storage over only if \p mayTakeOver
/// allows it (null: always).
void reuseBuffers(Module &module, Function &function,
                  const std::function<bool(BufferId)> &mayTakeOver = nullptr) {
  const sym::SymbolValues hints = module.hints();
  auto reusable = [&](BufferId b) {
    const BufferInfo &info = module.buffer(b);
    return info.kind == BufferKind::Intermediate && !info.isTuple;
  };
  using Key = std::tuple<int, int, uint8_t, std::string>;
  // Storage size and reuse key, computed once per buffer.
  struct Storage {
    bool known = false;
    int64_t bytes = 0;
    Key key;
  };
  std::vector<Storage> storage(module.buffers.size());
  memory::ElementsCache elementsOf;
  struct Elements {
    std::optional<int64_t> value; ///< at the hints
    std::string text;
  };
  std::unordered_map<const sym::Expr *, Elements> elementsMemo;
  auto storageOf = [&](BufferId b) -> const Storage & {
    Storage &s = storage[b];
    if (s.known)
      return s;
    s.known = true;
    const BufferInfo &info = module.buffer(b);
    const sym::Expr &elements = elementsOf.of(info.layout);
    std::string error;
    bool empty = false;
    for (const sym::Expr &size : info.layout.size)
      if (auto v = sym::evaluate(size, hints, error); v && *v == 0)
        empty = true;
    // Buffers share a few element counts (the cache hands out one
    // expression each): evaluate and print each once.
    auto [it, inserted] = elementsMemo.try_emplace(&elements);
    if (inserted) {
      it->second.value = sym::evaluate(elements, hints, error);
      it->second.text = sym::toString(elements);
    }
    if (it->second.value && !empty)
      s.bytes = *it->second.value * graph::dtypeSize(info.layout.dtype);
    s.key = Key{static_cast<int>(info.layout.device.kind), info.layout.device.index,
                static_cast<uint8_t>(info.layout.dtype), it->second.text};
    return s;
  };
  auto bytesAtHints = [&](BufferId b) { return storageOf(b).bytes; };

  // Bytes live after each line, at the size hints.
  std::vector<int64_t> live(function.lines.size(), 0);
  int64_t current = 0;
  for (size_t i = 0; i < function.lines.size(); ++i) {
    if (const auto *a = std::get_if<AllocateLine>(&function.lines[i]))
      current += bytesAtHints(a->buffer);
    // A tensor an extern kernel returns is live too: its free below
    // subtracts it.
    else if (BufferId r = memory::returnedStorage(module, function.lines[i]); r != kNoBuffer)
      current += bytesAtHints(r);
    else if (const auto *f = std::get_if<FreeLine>(&function.lines[i]);
             f && reusable(f->buffer))
      current -= bytesAtHints(f->buffer);
    live[i] = current;
  }
  if (live.empty())
    return;
  int64_t peak = *std::max_element(live.begin(), live.end());
  PeakTree tree(live);

  std::map<Key, std::vector<std::pair<BufferId, size_t>>> pool; // key -> (buffer, free line)
  auto keyOf = [&](BufferId b) -> const Key & { return storageOf(b).key; };
  std::vector<bool> dropLine(function.lines.size(), false);
  for (size_t i = 0; i < function.lines.size(); ++i) {
    Line &line = function.lines[i];
    if (const auto *f = std::get_if<FreeLine>(&line); f && reusable(f->buffer)) {
      pool[keyOf(f->buffer)].emplace_back(f->buffer, i);
      continue;
    }
    const auto *a = std::get_if<AllocateLine>(&line);
    if (!a || !reusable(a->buffer) || (mayTakeOver && !mayTakeOver(a->buffer)))
      continue;
    auto it = pool.find(keyOf(a->buffer));
    if (it == pool.end() || it->second.empty())
      continue;
    auto [old, freeLine] = it->second.back();
    int64_t bytes = bytesAtHints(old);
    // Keeping the old storage alive from its free to here must not raise
    // the peak.
    if (tree.max(freeLine, i) + bytes > peak)
      continue;
    it->second.pop_back();
    tree.add(freeLine, i, bytes);
    dropLine[freeLine] = true;
    line = ReuseLine{old, a->buffer, /*deleteOld=*/true, /*inPlace=*/false};
  }
  // Compacted in place: a second vector of lines was a large part of the
  // peak memory on big graphs.
  size_t kept = 0;
  for (size_t i = 0; i < function.lines.size(); ++i)
    if (!dropLine[i]) {
      if (kept != i)
        function.lines[kept] = std::move(function.lines[i]);
      ++kept;
    }
  function.lines.erase(function.lines.begin() + static_cast<std::ptrdiff_t>(kept),
                       function.lines.end());
}

} // namespace

std::string_view memoryPlanName(MemoryPlan plan) {
  switch (plan) {
  case MemoryPlan::None:
    return "none";
  case MemoryPlan::Reuse:
    return "reuse";
  case MemoryPlan::Pool:
    return "pool";
  case MemoryPlan::Arena:
    return "arena";
  }
  return "?";
}

std::string formatMemoryStats(const Module &module) {
  std::string out;
  for (const MemoryPlanStats &s : module.memoryStats) {
    double ratio = s.lowerBound > 0 ? static_cast<double>(s.peak) / s.lowerBound : 1.0;
    std::string kept = s.method == s.strategy ? "" : fmt::format(" (kept {})", s.method);
    out += fmt::format("wirc: memory: @{} {} {}{}: lower bound {} B, peak {} B ({:.4f}x), {} "
                       "pool{}\n",
                       s.function, s.device, s.strategy, kept, s.lowerBound, s.peak, ratio,
                       s.pools, s.pools == 1 ? "" : "s");
    if (!s.lowerBoundExpr.empty())
      out += fmt::format("wirc: memory: @{} {} lower bound = {}\n", s.function, s.device,
                         s.lowerBoundExpr);
    if (!s.peakExpr.empty())
      out += fmt::format("wirc: memory: @{} {} peak = {}\n", s.function, s.device, s.peakExpr);
  }
  return out;
}

bool planMemory(Module &module, PassContext &ctx) {
  const MemoryPlan strategy = ctx.options.memoryPlan;
  module.memoryStats.clear();
  for (unsigned f = 0; f < module.functions.size(); ++f) {
    Function &function = module.functions[f];
    planFunction(module, function);
    memory::StorageSizes sizes(module);
    memory::recordLowerBounds(module, f, sizes, ctx.options.symbolicStats);
    std::string_view method = memoryPlanName(strategy);
    switch (strategy) {
    case MemoryPlan::None:
      break;
    case MemoryPlan::Reuse:
      reuseBuffers(module, function);
      break;
    case MemoryPlan::Pool:
      // Inductor's pool planner works on the lines its reuse planner left:
      // a reuse chain is one allocation.
      reuseBuffers(module, function);
      if (!memory::placeInPools(module, f, strategy, ctx.options, ctx.diag))
        return false;
      break;
    case MemoryPlan::Arena: {
      // Reuse planned alone, kept as the fallback.
      Function reused = function;
      reuseBuffers(module, reused);
      // The arena places static-size intermediates. Buffers of symbolic
      // size keep reuse, and so do the reuse chains that end in an output:
      // an output that takes a dead intermediate's storage over costs no
      // bytes, while an arena alive next to it would.
      memory::StorageGroups chains = memory::collectGroups(module, reused);
      const size_t numPools = module.pools.size();
      reuseBuffers(module, function, [&](BufferId b) {
        uint32_t g = chains.groupOf[b];
        return !sizes.of(b).isStatic || (g != memory::kNoGroup && chains.groups[g].pinned);
      });
      if (!memory::placeInPools(module, f, strategy, ctx.options, ctx.diag))
        return false;
      // The arena never costs more than reuse: where its peak at the size
      // hints is higher, the function keeps the reuse plan. (Carving reuse
      // chains into arenas instead, as the pool strategy does, never won on
      // the corpus or the property tests, so it is not tried.)
      if (memory::totalPeak(module, reused, sizes) < memory::totalPeak(module, function, sizes)) {
        function = std::move(reused);
        module.pools.resize(numPools);
        method = "reuse";
      }
      break;
    }
    }
    memory::recordPeaks(module, f, sizes, strategy, method);
    if (ctx.options.verifyPlan)
      memory::verifyPlans(module, f, strategy);
  }
  return true;
}

} // namespace wirc::passes
