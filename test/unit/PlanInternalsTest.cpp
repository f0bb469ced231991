//===- PlanInternalsTest.cpp - The planners' building blocks -------------===//
//
// The radix sort, the floor tree and the instance (time compression and the
// lower bound) against plain oracles written here, and every strategy on
// problems large enough to take the radix paths, under the checker.
//
//===----------------------------------------------------------------------===//
#include "FloorTree.h"
#include "PlanInternal.h"
#include "RadixSort.h"

#include "wirc/plan/Checker.h"
#include "wirc/plan/Synthetic.h"

#include <catch2/catch.hpp>

#include <algorithm>
#include <random>

using namespace wirc::plan;
using namespace wirc::plan::detail;

namespace {

/// Keys of one of several shapes: full 64-bit, narrow, aligned, constant.
std::vector<uint64_t> makeKeys(size_t n, int shape, std::mt19937_64 &rng) {
  std::vector<uint64_t> keys(n);
  for (uint64_t &key : keys) {
    switch (shape) {
    case 0:
      key = rng();
      break;
    case 1:
      key = rng() % 7;
      break;
    case 2:
      key = (rng() % 5000) << 6; // aligned sizes: constant low digits
      break;
    case 3:
      key = 42;
      break;
    default:
      key = signedKey(static_cast<int64_t>(rng() % 2001) - 1000);
      break;
    }
  }
  return keys;
}

} // namespace

TEST_CASE("radix sort orders like a stable comparison sort", "[plan][radix]") {
  std::mt19937_64 rng(7);
  for (size_t n : {0, 1, 2, 255, 256, 257, 3000}) {
    for (int shape = 0; shape < 5; ++shape) {
      INFO("n " << n << " shape " << shape);
      std::vector<uint64_t> primary = makeKeys(n, shape, rng);
      std::vector<uint64_t> secondary = makeKeys(n, (shape + 1) % 5, rng);
      std::vector<uint32_t> expected(n);
      for (uint32_t i = 0; i < n; ++i)
        expected[i] = i;
      std::stable_sort(expected.begin(), expected.end(), [&](uint32_t a, uint32_t b) {
        if (primary[a] != primary[b])
          return primary[a] < primary[b];
        return secondary[a] < secondary[b];
      });
      CHECK(orderByKeys(primary, secondary) == expected);

      std::stable_sort(expected.begin(), expected.end(),
                       [&](uint32_t a, uint32_t b) { return primary[a] < primary[b]; });
      std::vector<uint32_t> byPrimary(n);
      for (uint32_t i = 0; i < n; ++i)
        byPrimary[i] = i;
      std::stable_sort(byPrimary.begin(), byPrimary.end(),
                       [&](uint32_t a, uint32_t b) { return primary[a] < primary[b]; });
      CHECK(orderByKeys(primary) == byPrimary);
    }
  }
  // The key transforms order as documented.
  CHECK(signedKey(-5) < signedKey(0));
  CHECK(signedKey(0) < signedKey(INT64_MAX));
  CHECK(signedKey(INT64_MIN) < signedKey(-1));
  CHECK(descendingKey(3) < descendingKey(2));
}

TEST_CASE("the floor tree agrees with a plain array", "[plan][floortree]") {
  std::mt19937_64 rng(11);
  for (int32_t sections : {1, 2, 3, 7, 64, 100, 1000}) {
    FloorTree tree(sections);
    std::vector<int64_t> floors(sections, 0);
    for (int step = 0; step < 2000; ++step) {
      int32_t first = static_cast<int32_t>(rng() % sections);
      int32_t last = first + 1 + static_cast<int32_t>(rng() % (sections - first));
      int64_t highest = *std::max_element(floors.begin() + first, floors.begin() + last);
      INFO("sections " << sections << " step " << step << " [" << first << ", " << last << ")");
      REQUIRE(tree.max(first, last) == highest);
      int64_t value = highest + 1 + static_cast<int64_t>(rng() % 50);
      tree.raise(first, last, value);
      std::fill(floors.begin() + first, floors.begin() + last, value);

      int32_t k = static_cast<int32_t>(rng() % sections);
      REQUIRE(tree.at(k) == floors[k]);
      int64_t level = floors[rng() % sections];
      int32_t before = -1;
      for (int32_t s = k - 1; s >= 0 && before < 0; --s)
        if (floors[s] > level)
          before = s;
      int32_t after = sections;
      for (int32_t s = k; s < sections && after == sections; ++s)
        if (floors[s] > level)
          after = s;
      REQUIRE(tree.lastAbove(k, level) == before);
      REQUIRE(tree.firstAbove(k, level) == after);
    }
  }
}

TEST_CASE("instances compress time and find the lower bound", "[plan][instance]") {
  std::mt19937_64 rng(3);
  for (uint64_t seed = 1; seed <= 40; ++seed) {
    // Sizes above and below the radix sort's cut-off, negative times too.
    const size_t n = seed % 2 ? 1 + seed * 13 % 200 : 300 + seed * 97 % 3000;
    Problem problem = makeRandomProblem(n, 5 + static_cast<int64_t>(seed % 300), 1000, seed,
                                        seed % 3 == 0);
    const int64_t shift = static_cast<int64_t>(rng() % 1000) - 500;
    for (Request &r : problem.requests) {
      r.begin += shift;
      r.end += shift;
    }
    INFO("seed " << seed << " n " << n);
    std::optional<Instance> inst = makeInstance(problem);
    REQUIRE(inst);
    CHECK(inst->lowerBound == *lowerBound(problem));

    std::vector<int64_t> times;
    for (size_t i = 0; i < inst->count(); ++i) {
      times.push_back(inst->begin[i]);
      times.push_back(inst->end[i]);
    }
    std::sort(times.begin(), times.end());
    times.erase(std::unique(times.begin(), times.end()), times.end());
    CHECK(inst->numSections == std::max<int32_t>(0, static_cast<int32_t>(times.size()) - 1));
    for (size_t i = 0; i < inst->count(); ++i) {
      REQUIRE(times[inst->first[i]] == inst->begin[i]);
      REQUIRE(times[inst->last[i]] == inst->end[i]);
      REQUIRE(inst->size[i] > 0);
    }
  }
}

TEST_CASE("instances report live bytes past int64", "[plan][instance][overflow]") {
  const int64_t half = INT64_MAX / 2 + 1;
  Problem overlapping{{{half, 0, 2}, {half, 1, 3}}};
  CHECK_FALSE(makeInstance(overlapping));
  CHECK_FALSE(lowerBound(overlapping));
  // The same sizes one after the other fit.
  Problem sequential{{{half, 0, 1}, {half, 1, 2}}};
  REQUIRE(makeInstance(sequential));
  CHECK(makeInstance(sequential)->lowerBound == half);
}

TEST_CASE("every strategy plans large random problems validly", "[plan][property]") {
  // Large enough for the radix sorts, and shaped so that every portfolio
  // member runs (random problems rarely meet the bound early).
  for (uint64_t seed = 1; seed <= 6; ++seed) {
    Problem problem = makeRandomProblem(400 + 300 * seed, 50 + 40 * static_cast<int64_t>(seed),
                                        1 << 16, seed, seed % 2 == 0);
    const int64_t bound = *lowerBound(problem);
    for (Strategy strategy : {Strategy::GreedySize, Strategy::Pool, Strategy::Arena}) {
      INFO("seed " << seed << " strategy " << strategyName(strategy));
      PlanOptions options;
      options.strategy = strategy;
      PlanResult result = planMemory(problem, options);
      REQUIRE(result.ok());
      CheckResult check = checkPlan(problem, result.plan);
      INFO((check.ok() ? "" : check.errors.front()));
      CHECK(check.ok());
      CHECK(result.plan.peak >= bound);
    }
  }
}

namespace {

/// A problem whose requests tile the rectangle [0, horizon) x [0, height)
/// exactly, by random guillotine cuts: its lower bound is the height, and a
/// plan at the bound exists.
Problem makeTiling(uint64_t seed, int pieces, int64_t horizon, int64_t height) {
  struct Box {
    int64_t begin, end, bottom, top;
  };
  std::mt19937_64 rng(seed);
  std::vector<Box> boxes{{0, horizon, 0, height}};
  for (int cut = 1; cut < pieces; ++cut) {
    // Split the box of largest area, across time or across bytes.
    size_t pick = 0;
    for (size_t i = 1; i < boxes.size(); ++i)
      if ((boxes[i].end - boxes[i].begin) * (boxes[i].top - boxes[i].bottom) >
          (boxes[pick].end - boxes[pick].begin) * (boxes[pick].top - boxes[pick].bottom))
        pick = i;
    Box box = boxes[pick];
    bool acrossTime = rng() % 2 == 0;
    if (box.end - box.begin < 2)
      acrossTime = false;
    if (box.top - box.bottom < 2)
      acrossTime = true;
    if (acrossTime && box.end - box.begin < 2)
      break;
    Box second = box;
    if (acrossTime) {
      int64_t at = box.begin + 1 + static_cast<int64_t>(rng() % (box.end - box.begin - 1));
      box.end = second.begin = at;
    } else {
      int64_t at = box.bottom + 1 + static_cast<int64_t>(rng() % (box.top - box.bottom - 1));
      box.top = second.bottom = at;
    }
    boxes[pick] = box;
    boxes.push_back(second);
  }
  Problem problem;
  for (const Box &box : boxes)
    problem.requests.push_back({box.top - box.bottom, box.begin, box.end, 1});
  return problem;
}

} // namespace

TEST_CASE("the bound search finds tilings and never exceeds its capacity", "[plan][search]") {
  int atBound = 0;
  const int cases = 40;
  for (uint64_t seed = 1; seed <= cases; ++seed) {
    Problem problem = makeTiling(seed, 10 + static_cast<int>(seed % 30), 64, 1000);
    std::optional<Instance> inst = makeInstance(problem);
    REQUIRE(inst);
    REQUIRE(inst->lowerBound == 1000);
    INFO("seed " << seed);
    uint64_t used = 0;
    std::optional<Offsets> offsets = searchWithinCapacity(*inst, inst->lowerBound, 100'000, used);
    CHECK(used <= 100'000);
    if (offsets) {
      ++atBound;
      Plan plan = toPlan(problem, *inst, *offsets);
      CHECK(plan.peak == 1000);
      CHECK(checkPlan(problem, plan).ok());
    }
    // Below the bound there is nothing to find.
    uint64_t below = 0;
    CHECK_FALSE(searchWithinCapacity(*inst, inst->lowerBound - 1, 100'000, below));

    // Through the arena at effort 2, the plan is at the bound whenever the
    // search finds one, and valid either way.
    PlanOptions options;
    options.effort = 2;
    PlanResult result = planMemory(problem, options);
    REQUIRE(result.ok());
    CHECK(checkPlan(problem, result.plan).ok());
    if (offsets)
      CHECK(result.plan.peak == 1000);
  }
  // The search is not complete, but on small tilings it must nearly always
  // succeed.
  CHECK(atBound >= cases * 9 / 10);
}

TEST_CASE("the bound search is deterministic and bounded", "[plan][search]") {
  Problem problem = makeRandomProblem(300, 80, 5000, 17, true);
  std::optional<Instance> inst = makeInstance(problem);
  REQUIRE(inst);
  uint64_t first = 0, second = 0;
  std::optional<Offsets> a = searchWithinCapacity(*inst, inst->lowerBound, 5000, first);
  std::optional<Offsets> b = searchWithinCapacity(*inst, inst->lowerBound, 5000, second);
  CHECK(first == second);
  CHECK(first <= 5000);
  CHECK(a.has_value() == b.has_value());
  if (a && b)
    CHECK(*a == *b);
}
