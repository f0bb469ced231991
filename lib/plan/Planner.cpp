//===- Planner.cpp - Strategy table and dispatch --------------------------===//
#include "PlanInternal.h"
#include "RadixSort.h"

#include "wirc/plan/Checker.h"

#include <array>

namespace wirc::plan {

namespace {

constexpr std::array<StrategyInfo, 3> kStrategies = {{
    {Strategy::GreedySize, "greedy-size", "largest first, into the best-fitting gap (TFLite)"},
    {Strategy::Pool, "pool", "Inductor's pool planner: temporal and spatial splits"},
    {Strategy::Arena, "arena", "wirc's portfolio of heuristics plus a bounded search"},
}};

/// Inductor aligns every pool offset to 64 bytes (ALIGN_BYTES); a larger
/// request alignment raises it so that every offset stays aligned.
constexpr int64_t kPoolAlignment = 64;

} // namespace

std::span<const StrategyInfo> strategies() { return kStrategies; }

std::optional<Strategy> parseStrategy(std::string_view name) {
  for (const StrategyInfo &info : kStrategies)
    if (info.name == name)
      return info.strategy;
  return std::nullopt;
}

std::string_view strategyName(Strategy strategy) {
  for (const StrategyInfo &info : kStrategies)
    if (info.strategy == strategy)
      return info.name;
  return "?";
}

PlanResult planMemory(const Problem &problem, const PlanOptions &options) {
  using namespace detail;
  PlanResult result;
  if (std::string error = validateRequests(problem); !error.empty()) {
    result.error = std::move(error);
    return result;
  }
  // The instance computes the lower bound as it compresses time; the
  // checker's separate lowerBound() is not needed to plan.
  std::optional<Instance> made = makeInstance(problem);
  if (!made) {
    result.error = kLiveOverflow;
    return result;
  }
  const Instance &inst = *made;
  try {
    Offsets offsets;
    switch (options.strategy) {
    case Strategy::GreedySize: {
      // The baseline runs to completion whatever it costs.
      // Largest first, then earliest (sections order like begin times).
      std::vector<uint64_t> sizeDown(inst.count()), firstUp(inst.count());
      for (size_t i = 0; i < inst.count(); ++i) {
        sizeDown[i] = descendingKey(static_cast<uint64_t>(inst.size[i]));
        firstUp[i] = static_cast<uint64_t>(inst.first[i]);
      }
      std::vector<uint32_t> order = orderByKeys(sizeDown, firstUp);
      offsets = *placeBestFit(inst, order, UINT64_MAX);
      result.stats.method = "greedy-size";
      break;
    }
    case Strategy::Pool: {
      int64_t alignment = kPoolAlignment;
      for (const Request &r : problem.requests)
        alignment = std::max(alignment, r.alignment);
      offsets = placePool(inst, alignment);
      result.stats.method = "pool";
      break;
    }
    case Strategy::Arena:
      offsets = planArena(inst, options, result.stats);
      break;
    }
    result.plan = toPlan(problem, inst, offsets);
  } catch (const PlanOverflow &e) {
    result.plan = {};
    result.error = e.what();
  }
  return result;
}

} // namespace wirc::plan
