//===- Arena.cpp - wirc's arena planner: portfolio, then search -----------===//
//
// No single heuristic wins everywhere (XLA keeps the better of two; the
// research notes measure several more), so the arena planner runs a fixed
// portfolio and keeps the smallest plan, the first one on ties. Members that
// would cost more than a budget linear in the number of requests are skipped
// or abandoned, so the portfolio stays near O(n log n) on any input.
//
// The search then improves the best plan with "squeaky wheel" optimization
// over the lowest-level-first decoder: the requests that ended above the
// target get a higher priority, everything gets a little noise, and the
// decoder runs again. It stops when its deterministic work budget is spent or
// the plan reaches the lower bound.
//
//===----------------------------------------------------------------------===//
#include "PlanInternal.h"
#include "RadixSort.h"

#include <cstring>

namespace wirc::plan::detail {

namespace {

/// Work units of the effort-1 search; each effort level multiplies it by 4.
/// A unit is one step of the decoder (a request looked at, a section taken
/// from or reordered in its queue, a section raised): roughly 5 to 20 ns, so
/// effort 1 takes tens of milliseconds.
constexpr uint64_t kSearchWorkBase = 1'500'000;

uint64_t searchBudget(unsigned effort) {
  if (effort == 0)
    return 0;
  return kSearchWorkBase << (2 * (std::min(effort, kMaxEffort) - 1));
}

/// Nodes of the search for a plan at the lower bound: none below effort 2,
/// then quadrupling with each level.
uint64_t boundSearchNodes(unsigned effort) {
  if (effort < 2)
    return 0;
  return uint64_t{100'000} << (2 * (std::min(effort, kMaxEffort) - 2));
}

/// The bound search costs O(sections) per node: it is for problems of
/// hundreds to a few thousand requests.
constexpr size_t kBoundSearchLimit = 4000;

/// A cap linear in n for portfolio members whose cost depends on the input's
/// shape rather than its size.
uint64_t linearCap(size_t n, uint64_t perItem) { return perItem * n + (uint64_t{1} << 22); }

/// How many requests each request is live together with, by binary search
/// over the sorted section starts and ends: O(n log n).
std::vector<uint64_t> conflictDegrees(const Instance &inst) {
  std::vector<int32_t> firsts(inst.first), lasts(inst.last);
  std::sort(firsts.begin(), firsts.end());
  std::sort(lasts.begin(), lasts.end());
  std::vector<uint64_t> degree(inst.count());
  for (size_t i = 0; i < inst.count(); ++i) {
    // Requests ending at or before i begins, or beginning at or after it ends,
    // are not live with it.
    uint64_t before = std::upper_bound(lasts.begin(), lasts.end(), inst.first[i]) - lasts.begin();
    uint64_t after = firsts.end() - std::lower_bound(firsts.begin(), firsts.end(), inst.last[i]);
    degree[i] = inst.count() - 1 - before - after;
  }
  return degree;
}

/// The number of pairs of requests live together (half the sum of the
/// degrees), by a sweep over the sections: O(n + S).
uint64_t conflictPairs(const Instance &inst) {
  std::vector<uint32_t> begins(static_cast<size_t>(inst.numSections) + 1, 0);
  std::vector<uint32_t> ends(static_cast<size_t>(inst.numSections) + 1, 0);
  for (size_t i = 0; i < inst.count(); ++i) {
    ++begins[inst.first[i]];
    ++ends[inst.last[i]];
  }
  uint64_t pairs = 0, live = 0;
  for (int32_t k = 0; k < inst.numSections; ++k) {
    live -= ends[k];
    // Each request that begins here meets every live one, including those
    // that began here before it.
    pairs += live * begins[k] + uint64_t{begins[k]} * (begins[k] - 1) / 2;
    live += begins[k];
  }
  return pairs;
}

enum class KeyKind { Area, Size, Length };

std::vector<double> baseKeys(const Instance &inst, KeyKind kind) {
  std::vector<double> key(inst.count());
  for (size_t i = 0; i < inst.count(); ++i) {
    double size = static_cast<double>(inst.size[i]);
    double length = static_cast<double>(inst.length(i));
    key[i] = kind == KeyKind::Area ? size * length : kind == KeyKind::Size ? size : length;
  }
  return key;
}

struct Best {
  Offsets offsets;
  int64_t peak = -1;
  std::string method;

  /// Keeps \p candidate if it is strictly smaller.
  bool offer(Offsets &&candidate, int64_t peak, std::string_view method) {
    if (this->peak >= 0 && peak >= this->peak)
      return false;
    offsets = std::move(candidate);
    this->peak = peak;
    this->method = std::string(method);
    return true;
  }
};

} // namespace

Offsets planArena(const Instance &inst, const PlanOptions &options, PlanStats &stats) {
  const size_t n = inst.count();
  if (n == 0) {
    stats.method = "empty";
    return {};
  }
  const uint64_t cap = linearCap(n, 64);
  Best best;
  auto done = [&] { return best.peak == inst.lowerBound; };

  // Sort keys shared by the members; ties are broken by index throughout.
  std::vector<uint64_t> sizeDown(n), lengthDown(n);
  for (size_t i = 0; i < n; ++i) {
    sizeDown[i] = descendingKey(static_cast<uint64_t>(inst.size[i]));
    lengthDown[i] = descendingKey(static_cast<uint64_t>(inst.length(i)));
  }
  const std::vector<uint32_t> longestFirst = orderByKeys(lengthDown, sizeDown);

  // Cheap members first: on network-shaped traces one of them usually
  // reaches the lower bound and ends the portfolio early.
  {
    Offsets offsets = placeSkyline(inst, longestFirst);
    int64_t peak = peakOf(inst, offsets);
    best.offer(std::move(offsets), peak, "skyline-longest");
  }

  // Best fit visits every pair of requests live together: skip it when
  // there are too many such pairs.
  const bool bestFitAffordable = !done() && conflictPairs(inst) <= cap;
  auto tryBestFit = [&](std::string_view name, auto makeOrder) {
    if (done() || !bestFitAffordable)
      return;
    std::optional<Offsets> offsets = placeBestFit(inst, makeOrder(), 4 * cap);
    if (offsets) {
      int64_t peak = peakOf(inst, *offsets);
      best.offer(std::move(*offsets), peak, name);
    }
  };
  tryBestFit("best-fit-size", [&] {
    std::vector<uint64_t> firstUp(inst.first.begin(), inst.first.end());
    return orderByKeys(sizeDown, firstUp);
  });

  std::optional<LevelDecoder> decoder;
  if (!done() && LevelDecoder::coverEntries(inst) <= linearCap(n, 8))
    decoder.emplace(inst);
  const std::pair<KeyKind, std::string_view> levelMembers[] = {{KeyKind::Area, "level-area"},
                                                               {KeyKind::Size, "level-size"},
                                                               {KeyKind::Length, "level-length"}};
  uint64_t diveWork = 0; // the most one decoder run has cost
  for (const auto &[kind, name] : levelMembers) {
    if (done() || !decoder)
      break;
    Offsets offsets;
    uint64_t work = 0;
    int64_t peak = decoder->run(baseKeys(inst, kind), offsets, work, cap);
    diveWork = std::max(diveWork, work);
    if (peak < 0) {
      decoder.reset(); // too slow on this input: no further runs
      break;
    }
    best.offer(std::move(offsets), peak, name);
  }

  tryBestFit("best-fit-size-length", [&] { return orderByKeys(sizeDown, lengthDown); });
  tryBestFit("best-fit-length-size", [&] { return longestFirst; });
  tryBestFit("best-fit-conflicts", [&] {
    std::vector<uint64_t> degree = conflictDegrees(inst);
    for (uint64_t &d : degree)
      d = descendingKey(d);
    return orderByKeys(degree, sizeDown);
  });
  tryBestFit("best-fit-area", [&] {
    // Positive doubles order like their bit patterns.
    std::vector<uint64_t> areaDown(n);
    for (size_t i = 0; i < n; ++i) {
      double area = static_cast<double>(inst.size[i]) * static_cast<double>(inst.length(i));
      uint64_t bits;
      std::memcpy(&bits, &area, sizeof bits);
      areaDown[i] = descendingKey(bits);
    }
    return orderByKeys(areaDown);
  });
  if (!done()) {
    Offsets offsets = placeOnlineBestFit(inst);
    int64_t peak = peakOf(inst, offsets);
    best.offer(std::move(offsets), peak, "online-best-fit");
  }
  stats.portfolioPeak = best.peak;

  // From effort 2: look for a plan at the lower bound itself.
  if (const uint64_t nodes = boundSearchNodes(options.effort); nodes > 0 && !done() &&
                                                                 n <= kBoundSearchLimit) {
    uint64_t used = 0;
    if (std::optional<Offsets> offsets = searchWithinCapacity(inst, inst.lowerBound, nodes, used)) {
      int64_t peak = peakOf(inst, *offsets);
      best.offer(std::move(*offsets), peak, "bound-search");
    }
    stats.searchWork += used;
  }

  // Squeaky wheel search, one run per base priority, each with a third of
  // the budget. It needs the decoder, and a budget worth a few runs at least.
  const uint64_t budget = searchBudget(options.effort);
  if (decoder && budget >= 8 * diveWork && !done()) {
    uint64_t used = 0;
    for (size_t m = 0; m < std::size(levelMembers) && !done(); ++m) {
      const uint64_t share = budget / std::size(levelMembers) * (m + 1);
      Rng rng(options.seed * 0x9e3779b97f4a7c15ULL + m + 1);
      std::vector<double> key = baseKeys(inst, levelMembers[m].first);
      Offsets offsets;
      int64_t runBest = -1;
      while (used < share && !done()) {
        int64_t peak = decoder->run(key, offsets, used);
        if (runBest < 0 || peak < runBest)
          runBest = peak;
        if (peak < best.peak)
          best.offer(Offsets(offsets), peak, "search");
        // Requests that end in the top eighth of this run's best plan are the
        // squeaky wheels: they move ahead. The others drift a little, which
        // keeps the search from cycling.
        const int64_t threshold = std::max(inst.lowerBound, runBest - runBest / 8);
        // The factors are exact dyadic numbers, so that no compiler's
        // rounding or fused multiply-add can change a plan.
        double largest = 0;
        for (size_t i = 0; i < n; ++i) {
          const double bits = static_cast<double>(rng.next() >> 44); // [0, 2^20)
          key[i] *= offsets[i] + inst.size[i] > threshold
                        ? 1.0 + bits * 0x1.0p-21               // [1, 1.5)
                        : 1.0 + (bits - 0x1.0p19) * 0x1.0p-22; // [0.875, 1.125)
          largest = std::max(largest, key[i]);
        }
        if (largest > 1e200)
          for (double &k : key)
            k /= largest;
      }
    }
    stats.searchWork += used;
  }
  stats.method = best.method;
  return std::move(best.offsets);
}

} // namespace wirc::plan::detail
