//===- wirc/plan/Planner.h - Offset planners ------------------------------===//
//
// Three strategies place the requests of a problem in one arena:
//
//   greedy-size  TFLite's greedy by size: largest first, each into the best
//                fitting gap among the requests it conflicts with. The
//                baseline.
//   pool         Inductor's pool planner (memory_planning.py): a tree of
//                temporal and spatial splits, 64-byte aligned, largest and
//                then longest-lived first.
//   arena        wirc's own: a portfolio of heuristics keeping the smallest
//                plan, then a bounded, deterministic improvement search whose
//                budget grows with the effort level.
//
// Every planner is deterministic: the same problem and options give the same
// offsets on every run and every machine.
//
//===----------------------------------------------------------------------===//
#ifndef WIRC_PLAN_PLANNER_H
#define WIRC_PLAN_PLANNER_H

#include "wirc/plan/Problem.h"

#include <cstdint>
#include <optional>
#include <span>
#include <string>
#include <string_view>

namespace wirc::plan {

enum class Strategy { GreedySize, Pool, Arena };

struct StrategyInfo {
  Strategy strategy;
  std::string_view name;    ///< as spelt on the command line
  std::string_view summary; ///< one line
};

/// Every strategy, in a fixed order.
std::span<const StrategyInfo> strategies();
/// The strategy spelt \p name, or nullopt.
std::optional<Strategy> parseStrategy(std::string_view name);
std::string_view strategyName(Strategy strategy);

/// The arena planner's default effort: the portfolio, then a search sized to
/// stay within tens of milliseconds on a few hundred requests.
inline constexpr unsigned kDefaultEffort = 1;
/// The largest effort level; each level quadruples the search budget.
inline constexpr unsigned kMaxEffort = 6;

struct PlanOptions {
  Strategy strategy = Strategy::Arena;
  /// Arena only. 0: the portfolio of heuristics alone. N > 0: the portfolio,
  /// then an improvement search with a budget of 1.5 million x 4^(N-1) work
  /// units (decoder steps, a few nanoseconds each). N >= 2 first searches
  /// for a plan at the lower bound, visiting up to 100,000 x 4^(N-2) nodes
  /// (problems of up to 4,000 requests).
  unsigned effort = kDefaultEffort;
  /// Arena only: seeds the search's random choices.
  uint64_t seed = 0;
};

/// How a plan was found.
struct PlanStats {
  /// The method that produced the plan: the strategy for greedy-size and
  /// pool, the winning portfolio member, "bound-search" or "search" for
  /// arena.
  std::string method;
  /// Arena: the best peak of the portfolio alone (before the search).
  int64_t portfolioPeak = 0;
  /// Arena: work units and nodes the searches used (deterministic, unlike
  /// time).
  uint64_t searchWork = 0;
};

struct PlanResult {
  Plan plan;
  PlanStats stats;
  /// Empty on success; otherwise why no plan was made (an invalid problem,
  /// or a plan that would exceed the 64-bit address space).
  std::string error;
  bool ok() const { return error.empty(); }
};

/// Plans \p problem with the strategy and options in \p options.
PlanResult planMemory(const Problem &problem, const PlanOptions &options = {});

} // namespace wirc::plan

#endif // WIRC_PLAN_PLANNER_H
