//===- MemoryPlanning.cpp - Pools, arenas, the plan check and the figures -===//
//
// The pool and arena strategies map a function's allocations to a
// wirc::plan problem per device: one request per storage group (an alloc
// line and the names that take its storage over), live from its alloc line
// to one past the last line that uses any of its names or their views,
// padded to 64 bytes. Only groups whose storage size is a constant and
// which no output refers to are planned; the others keep their own
// allocations, so a plan made at the size hints holds at every size and no
// pool outlives the call.
//
//===----------------------------------------------------------------------===//
#include "MemoryPlanning.h"

#include "wirc/plan/Checker.h"
#include "wirc/plan/Planner.h"
#include "wirc/support/Parallel.h"

#include <fmt/format.h>

#include <algorithm>
#include <map>
#include <set>
#include <tuple>

namespace wirc::passes::memory {

using namespace wirc::ir;

BufferId returnedStorage(const Module &module, const Line &line) {
  BufferId b = kNoBuffer;
  if (const auto *e = std::get_if<ExternKernelAllocLine>(&line))
    b = e->result;
  else if (const auto *m = std::get_if<MultiOutputLine>(&line))
    b = m->result;
  if (b == kNoBuffer)
    return kNoBuffer;
  const BufferInfo &info = module.buffer(b);
  return info.kind == BufferKind::Intermediate && !info.isTuple ? b : kNoBuffer;
}

namespace {

BufferId storageOf(const Module &module, BufferId b) {
  const BufferInfo &info = module.buffer(b);
  return info.kind == BufferKind::View ? info.viewBase : b;
}

/// The largest of \p candidates, printed; "" when it is a constant.
std::string maxExpr(const std::map<std::string, sym::Expr> &candidates) {
  std::vector<sym::Expr> list;
  for (const auto &[text, e] : candidates)
    list.push_back(e);
  if (list.empty())
    return "";
  sym::Expr m = list.size() == 1 ? list[0] : sym::max(list);
  return m.isConstant() ? "" : sym::toString(m);
}

MemoryPlanStats *statsFor(Module &module, const std::string &function, const graph::Device &d) {
  std::string device = graph::deviceName(d);
  for (MemoryPlanStats &s : module.memoryStats)
    if (s.function == function && s.device == device)
      return &s;
  return nullptr;
}

} // namespace

namespace {

size_t hashOf(const sym::Expr &e) {
  std::optional<int64_t> c = e.constant();
  return c ? std::hash<int64_t>()(*c) * 0x9e3779b97f4a7c15ULL : e.hash();
}

/// Structural equality of expression lists; constants compare in line.
bool sameExprs(std::span<const sym::Expr> a, std::span<const sym::Expr> b) {
  if (a.size() != b.size())
    return false;
  for (size_t i = 0; i < a.size(); ++i) {
    std::optional<int64_t> x = a[i].constant(), y = b[i].constant();
    if (x || y ? x != y : a[i] != b[i])
      return false;
  }
  return true;
}

} // namespace

StorageSizes::StorageSizes(const Module &module)
    : module(module), hints(module.hints()), sizeOf(module.buffers.size(), kUnknown) {}

namespace {

/// What a layout's storage size depends on: its size, stride and item size.
size_t layoutHash(const graph::Layout &layout) {
  size_t h = layout.size.size() * 31 + static_cast<size_t>(graph::dtypeSize(layout.dtype));
  for (const sym::Expr &e : layout.size)
    h = h * 1000003u ^ hashOf(e);
  for (const sym::Expr &e : layout.stride)
    h = h * 1000003u ^ hashOf(e);
  return h;
}

bool sameStorage(const graph::Layout &a, const graph::Layout &b) {
  return graph::dtypeSize(a.dtype) == graph::dtypeSize(b.dtype) && sameExprs(a.size, b.size) &&
         sameExprs(a.stride, b.stride);
}

/// The storage size of \p layout, all but its elementsId.
std::unique_ptr<StorageSize> sizeOfLayout(const graph::Layout &layout,
                                          const sym::SymbolValues &hints) {
  const int64_t itemsize = graph::dtypeSize(layout.dtype);
  auto result = std::make_unique<StorageSize>();
  StorageSize &s = *result;
  sym::Expr extent(1);
  for (size_t i = 0; i < layout.size.size(); ++i)
    extent = extent + (layout.size[i] - sym::Expr(1)) * layout.stride[i];
  s.elements = sym::simplify(extent);
  bool constantZero = false;
  std::string error;
  bool empty = false;
  for (const sym::Expr &size : layout.size) {
    if (std::optional<int64_t> c = size.constant()) {
      constantZero |= *c == 0;
      empty |= *c == 0;
    } else if (auto v = sym::evaluate(size, hints, error); v && *v == 0) {
      empty = true;
    }
  }
  s.isStatic = s.elements.isConstant() || constantZero; // empty whatever the other sizes are
  s.known = true;
  if (!empty) {
    std::optional<int64_t> elements = sym::evaluate(s.elements, hints, error);
    std::optional<int64_t> padded;
    if (elements && *elements >= 0 && *elements <= INT64_MAX / itemsize)
      padded = plan::checkedAlignUp(*elements * itemsize, kAlignment);
    if (padded)
      s.paddedBytes = *padded;
    else
      s.known = false;
    // Wraps rather than overflows on absurd sizes.
    if (elements)
      s.bytes = static_cast<int64_t>(static_cast<uint64_t>(*elements) *
                                     static_cast<uint64_t>(itemsize));
  }
  if (empty && s.isStatic)
    s.paddedExpr = sym::Expr(0);
  else
    s.paddedExpr = sym::ceilDiv(s.elements * sym::Expr(itemsize), sym::Expr(kAlignment)) *
                   sym::Expr(kAlignment);
  return result;
}

} // namespace

uint32_t StorageSizes::find(BufferId b, size_t hash) const {
  const graph::Layout &layout = module.buffer(b).layout;
  auto [first, last] = layouts.equal_range(hash);
  for (auto it = first; it != last; ++it)
    if (sameStorage(module.buffer(it->second).layout, layout))
      return sizeOf[it->second];
  return kUnknown;
}

uint32_t StorageSizes::add(BufferId b, size_t hash, std::unique_ptr<StorageSize> size) {
  const uint32_t index = static_cast<uint32_t>(distinct.size());
  layouts.emplace(hash, b);
  size->elementsId = elementsIds
                         .try_emplace(sym::toString(size->elements),
                                      static_cast<uint32_t>(elementsIds.size()))
                         .first->second;
  distinct.push_back(std::move(size));
  return index;
}

const StorageSize &StorageSizes::compute(BufferId b) {
  const size_t hash = layoutHash(module.buffer(b).layout);
  if (uint32_t index = find(b, hash); index != kUnknown)
    return *distinct[sizeOf[b] = index];
  // The representative's slot is set before it is looked up again.
  sizeOf[b] = static_cast<uint32_t>(distinct.size());
  return *distinct[add(b, hash, sizeOfLayout(module.buffer(b).layout, hints))];
}

void StorageSizes::computeInParts(BufferId first, BufferId last, size_t parts) {
  // Each part: its buffers' distinct layouts (a representative buffer and
  // its size), and by buffer the index of its layout among them.
  struct Part {
    std::unordered_multimap<size_t, uint32_t> layouts;
    std::vector<std::pair<BufferId, size_t>> representatives; // buffer, hash
    std::vector<std::unique_ptr<StorageSize>> sizes;
    std::vector<uint32_t> local;
  };
  const size_t n = last - first;
  std::vector<Part> results(parts);
  auto bounds = [&](size_t p) {
    return std::pair<BufferId, BufferId>(static_cast<BufferId>(first + n * p / parts),
                                         static_cast<BufferId>(first + n * (p + 1) / parts));
  };
  runParts(parts, [&](size_t p) {
    Part &part = results[p];
    auto [begin, end] = bounds(p);
    part.local.assign(end - begin, kUnknown);
    for (BufferId b = begin; b < end; ++b) {
      if (sizeOf[b] != kUnknown)
        continue;
      const graph::Layout &layout = module.buffer(b).layout;
      const size_t hash = layoutHash(layout);
      uint32_t index = kUnknown;
      auto [lo, hi] = part.layouts.equal_range(hash);
      for (auto it = lo; it != hi && index == kUnknown; ++it)
        if (sameStorage(module.buffer(part.representatives[it->second].first).layout, layout))
          index = it->second;
      if (index == kUnknown) {
        index = static_cast<uint32_t>(part.sizes.size());
        part.layouts.emplace(hash, index);
        part.representatives.emplace_back(b, hash);
        part.sizes.push_back(sizeOfLayout(layout, hints));
      }
      part.local[b - begin] = index;
    }
  });
  // In order of parts and of first use, as one thread would meet them; a
  // layout's index among the distinct sizes replaces its index in a part.
  for (Part &part : results) {
    std::vector<uint32_t> global(part.sizes.size());
    for (size_t i = 0; i < part.sizes.size(); ++i) {
      auto [b, hash] = part.representatives[i];
      global[i] = find(b, hash);
      if (global[i] == kUnknown) {
        sizeOf[b] = static_cast<uint32_t>(distinct.size());
        global[i] = add(b, hash, std::move(part.sizes[i]));
      }
    }
    for (uint32_t &index : part.local)
      if (index != kUnknown)
        index = global[index];
  }
  runParts(parts, [&](size_t p) {
    auto [begin, end] = bounds(p);
    for (BufferId b = begin; b < end; ++b)
      if (uint32_t index = results[p].local[b - begin]; index != kUnknown)
        sizeOf[b] = index;
  });
}

StorageGroups collectGroups(const Module &module, const Function &function,
                            const ReusePlan *plan) {
  StorageGroups result;
  result.groupOf.assign(module.buffers.size(), kNoGroup);
  auto groupOfStorage = [&](BufferId b) { return result.groupOf[storageOf(module, b)]; };
  auto startGroup = [&](BufferId b, size_t i, bool allocated) {
    result.groupOf[b] = static_cast<uint32_t>(result.groups.size());
    StorageGroup group;
    group.root = b;
    group.firstLink = group.lastLink = static_cast<uint32_t>(result.links.size());
    result.links.push_back({b, kNoGroup});
    group.begin = i;
    group.end = i + 1;
    group.allocated = allocated;
    result.groups.push_back(std::move(group));
  };
  size_t i = 0;
  auto extend = [&](BufferId b) {
    if (uint32_t g = groupOfStorage(b); g != kNoGroup)
      result.groups[g].end = std::max(result.groups[g].end, i + 1);
  };
  auto visitLine = [&](const Line &line) {
    if (const auto *a = std::get_if<AllocateLine>(&line)) {
      startGroup(a->buffer, i, true);
      return;
    }
    // Storage an extern kernel returns counts like an allocation (reuse may
    // hand it to a later buffer), but only the wrapper's own allocations
    // can move into a pool.
    if (BufferId b = returnedStorage(module, line); b != kNoBuffer) {
      startGroup(b, i, false);
      return;
    }
    if (const auto *r = std::get_if<ReuseLine>(&line)) {
      if (uint32_t g = result.groupOf[r->old]; g != kNoGroup) {
        result.groupOf[r->reusedAs] = g;
        StorageGroup &group = result.groups[g];
        uint32_t link = static_cast<uint32_t>(result.links.size());
        result.links.push_back({r->reusedAs, kNoGroup});
        result.links[group.lastLink].next = link;
        group.lastLink = link;
      }
    }
    auto pin = [&](BufferId b) {
      if (uint32_t g = groupOfStorage(b); g != kNoGroup)
        result.groups[g].pinned = true;
    };
    auto escape = [&](BufferId b) {
      if (uint32_t g = groupOfStorage(b); g != kNoGroup)
        result.groups[g].mayBeAliased = true;
    };
    if (const auto *o = std::get_if<OutputLine>(&line))
      for (const Value &v : o->outputs)
        forEachBuffer(v, pin);
    // What an extern kernel returns, or a subgraph, may alias its arguments
    // (a view op); the alias's life is not tracked here.
    if (const auto *e = std::get_if<ExternKernelAllocLine>(&line)) {
      for (const Value &v : e->args)
        forEachBuffer(v, escape);
      for (const auto &kv : e->kwargs)
        forEachBuffer(kv.second, escape);
    }
    if (const auto *c = std::get_if<CondLine>(&line))
      for (const Value &v : c->operands)
        forEachBuffer(v, escape);
    if (const auto *s = std::get_if<InvokeSubgraphLine>(&line))
      for (const Value &v : s->operands)
        forEachBuffer(v, escape);
    if (const auto *w = std::get_if<WhileLoopLine>(&line)) {
      for (const Value &v : w->carried)
        forEachBuffer(v, escape);
      for (const Value &v : w->additional)
        forEachBuffer(v, escape);
    }
    forEachUse(line, extend);
    forEachDef(line, extend);
  };
  forEachLine(function, plan, [&](const Line &line) {
    visitLine(line);
    ++i;
  });
  return result;
}

void recordLowerBounds(Module &module, unsigned functionIndex, StorageSizes &sizes,
                       bool withExpr) {
  const Function &function = module.functions[functionIndex];
  StorageGroups groups = collectGroups(module, function);
  std::map<std::pair<int, int>, std::vector<uint32_t>> byDevice;
  std::map<std::pair<int, int>, graph::Device> devices;
  for (uint32_t g = 0; g < groups.groups.size(); ++g) {
    const graph::Device &d = module.buffer(groups.groups[g].root).layout.device;
    std::pair key(static_cast<int>(d.kind), d.index);
    byDevice[key].push_back(g);
    devices.emplace(key, d);
  }
  for (const auto &[key, list] : byDevice) {
    plan::Problem problem;
    bool symbolic = false;
    for (uint32_t g : list) {
      const StorageGroup &group = groups.groups[g];
      const StorageSize &size = sizes.of(group.root);
      symbolic |= !size.isStatic;
      problem.requests.push_back({size.paddedBytes, static_cast<int64_t>(group.begin),
                                  static_cast<int64_t>(group.end), kAlignment});
    }
    MemoryPlanStats stats;
    stats.function = function.name;
    stats.device = graph::deviceName(devices.at(key));
    stats.lowerBound = plan::lowerBound(problem).value_or(INT64_MAX);
    if (symbolic && withExpr) {
      // The symbolic bound: the live sum after every time step at which
      // something begins, ends before begins.
      std::vector<std::tuple<size_t, int, uint32_t>> events; // (time, +1/-1, group)
      for (uint32_t g : list) {
        events.emplace_back(groups.groups[g].begin, 1, g);
        events.emplace_back(groups.groups[g].end, -1, g);
      }
      std::sort(events.begin(), events.end());
      sym::Expr live(0);
      std::map<std::string, sym::Expr> candidates;
      for (size_t e = 0; e < events.size(); ++e) {
        auto [time, delta, g] = events[e];
        const sym::Expr &bytes = sizes.of(groups.groups[g].root).paddedExpr;
        live = delta > 0 ? live + bytes : live - bytes;
        bool lastAtTime = e + 1 == events.size() || std::get<0>(events[e + 1]) != time;
        if (delta > 0 && lastAtTime)
          candidates.emplace(sym::toString(live), live);
      }
      stats.lowerBoundExpr = maxExpr(candidates);
    }
    module.memoryStats.push_back(std::move(stats));
  }
}

namespace {

struct DeviceLive {
  int64_t bytes = 0;
  int64_t peak = 0;
  sym::Expr expr{0};
  std::map<std::string, sym::Expr> candidates;
  bool symbolic = false;
};

/// Runs \p function's lines, counting the bytes of live allocations and
/// pools per device (a storage dies with the last name that holds it).
std::map<std::pair<int, int>, DeviceLive> simulate(const Module &module, const Function &function,
                                                   StorageSizes &sizes, bool withExprs,
                                                   const ReusePlan *plan = nullptr) {
  struct Storage {
    graph::Device device;
    int64_t bytes = 0;
    sym::Expr expr;
    unsigned names = 0;
  };
  std::vector<Storage> storages;
  std::vector<uint32_t> storageOfName(module.buffers.size(), kNoGroup);
  std::map<std::pair<int, int>, DeviceLive> live;
  auto change = [&](const graph::Device &d, int64_t bytes, const sym::Expr &expr, bool grow,
                    bool symbolic) {
    DeviceLive &l = live[{static_cast<int>(d.kind), d.index}];
    l.symbolic |= symbolic;
    // Saturates rather than wraps on absurd sizes (the figures are then
    // meaningless, but never undefined).
    l.bytes = grow ? plan::checkedAdd(l.bytes, bytes).value_or(INT64_MAX) : l.bytes - bytes;
    l.peak = std::max(l.peak, l.bytes);
    if (!withExprs)
      return;
    l.expr = grow ? l.expr + expr : l.expr - expr;
    if (grow)
      l.candidates.emplace(sym::toString(l.expr), l.expr);
  };
  forEachLine(function, plan, [&](const Line &line) {
    BufferId allocated = kNoBuffer;
    if (const auto *a = std::get_if<AllocateLine>(&line))
      allocated = a->buffer;
    else
      allocated = returnedStorage(module, line);
    if (allocated != kNoBuffer) {
      const StorageSize &size = sizes.of(allocated);
      storageOfName[allocated] = static_cast<uint32_t>(storages.size());
      storages.push_back(
          {module.buffer(allocated).layout.device, size.paddedBytes, size.paddedExpr, 1});
      change(storages.back().device, size.paddedBytes, size.paddedExpr, true, !size.isStatic);
    } else if (const auto *r = std::get_if<ReuseLine>(&line)) {
      if (uint32_t s = storageOfName[r->old]; s != kNoGroup) {
        storageOfName[r->reusedAs] = s;
        if (!r->deleteOld)
          ++storages[s].names;
      }
    } else if (const auto *f = std::get_if<FreeLine>(&line)) {
      if (uint32_t s = storageOfName[f->buffer]; s != kNoGroup && --storages[s].names == 0)
        change(storages[s].device, storages[s].bytes, storages[s].expr, false, false);
    } else if (const auto *p = std::get_if<PoolAllocateLine>(&line)) {
      const PoolInfo &pool = module.pool(p->pool);
      change(pool.device, pool.bytes, sym::Expr(pool.bytes), true, false);
    } else if (const auto *pf = std::get_if<PoolFreeLine>(&line)) {
      const PoolInfo &pool = module.pool(pf->pool);
      change(pool.device, pool.bytes, sym::Expr(pool.bytes), false, false);
    }
  });
  return live;
}

} // namespace

int64_t totalPeak(const Module &module, const Function &function, StorageSizes &sizes,
                  const ReusePlan *plan) {
  int64_t total = 0;
  for (const auto &[key, l] : simulate(module, function, sizes, /*withExprs=*/false, plan))
    total = plan::checkedAdd(total, l.peak).value_or(INT64_MAX);
  return total;
}

void recordPeaks(Module &module, unsigned functionIndex, StorageSizes &sizes,
                 MemoryPlan strategy, std::string_view method) {
  const Function &function = module.functions[functionIndex];
  bool symbolic = false;
  for (const MemoryPlanStats &s : module.memoryStats)
    symbolic |= s.function == function.name && !s.lowerBoundExpr.empty();
  for (auto &[key, l] : simulate(module, function, sizes, symbolic)) {
    graph::Device d;
    d.kind = static_cast<graph::Device::Kind>(key.first);
    d.index = key.second;
    MemoryPlanStats *stats = statsFor(module, function.name, d);
    if (!stats)
      continue;
    stats->strategy = std::string(memoryPlanName(strategy));
    stats->peak = l.peak;
    stats->peakExpr = l.symbolic ? maxExpr(l.candidates) : "";
  }
  for (MemoryPlanStats &s : module.memoryStats) {
    if (s.function != function.name)
      continue;
    s.strategy = std::string(memoryPlanName(strategy));
    s.method = std::string(method);
    for (const PoolInfo &pool : module.pools)
      s.pools += pool.function == functionIndex && graph::deviceName(pool.device) == s.device;
  }
}

bool placeInPools(Module &module, unsigned functionIndex, MemoryPlan strategy,
                  const CompileOptions &options, DiagnosticEngine &diag, StorageSizes &sizes) {
  Function &function = module.functions[functionIndex];
  StorageGroups groups = collectGroups(module, function);

  // Which groups go in a pool, by device.
  std::map<std::pair<int, int>, std::vector<uint32_t>> byDevice;
  for (uint32_t g = 0; g < groups.groups.size(); ++g) {
    const StorageGroup &group = groups.groups[g];
    bool eligible = group.allocated && !group.pinned && !group.mayBeAliased;
    groups.forEachMember(group, [&](BufferId b) {
      const BufferInfo &info = module.buffer(b);
      const StorageSize &size = sizes.of(b);
      // Static by the IR's own measure too (no symbol outside a stride-0
      // dimension): the verifier and --verify-plan size pooled buffers so.
      eligible &= info.kind == BufferKind::Intermediate && !info.isTuple && size.isStatic &&
                  size.known && size.paddedBytes <= sizes.of(group.root).paddedBytes &&
                  ir::staticStorageBytes(info.layout).has_value();
    });
    eligible &= sizes.of(group.root).paddedBytes > 0;
    if (!eligible)
      continue;
    const graph::Device &d = module.buffer(group.root).layout.device;
    byDevice[{static_cast<int>(d.kind), d.index}].push_back(g);
  }
  if (byDevice.empty())
    return true;

  // Pool names must not clash with any other name of the wrapper. Every
  // candidate starts with the stem, so only such names are collected.
  const std::string_view stem = strategy == MemoryPlan::Pool ? "pool" : "arena";
  std::set<std::string, std::less<>> taken;
  auto take = [&](const std::string &name) {
    if (name.starts_with(stem))
      taken.insert(name);
  };
  for (const BufferInfo &info : module.buffers)
    take(info.name);
  for (const graph::Kernel &kernel : module.kernels)
    take(kernel.name);
  for (const graph::Symbol &symbol : module.symbols)
    take(symbol.name);
  for (const PoolInfo &pool : module.pools)
    take(pool.name);
  unsigned nextIndex = 0;
  auto freshName = [&] {
    for (;; ++nextIndex) {
      std::string name = fmt::format("{}{}", stem, nextIndex);
      if (!taken.count(name)) {
        taken.insert(name);
        return name;
      }
    }
  };

  // Inductor's planner keeps one pool per device. An arena is split where
  // no planned buffer is live, so that each part is freed as soon as its
  // last buffer dies: a part never holds bytes across a gap of the others.
  std::vector<std::vector<uint32_t>> parts;
  for (auto &[key, list] : byDevice) {
    if (strategy == MemoryPlan::Pool) {
      parts.push_back(std::move(list));
      continue;
    }
    std::stable_sort(list.begin(), list.end(), [&](uint32_t a, uint32_t b) {
      return groups.groups[a].begin < groups.groups[b].begin;
    });
    size_t reach = 0;
    for (uint32_t g : list) {
      if (parts.empty() || groups.groups[g].begin >= reach ||
          !(module.buffer(groups.groups[g].root).layout.device ==
            module.buffer(groups.groups[parts.back().front()].root).layout.device))
        parts.emplace_back();
      parts.back().push_back(g);
      reach = std::max(parts.back().size() == 1 ? 0 : reach, groups.groups[g].end);
    }
  }

  // The pool lines by the line they go before (allocations) or after
  // (frees), each in the order of the parts.
  std::vector<std::pair<size_t, PoolId>> allocs, frees;
  std::vector<std::optional<std::pair<PoolId, int64_t>>> placement(groups.groups.size());
  for (const std::vector<uint32_t> &list : parts) {
    plan::Problem problem;
    problem.requests.reserve(list.size());
    size_t first = SIZE_MAX, last = 0;
    for (uint32_t g : list) {
      const StorageGroup &group = groups.groups[g];
      problem.requests.push_back({sizes.of(group.root).paddedBytes,
                                  static_cast<int64_t>(group.begin),
                                  static_cast<int64_t>(group.end), kAlignment});
      first = std::min(first, group.begin);
      last = std::max(last, group.end - 1);
    }
    plan::PlanOptions planOptions;
    planOptions.strategy = strategy == MemoryPlan::Pool ? plan::Strategy::Pool
                                                        : plan::Strategy::Arena;
    planOptions.effort = options.planEffort;
    planOptions.seed = options.planSeed;
    plan::PlanResult result = plan::planMemory(problem, planOptions);
    const graph::Device &device = module.buffer(groups.groups[list.front()].root).layout.device;
    if (!result.ok()) {
      diag.error(fmt::format("cannot plan the memory of '{}' on {}: {}", function.name,
                             graph::deviceName(device), result.error));
      return false;
    }
    PoolId id = static_cast<PoolId>(module.pools.size());
    module.pools.push_back({freshName(), device, result.plan.peak, functionIndex});
    for (size_t r = 0; r < list.size(); ++r)
      placement[list[r]] = std::pair(id, result.plan.offsets[r]);
    allocs.emplace_back(first, id);
    frees.emplace_back(last, id);
  }
  auto byLine = [](const auto &a, const auto &b) { return a.first < b.first; };
  std::stable_sort(allocs.begin(), allocs.end(), byLine);
  std::stable_sort(frees.begin(), frees.end(), byLine);

  // Rewritten in place, from the back: a second vector of lines was a large
  // part of the peak memory on big graphs.
  for (Line &line : function.lines)
    if (const auto *a = std::get_if<AllocateLine>(&line);
        a && placement[groups.groupOf[a->buffer]]) {
      auto [pool, offset] = *placement[groups.groupOf[a->buffer]];
      line = AllocateFromPoolLine{a->buffer, pool, offset};
    }
  const size_t n = function.lines.size();
  function.lines.resize(n + allocs.size() + frees.size());
  size_t w = function.lines.size();
  size_t nextAlloc = allocs.size(), nextFree = frees.size();
  for (size_t i = n; i-- > 0 && w != i + 1;) {
    while (nextFree > 0 && frees[nextFree - 1].first == i)
      function.lines[--w] = PoolFreeLine{frees[--nextFree].second};
    if (--w != i)
      function.lines[w] = std::move(function.lines[i]);
    while (nextAlloc > 0 && allocs[nextAlloc - 1].first == i)
      function.lines[--w] = PoolAllocateLine{allocs[--nextAlloc].second};
  }
  return true;
}

namespace {

/// Padded static storage bytes of a layout, from the IR's own extent rather
/// than StorageSizes, so that the check does not share the planner's
/// arithmetic.
std::optional<int64_t> checkedStaticBytes(const graph::Layout &layout) {
  std::optional<int64_t> bytes = ir::staticStorageBytes(layout);
  if (!bytes || *bytes < 0 || *bytes > INT64_MAX - kAlignment)
    return std::nullopt;
  return (*bytes + kAlignment - 1) / kAlignment * kAlignment;
}

} // namespace

void verifyPlans(const Module &module, unsigned functionIndex, MemoryPlan strategy) {
  const Function &function = module.functions[functionIndex];
  auto fail = [&](const std::string &what) {
    throw InternalError(fmt::format("--verify-plan: the {} memory plan of '{}' is invalid: {}",
                                    memoryPlanName(strategy), function.name, what));
  };
  for (PoolId p = 0; p < module.pools.size(); ++p) {
    const PoolInfo &pool = module.pools[p];
    if (pool.function != functionIndex)
      continue;
    // Requests from the final lines: a carved buffer is live from its line
    // to the last line using it, a name that reuses it or a view of either.
    plan::Problem problem;
    plan::Plan placed;
    std::vector<uint32_t> requestOf(module.buffers.size(), kNoGroup);
    for (size_t i = 0; i < function.lines.size(); ++i) {
      const Line &line = function.lines[i];
      if (const auto *a = std::get_if<AllocateFromPoolLine>(&line); a && a->pool == p) {
        std::optional<int64_t> bytes = checkedStaticBytes(module.buffer(a->buffer).layout);
        if (!bytes)
          fail(fmt::format("%{} in pool @{} has no static size", module.buffer(a->buffer).name,
                           pool.name));
        requestOf[a->buffer] = static_cast<uint32_t>(problem.requests.size());
        problem.requests.push_back({*bytes, static_cast<int64_t>(i),
                                    static_cast<int64_t>(i + 1), kAlignment});
        placed.offsets.push_back(a->offset);
        continue;
      }
      if (const auto *r = std::get_if<ReuseLine>(&line); r && requestOf[r->old] != kNoGroup) {
        uint32_t req = requestOf[r->old];
        requestOf[r->reusedAs] = req;
        std::optional<int64_t> bytes = checkedStaticBytes(module.buffer(r->reusedAs).layout);
        if (!bytes || *bytes > problem.requests[req].size)
          fail(fmt::format("%{} reuses pooled %{} but needs more bytes",
                           module.buffer(r->reusedAs).name, module.buffer(r->old).name));
      }
      auto extend = [&](BufferId b) {
        if (uint32_t req = requestOf[storageOf(module, b)]; req != kNoGroup)
          problem.requests[req].end = std::max(problem.requests[req].end,
                                               static_cast<int64_t>(i + 1));
      };
      forEachUse(line, extend);
      forEachDef(line, extend);
      if (const auto *o = std::get_if<OutputLine>(&line))
        for (const Value &v : o->outputs)
          forEachBuffer(v, [&](BufferId b) {
            if (requestOf[storageOf(module, b)] != kNoGroup)
              fail(fmt::format("output %{} lives in pool @{}", module.buffer(b).name, pool.name));
          });
    }
    placed.peak = pool.bytes;
    if (problem.requests.empty()) {
      if (pool.bytes != 0)
        fail(fmt::format("pool @{} of {} bytes holds no buffer", pool.name, pool.bytes));
      continue;
    }
    if (std::string error = plan::validateProblem(problem); !error.empty())
      fail(fmt::format("pool @{}: {}", pool.name, error));
    plan::CheckResult check = plan::checkPlan(problem, placed);
    if (!check.ok())
      fail(fmt::format("pool @{}: {}", pool.name, check.errors.front()));
  }
  for (const MemoryPlanStats &s : module.memoryStats) {
    if (s.function != function.name)
      continue;
    if (s.peak < s.lowerBound)
      fail(fmt::format("on {} the peak {} is below the lower bound {}", s.device, s.peak,
                       s.lowerBound));
    if (strategy == MemoryPlan::None && s.peak != s.lowerBound)
      fail(fmt::format("on {} the peak {} without reuse differs from the lower bound {}",
                       s.device, s.peak, s.lowerBound));
  }
}

} // namespace wirc::passes::memory
