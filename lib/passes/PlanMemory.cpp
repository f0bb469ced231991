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

#include "LineParts.h"
#include "MemoryPlanning.h"
#include "PeakProfile.h"
#include "wirc/support/Parallel.h"

#include <fmt/format.h>

#include <algorithm>
#include <atomic>
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

/// The frees a function needs: those after line k are
/// frees[end[k - 1], end[k]) (from 0 for k = 0), in id order.
struct FreeSchedule {
  std::vector<uint32_t> end;
  std::vector<BufferId> frees;
};

/// Per-buffer tables for scheduleFrees, sized to the module once: each
/// function uses and puts back the entries of its own buffers (its range of
/// ids), so a module of many subgraphs costs its size, not its size times
/// its functions.
struct FreeScratch {
  explicit FreeScratch(size_t numBuffers)
      : lastUse(numBuffers, kNever), pinned(numBuffers, 0), renamedAway(numBuffers, 0) {}
  std::vector<size_t> lastUse;
  // Bytes, not bits: threads scanning parts of a function set them at once.
  std::vector<uint8_t> pinned;      // outputs and what they alias
  std::vector<uint8_t> renamedAway; // ended by a reuse line
  /// For a scan in parts only (sized on first use): a buffer's first
  /// definition and first use.
  std::vector<size_t> firstDef, firstUse;
};

/// \p slot = max(\p slot, \p i), kNever counting as below every line.
void raiseTo(size_t &slot, size_t i) {
  std::atomic_ref<size_t> a(slot);
  size_t seen = a.load(std::memory_order_relaxed);
  while ((seen == kNever || seen < i) &&
         !a.compare_exchange_weak(seen, i, std::memory_order_relaxed))
    ;
}

/// \p slot = min(\p slot, \p i), kNever counting as above every line.
void lowerTo(size_t &slot, size_t i) {
  std::atomic_ref<size_t> a(slot);
  size_t seen = a.load(std::memory_order_relaxed);
  while (i < seen && !a.compare_exchange_weak(seen, i, std::memory_order_relaxed))
    ;
}

/// The scan of scheduleFrees over parts of the lines on threads of their
/// own. On one thread, a line's uses set lastUse of the buffer and of its
/// storage, and a definition counts as a use only where nothing touched
/// the buffer before. So a buffer's last touch is its last use (its own, a
/// view's, or a view's counted definition) and, where it has none, its first
/// definition; a view's definition counts where it comes before the view's
/// first use. Uses and definitions commute within those bounds, which the
/// parts keep with atomic maxima and minima; the rest is worked out per
/// buffer afterwards. Returns the output lines, in order, for the caller to
/// pin.
std::vector<size_t> scanInParts(const Module &module, const Function &function,
                                std::pair<BufferId, BufferId> range, FreeScratch &scratch,
                                size_t count) {
  const size_t n = function.lines.size();
  if (scratch.firstDef.empty()) {
    scratch.firstDef.assign(scratch.lastUse.size(), kNever);
    scratch.firstUse.assign(scratch.lastUse.size(), kNever);
  }
  std::vector<std::vector<size_t>> outputs(count);
  runParts(count, [&](size_t p) {
    for (size_t i = n * p / count, end = n * (p + 1) / count; i < end; ++i) {
      const Line &line = function.lines[i];
      if (std::holds_alternative<OutputLine>(line)) {
        outputs[p].push_back(i);
        continue;
      }
      forEachUse(line, [&](BufferId b) {
        raiseTo(scratch.lastUse[b], i);
        lowerTo(scratch.firstUse[b], i);
        const BufferInfo &info = module.buffers[b];
        if (info.kind == BufferKind::View)
          raiseTo(scratch.lastUse[info.viewBase], i);
      });
      forEachDef(line, [&](BufferId b) { lowerTo(scratch.firstDef[b], i); });
      if (const auto *reuse = std::get_if<ReuseLine>(&line); reuse && reuse->deleteOld)
        std::atomic_ref<uint8_t>(scratch.renamedAway[reuse->old])
            .store(1, std::memory_order_relaxed);
    }
  });
  for (BufferId b = range.first; b < range.second; ++b) {
    const BufferInfo &info = module.buffers[b];
    const size_t def = scratch.firstDef[b];
    if (info.kind == BufferKind::View && def != kNever &&
        (scratch.firstUse[b] == kNever || def < scratch.firstUse[b])) {
      raiseTo(scratch.lastUse[b], def);
      raiseTo(scratch.lastUse[info.viewBase], def);
    }
  }
  for (BufferId b = range.first; b < range.second; ++b) {
    if (scratch.lastUse[b] == kNever)
      scratch.lastUse[b] = scratch.firstDef[b];
    scratch.firstDef[b] = kNever;
    scratch.firstUse[b] = kNever;
  }
  std::vector<size_t> all;
  for (const std::vector<size_t> &part : outputs)
    all.insert(all.end(), part.begin(), part.end());
  return all;
}

FreeSchedule scheduleFrees(const Module &module, const Function &function,
                           std::pair<BufferId, BufferId> range, FreeScratch &scratch,
                           size_t parts) {
  const size_t n = function.lines.size();
  std::vector<size_t> &lastUse = scratch.lastUse;
  std::vector<uint8_t> &pinned = scratch.pinned;
  std::vector<uint8_t> &renamedAway = scratch.renamedAway;

  auto storageOf = [&](BufferId b) {
    const BufferInfo &info = module.buffers[b];
    return info.kind == BufferKind::View ? info.viewBase : b;
  };
  size_t i = 0;
  auto touch = [&](BufferId b) {
    lastUse[b] = i;
    BufferId base = storageOf(b);
    if (base != b)
      lastUse[base] = i;
  };
  auto touchDef = [&](BufferId b) {
    if (lastUse[b] == kNever)
      touch(b);
  };
  auto pin = [&](BufferId b) {
    pinned[b] = 1;
    pinned[storageOf(b)] = 1;
  };
  if (parts > 1)
    for (size_t output : scanInParts(module, function, range, scratch, parts))
      for (const Value &v : std::get<OutputLine>(function.lines[output]).outputs)
        forEachBuffer(v, pin);
  for (; parts < 2 && i < n; ++i) {
    const Line &line = function.lines[i];
    if (const auto *output = std::get_if<OutputLine>(&line)) {
      for (const Value &v : output->outputs)
        forEachBuffer(v, pin);
      continue;
    }
    forEachUse(line, touch);
    forEachDef(line, touchDef);
    if (const auto *reuse = std::get_if<ReuseLine>(&line); reuse && reuse->deleteOld)
      renamedAway[reuse->old] = 1;
  }

  auto freedAfter = [&](BufferId b) {
    const BufferInfo &info = module.buffers[b];
    if (lastUse[b] == kNever || pinned[b] || renamedAway[b] || !mayFree(info))
      return kNever;
    if (info.kind == BufferKind::View && pinned[info.viewBase])
      return kNever;
    return lastUse[b];
  };
  // Sorted by counting, not a vector per line.
  FreeSchedule schedule;
  schedule.end.assign(n + 1, 0);
  std::vector<uint32_t> &end = schedule.end;
  // Frees after one line go in buffer id order.
  for (BufferId b = range.first; b < range.second; ++b)
    if (size_t line = freedAfter(b); line != kNever)
      ++end[line + 1];
  for (size_t k = 1; k <= n; ++k)
    end[k] += end[k - 1];
  schedule.frees.resize(end[n]);
  for (BufferId b = range.first; b < range.second; ++b)
    if (size_t line = freedAfter(b); line != kNever)
      schedule.frees[end[line]++] = b;
  for (BufferId b = range.first; b < range.second; ++b) {
    lastUse[b] = kNever;
    pinned[b] = 0;
    renamedAway[b] = 0;
  }
  return schedule;
}

/// What the reuse planner sees of a line: an allocation, a free, a tensor an
/// extern kernel returns (live from there, as if allocated), or nothing.
struct ReuseEvent {
  enum Kind : uint8_t { Other, Allocate, Free, Returned };
  Kind kind = Other;
  BufferId buffer = kNoBuffer;
};

ReuseEvent reuseEvent(const Module &module, const Line &line) {
  if (const auto *a = std::get_if<AllocateLine>(&line))
    return {ReuseEvent::Allocate, a->buffer};
  if (BufferId r = memory::returnedStorage(module, line); r != kNoBuffer)
    return {ReuseEvent::Returned, r};
  if (const auto *f = std::get_if<FreeLine>(&line))
    return {ReuseEvent::Free, f->buffer};
  return {};
}

/// The events of \p function's lines, one per line, in order, to \p visit.
/// Made as they are read rather than kept: on large graphs an array of them
/// would be part of the peak memory.
struct LineEvents {
  const Module &module;
  const Function &function;
  size_t size() const { return function.lines.size(); }
  template <typename Visit> void operator()(Visit &&visit) const {
    for (const Line &line : function.lines)
      visit(reuseEvent(module, line));
  }
};

/// The events of \p function's lines with \p schedule's frees in place, as
/// insertFrees lays them out.
struct ScheduledEvents {
  const Module &module;
  const Function &function;
  const FreeSchedule &schedule;
  size_t size() const { return function.lines.size() + schedule.frees.size(); }
  template <typename Visit> void operator()(Visit &&visit) const {
    for (size_t k = 0; k < function.lines.size(); ++k) {
      visit(reuseEvent(module, function.lines[k]));
      for (size_t f = k == 0 ? 0 : schedule.end[k - 1]; f < schedule.end[k]; ++f)
        visit(ReuseEvent{ReuseEvent::Free, schedule.frees[f]});
    }
  }
};

/// The events of ScheduledEvents, made on threads before the planner reads
/// them: on a large function, reading the lines twice on one thread was
/// most of the planner's time. The array costs 8 bytes a line and free.
struct ScheduledEventArray {
  std::vector<ReuseEvent> events;
  ScheduledEventArray(const Module &module, const Function &function,
                      const FreeSchedule &schedule, size_t count) {
    const size_t n = function.lines.size();
    events.resize(n + schedule.frees.size());
    runParts(count, [&](size_t p) {
      for (size_t k = n * p / count, end = n * (p + 1) / count; k < end; ++k) {
        const size_t first = k == 0 ? 0 : schedule.end[k - 1];
        size_t at = k + first;
        events[at] = reuseEvent(module, function.lines[k]);
        for (size_t f = first; f < schedule.end[k]; ++f)
          events[++at] = ReuseEvent{ReuseEvent::Free, schedule.frees[f]};
      }
    });
  }
  size_t size() const { return events.size(); }
  template <typename Visit> void operator()(Visit &&visit) const {
    for (const ReuseEvent &event : events)
      visit(event);
  }
};

/// Puts \p schedule's frees in place, and with them \p plan, made on the
/// lines with those frees (ScheduledEvents): its allocations become reuse
/// lines and its frees are left out. One pass, in place from the back: a
/// second vector of lines was a large part of the peak memory on big
/// graphs, and putting the frees in and then the plan moved each line twice.
///
/// In \p parts parts on threads, each moves its own lines. Lines only move
/// towards the end, so a part writes over lines of the parts after it, never
/// before: each part first sets aside its lines that the parts before it
/// will write over (those below where its own first line goes), then all
/// move their lines at once.
void insertFrees(Function &function, const FreeSchedule &schedule,
                 const memory::ReusePlan &plan = {}, size_t parts = 1) {
  const size_t n = function.lines.size();
  function.lines.resize(n + schedule.frees.size() - plan.dropped.size());
  // Where line k goes, and the take-overs and dropped frees before it.
  // Positions in the plan are those of the lines with every free in place.
  struct Place {
    size_t to, takeOvers, dropped;
  };
  auto placeOf = [&](size_t k) -> Place {
    if (k == n)
      return {function.lines.size(), plan.takeOvers.size(), plan.dropped.size()};
    const size_t at = k + (k == 0 ? 0 : schedule.end[k - 1]);
    auto before = [at](const std::vector<std::pair<size_t, BufferId>> &entries) {
      return static_cast<size_t>(
          std::partition_point(entries.begin(), entries.end(),
                               [at](const auto &entry) { return entry.first < at; }) -
          entries.begin());
    };
    const size_t dropped = before(plan.dropped);
    return {at - dropped, before(plan.takeOvers), dropped};
  };
  parts = std::max<size_t>(1, std::min(parts, n));
  std::vector<std::vector<Line>> setAside(parts);
  auto bounds = [&](size_t p) { return std::pair(n * p / parts, n * (p + 1) / parts); };
  if (parts > 1)
    runParts(parts, [&](size_t p) {
      auto [begin, end] = bounds(p);
      const size_t below = std::min(std::max(placeOf(begin).to, begin), end);
      setAside[p].reserve(below - begin);
      for (size_t k = begin; k < below; ++k)
        setAside[p].push_back(std::move(function.lines[k]));
    });
  auto move = [&](size_t p) {
    const auto range = bounds(p);
    const size_t begin = range.first, end = range.second;
    const Place first = placeOf(begin), last = placeOf(end);
    size_t w = last.to, t = last.takeOvers, d = last.dropped;
    std::vector<Line> &aside = setAside[p];
    auto source = [&](size_t k) -> Line & {
      return k - begin < aside.size() ? aside[k - begin] : function.lines[k];
    };
    // Lines before the first moved one stay where they are, once none of
    // them becomes a reuse line.
    for (size_t k = end; k-- > begin && (w != k + 1 || t > first.takeOvers);) {
      const size_t firstFree = k == 0 ? 0 : schedule.end[k - 1];
      const size_t at = k + firstFree; // line k's position
      for (size_t f = schedule.end[k]; f-- > firstFree;) {
        if (d > 0 && plan.dropped[d - 1].first == at + 1 + (f - firstFree)) {
          --d;
          continue;
        }
        function.lines[--w] = FreeLine{schedule.frees[f]};
      }
      if (t > 0 && plan.takeOvers[t - 1].first == at) {
        BufferId buffer = std::get<AllocateLine>(source(k)).buffer;
        function.lines[--w] = ReuseLine{plan.takeOvers[--t].second, buffer, /*deleteOld=*/true,
                                        /*inPlace=*/false};
      } else if (--w != k || k - begin < aside.size()) {
        function.lines[w] = std::move(source(k));
      }
    }
  };
  if (parts > 1)
    runParts(parts, move);
  else
    move(0);
}

/// Plans turning free-then-allocate pairs into reuse lines, LIFO per key,
/// over \p events (a function's lines: LineEvents or ScheduledEvents). An
/// allocation takes a freed buffer's storage over only if \p mayTakeOver
/// allows it.
template <typename Events, typename MayTakeOver>
memory::ReusePlan planReuse(Module &module, const Events &events, memory::StorageSizes &sizes,
                            MayTakeOver &&mayTakeOver) {
  memory::ReusePlan plan;
  auto reusable = [&](BufferId b) {
    const BufferInfo &info = module.buffer(b);
    // Inductor offers no view of an op's input for reuse: its storage is
    // the input's.
    return info.kind == BufferKind::Intermediate && !info.isTuple && !info.aliasesInput;
  };
  auto bytesAtHints = [&](BufferId b) { return sizes.of(b).bytes; };

  // Bytes live after each line, at the size hints.
  const size_t n = events.size();
  if (n == 0)
    return plan;
  std::vector<int64_t> live(n, 0);
  int64_t current = 0;
  size_t i = 0;
  events([&](ReuseEvent e) {
    // A tensor an extern kernel returns is live too: its free below
    // subtracts it.
    if (e.kind == ReuseEvent::Allocate ||
        (e.kind == ReuseEvent::Returned && !module.buffer(e.buffer).aliasesInput))
      current += bytesAtHints(e.buffer);
    else if (e.kind == ReuseEvent::Free && reusable(e.buffer))
      current -= bytesAtHints(e.buffer);
    live[i++] = current;
  });
  int64_t peak = *std::max_element(live.begin(), live.end());
  PeakProfile tree(std::move(live));

  // Storage changes hands within one key: the same device, dtype and
  // element count. Keys are numbered as they are met; freed buffers wait
  // on a stack per key as (buffer, free line).
  struct Key {
    int deviceKind;
    int deviceIndex;
    uint8_t dtype;
    uint32_t elements;
    bool operator==(const Key &) const = default;
  };
  struct KeyHash {
    size_t operator()(const Key &k) const {
      return (static_cast<size_t>(k.elements) * 1000003u ^ static_cast<size_t>(k.dtype) * 131u) ^
             (static_cast<size_t>(k.deviceIndex) * 8191u + static_cast<size_t>(k.deviceKind));
    }
  };
  std::unordered_map<Key, uint32_t, KeyHash> keyIds;
  std::vector<std::vector<std::pair<BufferId, size_t>>> pool;
  auto keyOf = [&](BufferId b) {
    const graph::Layout &layout = module.buffer(b).layout;
    Key key{static_cast<int>(layout.device.kind), layout.device.index,
            static_cast<uint8_t>(layout.dtype), sizes.of(b).elementsId};
    auto [it, inserted] = keyIds.try_emplace(key, static_cast<uint32_t>(pool.size()));
    if (inserted)
      pool.emplace_back();
    return it->second;
  };
  // By line: the buffer whose free there a take-over drops. Kept here, so
  // that the plan is collected without visiting those lines again.
  std::vector<BufferId> dropped(n, kNoBuffer);
  i = 0;
  events([&](ReuseEvent e) {
    const size_t at = i++;
    if (e.kind == ReuseEvent::Free && reusable(e.buffer)) {
      pool[keyOf(e.buffer)].emplace_back(e.buffer, at);
      return;
    }
    if (e.kind != ReuseEvent::Allocate || !reusable(e.buffer) || !mayTakeOver(e.buffer))
      return;
    std::vector<std::pair<BufferId, size_t>> &freed = pool[keyOf(e.buffer)];
    if (freed.empty())
      return;
    auto [old, freeLine] = freed.back();
    int64_t bytes = bytesAtHints(old);
    // Keeping the old storage alive from its free to here must not raise
    // the peak.
    if (tree.max(freeLine, at) + bytes > peak)
      return;
    freed.pop_back();
    tree.add(freeLine, at, bytes);
    plan.takeOvers.emplace_back(at, old);
    dropped[freeLine] = old;
  });
  plan.dropped.reserve(plan.takeOvers.size());
  for (i = 0; i < n; ++i)
    if (dropped[i] != kNoBuffer)
      plan.dropped.emplace_back(i, dropped[i]);
  return plan;
}

/// Makes \p plan: its allocations become reuse lines and its frees go.
void applyReuse(Function &function, const memory::ReusePlan &plan) {
  for (const auto &[line, old] : plan.takeOvers) {
    BufferId buffer = std::get<AllocateLine>(function.lines[line]).buffer;
    function.lines[line] = ReuseLine{old, buffer, /*deleteOld=*/true, /*inPlace=*/false};
  }
  // Compacted in place: a second vector of lines was a large part of the
  // peak memory on big graphs.
  size_t kept = 0, d = 0;
  for (size_t i = 0; i < function.lines.size(); ++i) {
    if (d < plan.dropped.size() && plan.dropped[d].first == i) {
      ++d;
      continue;
    }
    if (kept != i)
      function.lines[kept] = std::move(function.lines[i]);
    ++kept;
  }
  function.lines.erase(function.lines.begin() + static_cast<std::ptrdiff_t>(kept),
                       function.lines.end());
}

/// Takes back \p plan, made on \p function, and the pools from
/// \p firstPool on carved from it since: the lines before the plan.
void undoReuse(Function &function, const memory::ReusePlan &plan, PoolId firstPool) {
  std::vector<Line> lines;
  lines.reserve(function.lines.size() + plan.dropped.size());
  size_t t = 0, d = 0;
  for (Line &line : function.lines) {
    while (d < plan.dropped.size() && plan.dropped[d].first == lines.size())
      lines.push_back(FreeLine{plan.dropped[d++].second});
    if (const auto *p = std::get_if<PoolAllocateLine>(&line); p && p->pool >= firstPool)
      continue;
    if (const auto *p = std::get_if<PoolFreeLine>(&line); p && p->pool >= firstPool)
      continue;
    if (t < plan.takeOvers.size() && plan.takeOvers[t].first == lines.size()) {
      lines.push_back(AllocateLine{std::get<ReuseLine>(line).reusedAs});
      ++t;
    } else if (const auto *a = std::get_if<AllocateFromPoolLine>(&line);
               a && a->pool >= firstPool) {
      lines.push_back(AllocateLine{a->buffer});
    } else {
      lines.push_back(std::move(line));
    }
  }
  while (d < plan.dropped.size())
    lines.push_back(FreeLine{plan.dropped[d++].second});
  function.lines = std::move(lines);
}

constexpr auto always = [](BufferId) { return true; };

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
  // Layouts do not change here: one size per buffer for every function and
  // strategy.
  memory::StorageSizes sizes(module);
  FreeScratch scratch(module.buffers.size());
  const auto ranges = functionBufferRanges(module);
  for (unsigned f = 0; f < module.functions.size(); ++f) {
    Function &function = module.functions[f];
    const size_t parts = partsFor(ctx, function.lines.size());
    const FreeSchedule schedule = scheduleFrees(module, function, ranges[f], scratch, parts);
    if (parts > 1)
      sizes.computeInParts(ranges[f].first, ranges[f].second, parts);
    const bool stats = ctx.options.memoryStats || ctx.options.verifyPlan;
    const bool reuse = strategy == MemoryPlan::Reuse || strategy == MemoryPlan::Pool;
    if (reuse && !stats) {
      // The frees and the reuse plan made on them go in together, each
      // line moved once.
      memory::ReusePlan plan =
          parts > 1
              ? planReuse(module, ScheduledEventArray(module, function, schedule, parts), sizes,
                          always)
              : planReuse(module, ScheduledEvents{module, function, schedule}, sizes, always);
      insertFrees(function, schedule, plan, parts);
    } else {
      insertFrees(function, schedule, {}, parts);
      if (stats)
        memory::recordLowerBounds(module, f, sizes, ctx.options.symbolicStats);
      if (reuse)
        applyReuse(function, planReuse(module, LineEvents{module, function}, sizes, always));
    }
    std::string_view method = memoryPlanName(strategy);
    switch (strategy) {
    case MemoryPlan::None:
    case MemoryPlan::Reuse:
      break;
    case MemoryPlan::Pool:
      // Inductor's pool planner works on the lines its reuse planner left:
      // a reuse chain is one allocation.
      if (!memory::placeInPools(module, f, strategy, ctx.options, ctx.diag, sizes))
        return false;
      break;
    case MemoryPlan::Arena: {
      // Reuse planned alone, kept as the fallback. It is measured without
      // being made: a copy of the lines to make it on was most of this
      // strategy's time.
      const LineEvents events{module, function};
      memory::ReusePlan alone = planReuse(module, events, sizes, always);
      const int64_t reusePeak = memory::totalPeak(module, function, sizes, &alone);
      // The arena places static-size intermediates. Buffers of symbolic
      // size keep reuse, and so do the reuse chains that end in an output:
      // an output that takes a dead intermediate's storage over costs no
      // bytes, while an arena alive next to it would.
      memory::StorageGroups chains = memory::collectGroups(module, function, &alone);
      const size_t numPools = module.pools.size();
      memory::ReusePlan arena = planReuse(module, events, sizes, [&](BufferId b) {
        uint32_t g = chains.groupOf[b];
        return !sizes.of(b).isStatic || (g != memory::kNoGroup && chains.groups[g].pinned);
      });
      chains = {};
      applyReuse(function, arena);
      if (!memory::placeInPools(module, f, strategy, ctx.options, ctx.diag, sizes))
        return false;
      // The arena never costs more than reuse: where its peak at the size
      // hints is higher, the function keeps the reuse plan. (Carving reuse
      // chains into arenas instead, as the pool strategy does, never won on
      // the corpus or the property tests, so it is not tried.)
      if (reusePeak < memory::totalPeak(module, function, sizes)) {
        undoReuse(function, arena, static_cast<PoolId>(numPools));
        applyReuse(function, alone);
        module.pools.resize(numPools);
        method = "reuse";
      }
      break;
    }
    }
    if (stats)
      memory::recordPeaks(module, f, sizes, strategy, method);
    if (ctx.options.verifyPlan)
      memory::verifyPlans(module, f, strategy);
  }
  return true;
}

} // namespace wirc::passes
