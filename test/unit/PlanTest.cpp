//===- PlanTest.cpp - Memory planner: checker, bound, strategies ----------===//
#include "wirc/plan/Checker.h"
#include "wirc/plan/Planner.h"
#include "wirc/plan/Synthetic.h"
#include "wirc/plan/Trace.h"

#include <catch2/catch.hpp>

#include <limits>

using namespace wirc;
using namespace wirc::plan;

namespace {

constexpr int64_t kMax = std::numeric_limits<int64_t>::max();

Problem problemOf(std::initializer_list<Request> requests) { return Problem{requests}; }

Plan planOf(std::vector<int64_t> offsets, int64_t peak) { return Plan{std::move(offsets), peak}; }

/// MiniMalloc's example: capacity 12 is optimal.
Problem minimallocExample() {
  return problemOf({{4, 0, 3}, {4, 3, 9}, {4, 0, 9}, {4, 9, 21}, {4, 0, 21}});
}

PlanResult planWith(const Problem &problem, Strategy strategy, unsigned effort = kDefaultEffort) {
  PlanOptions options;
  options.strategy = strategy;
  options.effort = effort;
  return planMemory(problem, options);
}

} // namespace

TEST_CASE("the checker accepts valid plans", "[plan][checker]") {
  Problem problem = problemOf({{10, 0, 2}, {10, 2, 4}, {5, 1, 3}});
  // [0, 2) and [2, 4) do not conflict: the same bytes may serve both.
  CHECK(checkPlan(problem, planOf({0, 0, 10}, 15)).ok());
  CHECK(checkPlan(problem, planOf({5, 5, 0}, 15)).ok());
}

TEST_CASE("the checker rejects overlaps, misalignment and a wrong peak", "[plan][checker]") {
  Problem problem = problemOf({{10, 0, 2}, {10, 1, 3}});
  CheckResult overlap = checkPlan(problem, planOf({0, 9}, 19));
  REQUIRE(overlap.errors.size() == 1);
  CHECK(overlap.errors[0] == "requests 0 and 1 are live at time 1 and overlap in memory");
  // Touching in memory is fine.
  CHECK(checkPlan(problem, planOf({0, 10}, 20)).ok());

  CheckResult peak = checkPlan(problem, planOf({0, 10}, 19));
  REQUIRE(peak.errors.size() == 1);
  CHECK(peak.errors[0] == "the plan's peak is 19 but its buffers reach 20");

  Problem aligned = problemOf({{10, 0, 2, 8}, {10, 0, 2, 8}});
  CheckResult misaligned = checkPlan(aligned, planOf({0, 12}, 28));
  REQUIRE_FALSE(misaligned.ok());
  CHECK(misaligned.errors[0] == "request 1: offset 12 is not a multiple of its alignment 8");
  // The padded size counts: 10 bytes aligned to 8 occupy 16.
  CHECK_FALSE(checkPlan(aligned, planOf({0, 10}, 26)).ok());
  CHECK(checkPlan(aligned, planOf({0, 16}, 32)).ok());

  CHECK_FALSE(checkPlan(problem, planOf({0}, 10)).ok());
  CHECK_FALSE(checkPlan(problem, planOf({-10, 0}, 10)).ok());
  CHECK_FALSE(checkPlan(problem, planOf({kMax - 5, 0}, 10)).ok());
}

TEST_CASE("zero-size requests occupy nothing", "[plan][checker]") {
  Problem problem = problemOf({{0, 0, 5}, {10, 0, 5}, {0, 2, 3}});
  CHECK(checkPlan(problem, planOf({3, 0, 7}, 10)).ok());
  CHECK(lowerBound(problem) == 10);
  for (const StrategyInfo &info : strategies()) {
    PlanResult result = planWith(problem, info.strategy);
    REQUIRE(result.ok());
    CHECK(result.plan.peak == 10);
    CHECK(checkPlan(problem, result.plan).ok());
  }
}

TEST_CASE("the lower bound counts bytes live at once", "[plan][bound]") {
  CHECK(lowerBound(minimallocExample()) == 12);
  CHECK(lowerBound(Problem{}) == 0);
  // Ranges that touch are never live together.
  CHECK(lowerBound(problemOf({{7, 0, 1}, {7, 1, 2}, {7, 2, 3}})) == 7);
  CHECK(lowerBound(problemOf({{7, 0, 2}, {7, 1, 2}, {7, 1, 3}})) == 21);
  // Padding counts.
  CHECK(lowerBound(problemOf({{1, 0, 1, 64}, {1, 0, 1, 64}})) == 128);
  CHECK(lowerBound(problemOf({{kMax, 0, 1}})) == kMax);
  CHECK_FALSE(lowerBound(problemOf({{kMax, 0, 2}, {1, 1, 2}})));
  CHECK(lowerBound(problemOf({{kMax, 0, 1}, {kMax, 1, 2}})) == kMax);
}

TEST_CASE("invalid problems are rejected with a reason", "[plan][validate]") {
  CHECK(validateProblem(problemOf({{-1, 0, 1}})) == "request 0: negative size -1");
  CHECK(validateProblem(problemOf({{1, 0, 1}, {1, 3, 3}})) ==
        "request 1: live range [3, 3) is empty or reversed");
  CHECK(validateProblem(problemOf({{1, 4, 3}})) ==
        "request 0: live range [4, 3) is empty or reversed");
  CHECK(validateProblem(problemOf({{1, 0, 1, 3}})) ==
        "request 0: alignment 3 is not a power of two");
  CHECK(validateProblem(problemOf({{1, 0, 1, 0}})) ==
        "request 0: alignment 0 is not a power of two");
  CHECK(validateProblem(problemOf({{kMax, 0, 1, 64}})) ==
        "request 0: size 9223372036854775807 aligned to 64 overflows int64");
  CHECK(validateProblem(problemOf({{kMax / 2 + 1, 0, 2}, {kMax / 2 + 1, 1, 3}})) ==
        "the bytes live at one time step overflow int64");
  CHECK(validateProblem(minimallocExample()).empty());

  PlanResult result = planWith(problemOf({{-1, 0, 1}}), Strategy::Arena);
  CHECK_FALSE(result.ok());
  CHECK(result.error == "request 0: negative size -1");
}

TEST_CASE("huge sizes plan without overflow", "[plan][overflow]") {
  // Each fits alone and they never meet, so the plan fits too.
  Problem apart = problemOf({{kMax, 0, 1}, {kMax, 1, 2}, {kMax - 1, 2, 3}});
  for (Strategy strategy : {Strategy::GreedySize, Strategy::Arena}) {
    PlanResult result = planWith(apart, strategy);
    INFO(strategyName(strategy));
    REQUIRE(result.ok());
    CHECK(result.plan.peak == kMax);
    CHECK(checkPlan(apart, result.plan).ok());
  }
  // The pool sizes the split that holds the third request as its aligned
  // size plus the free byte beside it: past int64, reported, not wrapped.
  PlanResult apartPool = planWith(apart, Strategy::Pool);
  CHECK(apartPool.error == "the plan exceeds the 64-bit address space");
  // Live together they fit exactly.
  const int64_t half = kMax / 2;
  Problem together = problemOf({{half - 1, 0, 2}, {half + 2, 0, 2}});
  PlanResult arena = planWith(together, Strategy::Arena);
  REQUIRE(arena.ok());
  CHECK(arena.plan.peak == kMax);
  // The pool puts the second one at the first one's size aligned to 64
  // bytes: past int64.
  PlanResult pool = planWith(together, Strategy::Pool);
  CHECK_FALSE(pool.ok());
  CHECK(pool.error == "the plan exceeds the 64-bit address space");
}

TEST_CASE("identical ranges and single steps stack exactly", "[plan][edge]") {
  Problem same;
  for (int i = 0; i < 20; ++i)
    same.requests.push_back({static_cast<int64_t>(8 * (i % 5 + 1)), 3, 4, 8});
  const int64_t bound = *lowerBound(same);
  CHECK(bound == 4 * (8 + 16 + 24 + 32 + 40));
  for (const StrategyInfo &info : strategies()) {
    PlanResult result = planWith(same, info.strategy);
    REQUIRE(result.ok());
    CHECK(checkPlan(same, result.plan).ok());
    if (info.strategy != Strategy::Pool)
      CHECK(result.plan.peak == bound);
  }
}

TEST_CASE("greedy-size puts each request into the best-fitting gap", "[plan][greedy-size]") {
  // Largest first: a, b, c, e, d, f. d finds the gap [100, 180) left below
  // e where b has ended and c has not begun.
  Problem problem = problemOf({{100, 0, 10}, // a
                               {80, 0, 4},   // b
                               {60, 6, 10},  // c
                               {20, 4, 6},   // d
                               {40, 0, 10},  // e
                               {10, 0, 2}}); // f
  PlanResult result = planWith(problem, Strategy::GreedySize);
  REQUIRE(result.ok());
  CHECK(result.plan.offsets == std::vector<int64_t>{0, 100, 100, 100, 180, 220});
  CHECK(result.plan.peak == 230);
}

TEST_CASE("pool follows Inductor's split rules", "[plan][pool]") {
  // Equal sizes that never meet share one slot of a temporal split.
  PlanResult shared = planWith(problemOf({{100, 0, 2}, {100, 2, 4}}), Strategy::Pool);
  REQUIRE(shared.ok());
  CHECK(shared.plan.offsets == std::vector<int64_t>{0, 0});

  // a is live with b, so b goes after the pool at align(100) = 128. c fits
  // in b's slot after b ends, as a split of c and 20 free bytes, which is
  // align(40) + 20 = 84 bytes wide. d is live with both b and c, which a
  // temporal split refuses, so it goes after the pool again: at
  // align(128 + 84) = 256.
  Problem problem = problemOf({{100, 0, 4}, {60, 0, 2}, {40, 2, 4}, {30, 0, 4}});
  PlanResult result = planWith(problem, Strategy::Pool);
  REQUIRE(result.ok());
  CHECK(result.plan.offsets == std::vector<int64_t>{0, 128, 128, 256});
  CHECK(result.plan.peak == 286);
  CHECK(lowerBound(problem) == 190);
}

TEST_CASE("arena reaches the optimum on MiniMalloc's example", "[plan][arena]") {
  Problem problem = minimallocExample();
  for (unsigned effort : {0u, 1u, 3u}) {
    PlanResult result = planWith(problem, Strategy::Arena, effort);
    REQUIRE(result.ok());
    CHECK(result.plan.peak == 12);
    CHECK(checkPlan(problem, result.plan).ok());
  }
}

TEST_CASE("arena reaches the bound on network-shaped traces", "[plan][arena]") {
  for (size_t n : {100u, 1000u, 5000u}) {
    for (bool training : {false, true}) {
      Problem problem = training ? makeTrainingTrace(n, 7) : makeInferenceTrace(n, 7);
      INFO((training ? "training " : "inference ") << n);
      PlanResult result = planWith(problem, Strategy::Arena);
      REQUIRE(result.ok());
      CHECK(checkPlan(problem, result.plan).ok());
      // Within 0.1% of the bound.
      CHECK(result.plan.peak * 1000 <= *lowerBound(problem) * 1001);
    }
  }
}

TEST_CASE("synthetic traces are deterministic and shaped as documented", "[plan][synthetic]") {
  Problem a = makeInferenceTrace(2000, 3), b = makeInferenceTrace(2000, 3);
  REQUIRE(a.requests.size() == 2000);
  bool same = true;
  for (size_t i = 0; i < a.requests.size(); ++i)
    same = same && a.requests[i].size == b.requests[i].size &&
           a.requests[i].begin == b.requests[i].begin && a.requests[i].end == b.requests[i].end;
  CHECK(same);
  Problem c = makeInferenceTrace(2000, 4);
  bool differs = false;
  for (size_t i = 0; i < a.requests.size(); ++i)
    differs = differs || a.requests[i].size != c.requests[i].size;
  CHECK(differs);

  Problem training = makeTrainingTrace(2000, 3);
  REQUIRE(training.requests.size() == 2000);
  CHECK(validateProblem(training).empty());
  // Saved activations make training need far more memory than inference.
  CHECK(*lowerBound(training) > 4 * *lowerBound(a));
}

TEST_CASE("strategy names round-trip", "[plan]") {
  for (const StrategyInfo &info : strategies())
    CHECK(parseStrategy(info.name) == info.strategy);
  CHECK(strategyName(Strategy::Arena) == "arena");
  CHECK_FALSE(parseStrategy("reuse"));
}

TEST_CASE("traces read with CRLF line ends and blank lines", "[plan][trace]") {
  DiagnosticEngine diag;
  std::optional<Trace> trace =
      readTrace("id,lower,upper,size\r\nb1,0,3,4\r\n\r\nb2,3,9,4\r\n", diag, 8);
  REQUIRE(trace);
  CHECK(trace->ids == std::vector<std::string>{"b1", "b2"});
  REQUIRE(trace->problem.requests.size() == 2);
  CHECK(trace->problem.requests[1].begin == 3);
  CHECK(trace->problem.requests[1].end == 9);
  CHECK(trace->problem.requests[1].alignment == 8);

  DiagnosticEngine bad;
  CHECK_FALSE(readTrace("id,lower,upper,size\nb1,0,3,+4\nb2,-3,9,4\n", bad));
  REQUIRE(bad.diagnostics().size() == 1);
  CHECK(bad.diagnostics()[0].pos.line == 2);
  CHECK(bad.diagnostics()[0].pos.column == 8);
}
