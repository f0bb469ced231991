//===- PlanPropertyTest.cpp - Random instances through every planner -----===//
//
// Every strategy's plan of every random instance must pass the checker, and
// the checker and the lower bound must agree with brute-force oracles written
// here, independently of both.
//
//===----------------------------------------------------------------------===//
#include "wirc/plan/Checker.h"
#include "wirc/plan/Planner.h"
#include "wirc/plan/Synthetic.h"

#include <catch2/catch.hpp>

#include <algorithm>
#include <random>

using namespace wirc::plan;

namespace {

/// Every pair, every time step: obviously right and quadratic.
bool bruteForceValid(const Problem &problem, const Plan &plan) {
  const size_t n = problem.requests.size();
  int64_t peak = 0;
  for (size_t i = 0; i < n; ++i) {
    const Request &a = problem.requests[i];
    int64_t padded = (a.size + a.alignment - 1) / a.alignment * a.alignment;
    if (plan.offsets[i] < 0 || plan.offsets[i] % a.alignment != 0)
      return false;
    if (padded > 0)
      peak = std::max(peak, plan.offsets[i] + padded);
    for (size_t j = i + 1; j < n; ++j) {
      const Request &b = problem.requests[j];
      int64_t paddedB = (b.size + b.alignment - 1) / b.alignment * b.alignment;
      bool liveTogether = a.begin < b.end && b.begin < a.end;
      bool shareBytes = padded > 0 && paddedB > 0 && plan.offsets[i] < plan.offsets[j] + paddedB &&
                        plan.offsets[j] < plan.offsets[i] + padded;
      if (liveTogether && shareBytes)
        return false;
    }
  }
  return peak == plan.peak;
}

int64_t bruteForceBound(const Problem &problem, int64_t horizon) {
  int64_t best = 0;
  for (int64_t t = 0; t < horizon; ++t) {
    int64_t live = 0;
    for (const Request &r : problem.requests)
      if (r.begin <= t && t < r.end)
        live += (r.size + r.alignment - 1) / r.alignment * r.alignment;
    best = std::max(best, live);
  }
  return best;
}

PlanResult planWith(const Problem &problem, Strategy strategy, unsigned effort, uint64_t seed = 0) {
  PlanOptions options;
  options.strategy = strategy;
  options.effort = effort;
  options.seed = seed;
  return planMemory(problem, options);
}

} // namespace

TEST_CASE("every strategy's plan passes the checker and the oracle", "[plan][property]") {
  for (uint64_t seed = 1; seed <= 60; ++seed) {
    const size_t n = 1 + seed * 7 % 90;
    const int64_t horizon = 2 + static_cast<int64_t>(seed % 40);
    Problem problem = makeRandomProblem(n, horizon, 1 + static_cast<int64_t>(seed * 37 % 500), seed,
                                        seed % 3 == 0);
    REQUIRE(validateProblem(problem).empty());
    const int64_t bound = *lowerBound(problem);
    REQUIRE(bound == bruteForceBound(problem, horizon));

    int64_t greedyPeak = 0, arenaPeak = 0;
    for (const auto &[strategy, effort] :
         {std::pair{Strategy::GreedySize, 0u}, std::pair{Strategy::Pool, 0u},
          std::pair{Strategy::Arena, 0u}, std::pair{Strategy::Arena, 2u}}) {
      INFO("seed " << seed << " strategy " << strategyName(strategy) << " effort " << effort);
      PlanResult result = planWith(problem, strategy, effort);
      REQUIRE(result.ok());
      CHECK(checkPlan(problem, result.plan).ok());
      CHECK(bruteForceValid(problem, result.plan));
      CHECK(result.plan.peak >= bound);
      if (strategy == Strategy::GreedySize)
        greedyPeak = result.plan.peak;
      if (strategy == Strategy::Arena) {
        // The portfolio contains greedy by size; the search only improves.
        CHECK(result.plan.peak <= greedyPeak);
        if (effort > 0)
          CHECK(result.plan.peak <= arenaPeak);
        arenaPeak = result.plan.peak;
      }
    }
  }
}

TEST_CASE("the checker agrees with the oracle on broken plans", "[plan][property]") {
  std::mt19937_64 rng(12345);
  int rejected = 0;
  for (uint64_t seed = 1; seed <= 200; ++seed) {
    Problem problem = makeRandomProblem(2 + seed % 25, 12, 64, seed, seed % 2 == 0);
    PlanResult result = planWith(problem, Strategy::Arena, 0);
    REQUIRE(result.ok());
    Plan broken = result.plan;
    // Move one request onto another's offset, or off its alignment.
    size_t victim = rng() % broken.offsets.size();
    size_t other = rng() % broken.offsets.size();
    broken.offsets[victim] = rng() % 4 == 0 ? broken.offsets[victim] + 1 : broken.offsets[other];
    // Keep the peak consistent so that only the placement can be wrong.
    broken.peak = 0;
    for (size_t i = 0; i < broken.offsets.size(); ++i) {
      const Request &r = problem.requests[i];
      int64_t padded = (r.size + r.alignment - 1) / r.alignment * r.alignment;
      if (padded > 0)
        broken.peak = std::max(broken.peak, broken.offsets[i] + padded);
    }
    bool valid = bruteForceValid(problem, broken);
    INFO("seed " << seed);
    CHECK(checkPlan(problem, broken).ok() == valid);
    rejected += valid ? 0 : 1;
  }
  // The mutations must actually produce invalid plans for this to test much.
  CHECK(rejected > 50);
}

TEST_CASE("plans are deterministic", "[plan][property]") {
  Problem problem = makeRandomProblem(300, 60, 4096, 99, true);
  for (const StrategyInfo &info : strategies()) {
    PlanResult first = planWith(problem, info.strategy, 2, 5);
    PlanResult second = planWith(problem, info.strategy, 2, 5);
    CHECK(first.plan.offsets == second.plan.offsets);
  }
}
