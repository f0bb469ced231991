//===- MemoryPlanTest.cpp - plan-memory's strategies and their checks -----===//
#include "TestUtil.h"

#include "../../lib/passes/MemoryPlanning.h"
#include "../../lib/passes/PeakProfile.h"
#include "wirc/ir/Verifier.h"

#include <catch2/catch.hpp>
#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include <algorithm>
#include <random>
#include <set>

using namespace wirc;
using Json = nlohmann::ordered_json;
using passes::MemoryPlan;

namespace {

Json tensor(const std::string &name, Json size, const std::string &dtype = "float32") {
  return {{"name", name}, {"dtype", dtype}, {"device", "cuda:0"}, {"size", {size}}, {"stride", {1}}};
}

/// A random graph: each kernel reads 1-3 earlier tensors (sometimes through a
/// reinterpret view) and writes a new buffer of a random size, dtype and,
/// with \p symbolic, sometimes the symbolic size s0. Some buffers are
/// outputs. With \p fewSizes, buffers are float32 of two sizes, so that
/// freed storage is taken over often.
Json randomGraph(std::mt19937_64 &rng, int numKernels, bool symbolic, bool fewSizes = false) {
  Json inputs = Json::array(), buffers = Json::array(), kernels = Json::array(),
       nodes = Json::array(), outputs = Json::array();
  std::vector<std::string> tensors;
  Json symbols = Json::array();
  if (symbolic) {
    symbols.push_back({{"name", "s0"}, {"hint", 48}});
    inputs.push_back({{"name", "s0"}, {"kind", "symbol"}});
  }
  inputs.push_back(tensor("arg0_1", 64));
  tensors.push_back("arg0_1");
  const char *dtypes[] = {"float32", "float16", "int64", "uint8"};
  for (int k = 0; k < numKernels; ++k) {
    std::string name = fmt::format("k{}", k);
    kernels.push_back({{"name", name},
                       {"language", "triton"},
                       {"source", "..."},
                       {"configs", {{{"kwargs", {{"XBLOCK", 64}}}}}}});
    Json args = Json::array();
    std::set<std::string> chosen;
    int reads = 1 + static_cast<int>(rng() % 3);
    for (int r = 0; r < reads; ++r)
      chosen.insert(tensors[rng() % tensors.size()]);
    for (const std::string &t : chosen) {
      if (rng() % 4 == 0 && t != "arg0_1")
        args.push_back({{"role", "input"},
                        {"view", {{"base", t}, {"size", {1}}, {"stride", {1}}, {"offset", 0}}}});
      else
        args.push_back({{"role", "input"}, {"buffer", t}});
    }
    std::string out = fmt::format("buf{}", k);
    Json size = symbolic && rng() % 3 == 0 ? Json("s0")
                : fewSizes                   ? Json(64 << (rng() % 2))
                                             : Json(1 + static_cast<int>(rng() % 300));
    buffers.push_back(tensor(out, size, fewSizes ? "float32" : dtypes[rng() % 4]));
    // Static extents that name a symbol: a stride-0 dimension of size s0,
    // constants written as expressions.
    if (symbolic && rng() % 4 == 0) {
      Json &b = buffers.back();
      int n = 1 + static_cast<int>(rng() % 300);
      switch (rng() % 3) {
      case 0:
        b["size"] = {"s0", n};
        b["stride"] = {0, 1};
        break;
      case 1:
        b["size"] = {fmt::format("s0 - s0 + {}", n)};
        break;
      default:
        b["size"] = {"s0", n};
        b["stride"] = {"0*s0", "1 + 0*s0"};
        break;
      }
    }
    args.push_back({{"role", "output"}, {"buffer", out}});
    nodes.push_back({{"op", "kernel_call"}, {"kernel", name}, {"args", args}, {"numels", {{"xnumel", 64}}}});
    tensors.push_back(out);
  }
  for (int k = 0; k < numKernels; ++k)
    if (k + 1 == numKernels || rng() % 5 == 0)
      outputs.push_back({{"buffer", fmt::format("buf{}", k)}});
  Json doc = {{"format", "wirc.graph"}, {"version", 1}, {"name", "g"}};
  if (symbolic)
    doc["symbols"] = symbols;
  doc["inputs"] = inputs;
  doc["buffers"] = buffers;
  doc["kernels"] = kernels;
  doc["nodes"] = nodes;
  doc["outputs"] = outputs;
  return doc;
}

struct Compiled {
  ir::Module module;
  int64_t lowerBound = 0;
  int64_t peak = 0;
};

Compiled compileWith(const graph::Document &doc, MemoryPlan plan) {
  DiagnosticEngine diag;
  passes::CompileOptions options;
  options.memoryPlan = plan;
  options.verifyPlan = true;
  Compiled c;
  REQUIRE(test::compile(doc, c.module, diag, options));
  for (const ir::MemoryPlanStats &s : c.module.memoryStats) {
    c.lowerBound += s.lowerBound;
    c.peak += s.peak;
    CHECK(s.strategy == std::string(passes::memoryPlanName(plan)));
  }
  return c;
}

} // namespace

TEST_CASE("every strategy's plan passes the checker and never beats the bound",
          "[plan-memory][property]") {
  std::mt19937_64 rng(7);
  int pooled = 0;
  for (int trial = 0; trial < 120; ++trial) {
    Json json = randomGraph(rng, 2 + trial % 29, trial % 2 == 1);
    DiagnosticEngine diag;
    auto doc = test::read(json.dump(), diag);
    REQUIRE(doc);
    Compiled none = compileWith(*doc, MemoryPlan::None);
    Compiled reuse = compileWith(*doc, MemoryPlan::Reuse);
    Compiled pool = compileWith(*doc, MemoryPlan::Pool);
    Compiled arena = compileWith(*doc, MemoryPlan::Arena);
    INFO(json.dump());
    // The bound depends on liveness only, not on the strategy.
    CHECK(reuse.lowerBound == none.lowerBound);
    CHECK(pool.lowerBound == none.lowerBound);
    CHECK(arena.lowerBound == none.lowerBound);
    CHECK(none.peak == none.lowerBound);
    CHECK(reuse.peak >= reuse.lowerBound);
    // Reuse never keeps storage alive where that would raise the peak.
    CHECK(reuse.peak <= none.peak);
    CHECK(pool.peak >= pool.lowerBound);
    CHECK(arena.peak >= arena.lowerBound);
    // The arena falls back to reuse rather than cost more.
    CHECK(arena.peak <= reuse.peak);
    for (const ir::Module *m : {&pool.module, &arena.module}) {
      CHECK(ir::verifyModule(*m).empty());
      pooled += static_cast<int>(m->pools.size());
      // No output lives in a pool.
      for (const ir::Line &line : m->main().lines)
        if (const auto *a = std::get_if<ir::AllocateFromPoolLine>(&line))
          for (const ir::Line &l : m->main().lines)
            if (const auto *o = std::get_if<ir::OutputLine>(&l))
              for (const ir::Value &v : o->outputs)
                ir::forEachBuffer(v, [&](ir::BufferId b) { CHECK(b != a->buffer); });
    }
  }
  CHECK(pooled > 50);
}

TEST_CASE("symbolic extents never enter a pool", "[plan-memory]") {
  std::mt19937_64 rng(11);
  int pooledSymbolic = 0;
  for (int trial = 0; trial < 40; ++trial) {
    Json json = randomGraph(rng, 3 + trial % 17, true);
    DiagnosticEngine diag;
    auto doc = test::read(json.dump(), diag);
    REQUIRE(doc);
    for (MemoryPlan plan : {MemoryPlan::Pool, MemoryPlan::Arena}) {
      Compiled c = compileWith(*doc, plan);
      for (const ir::Line &line : c.module.main().lines)
        if (const auto *a = std::get_if<ir::AllocateFromPoolLine>(&line)) {
          // Every dimension has a constant size or spans nothing.
          const graph::Layout &layout = c.module.buffer(a->buffer).layout;
          for (size_t i = 0; i < layout.size.size(); ++i)
            CHECK((sym::simplify(layout.size[i]).isConstant() ||
                   sym::simplify(layout.stride[i]).constant() == std::optional<int64_t>(0)));
          pooledSymbolic += !std::all_of(layout.size.begin(), layout.size.end(),
                                         [](const sym::Expr &e) { return e.isConstant(); });
        }
    }
  }
  // The generator's static extents that name s0 do get pooled.
  CHECK(pooledSymbolic > 0);
}

TEST_CASE("pool and arena plans of a graph are deterministic", "[plan-memory]") {
  std::mt19937_64 rng(3);
  Json json = randomGraph(rng, 40, true);
  DiagnosticEngine diag;
  auto doc = test::read(json.dump(), diag);
  REQUIRE(doc);
  for (MemoryPlan plan : {MemoryPlan::Pool, MemoryPlan::Arena}) {
    std::string first = ir::printModule(compileWith(*doc, plan).module);
    CHECK(ir::printModule(compileWith(*doc, plan).module) == first);
  }
}

TEST_CASE("verify-plan rejects a corrupted plan", "[plan-memory]") {
  std::mt19937_64 rng(5);
  int corrupted = 0;
  for (int trial = 0; trial < 60 && corrupted < 10; ++trial) {
    Json json = randomGraph(rng, 12 + trial % 10, false);
    DiagnosticEngine diag;
    auto doc = test::read(json.dump(), diag);
    REQUIRE(doc);
    Compiled c = compileWith(*doc, MemoryPlan::Arena);
    // Move the second carved buffer of a pool onto the first: they are live
    // together in some plans, which the checker must then reject.
    std::vector<ir::AllocateFromPoolLine *> carved;
    for (ir::Line &line : c.module.main().lines)
      if (auto *a = std::get_if<ir::AllocateFromPoolLine>(&line))
        carved.push_back(a);
    if (carved.size() < 2 || carved[0]->pool != carved[1]->pool)
      continue;
    ir::Module broken = c.module;
    for (ir::Line &line : broken.main().lines)
      if (auto *a = std::get_if<ir::AllocateFromPoolLine>(&line); a && a->buffer == carved[1]->buffer)
        a->offset = carved[0]->offset;
    bool overlapsInTime = false;
    {
      // Live together when the second begins before the first's last use.
      size_t second = 0, lastUseOfFirst = 0;
      const auto &lines = broken.main().lines;
      for (size_t i = 0; i < lines.size(); ++i) {
        if (const auto *a = std::get_if<ir::AllocateFromPoolLine>(&lines[i]);
            a && a->buffer == carved[1]->buffer)
          second = i;
        ir::forEachUse(lines[i], [&](ir::BufferId b) {
          const ir::BufferInfo &info = broken.buffer(b);
          if (b == carved[0]->buffer ||
              (info.kind == ir::BufferKind::View && info.viewBase == carved[0]->buffer))
            lastUseOfFirst = i;
        });
      }
      overlapsInTime = second < lastUseOfFirst;
    }
    if (!overlapsInTime)
      continue;
    ++corrupted;
    CHECK_THROWS_WITH(passes::memory::verifyPlans(broken, 0, MemoryPlan::Arena),
                      Catch::Contains("--verify-plan: the arena memory plan of 'g' is invalid"));
  }
  CHECK(corrupted > 0);
}

TEST_CASE("the verifier checks pool lines", "[verifier]") {
  // The first random graph whose arena plan carves buffers of several
  // bytes per element.
  std::mt19937_64 rng(9);
  Compiled c;
  for (int trial = 0; trial < 100; ++trial) {
    Json json = randomGraph(rng, 20, false);
    DiagnosticEngine diag;
    auto doc = test::read(json.dump(), diag);
    REQUIRE(doc);
    c = compileWith(*doc, MemoryPlan::Arena);
    bool wide = false;
    for (const ir::Line &line : c.module.main().lines)
      if (const auto *a = std::get_if<ir::AllocateFromPoolLine>(&line))
        wide |= graph::dtypeSize(c.module.buffer(a->buffer).layout.dtype) > 1;
    if (wide)
      break;
  }
  REQUIRE(!c.module.pools.empty());
  auto firstError = [](const ir::Module &m) {
    std::vector<std::string> errors = ir::verifyModule(m);
    return errors.empty() ? std::string() : errors.front();
  };
  REQUIRE(firstError(c.module).empty());

  SECTION("a pool that is never freed") {
    auto &lines = c.module.main().lines;
    lines.erase(std::find_if(lines.begin(), lines.end(), [](const ir::Line &l) {
      return std::holds_alternative<ir::PoolFreeLine>(l);
    }));
    CHECK_THAT(firstError(c.module), Catch::Contains("is never freed"));
  }
  SECTION("a buffer used after its pool was freed") {
    auto &lines = c.module.main().lines;
    auto free = std::find_if(lines.begin(), lines.end(), [](const ir::Line &l) {
      return std::holds_alternative<ir::PoolFreeLine>(l);
    });
    ir::Line moved = *free;
    lines.erase(free);
    // Free the pool right after the first carved buffer's definition.
    auto carved = std::find_if(lines.begin(), lines.end(), [](const ir::Line &l) {
      return std::holds_alternative<ir::AllocateFromPoolLine>(l);
    });
    lines.insert(carved + 1, moved);
    CHECK_THAT(firstError(c.module), Catch::Contains("after its pool"));
  }
  SECTION("an offset that is not a multiple of the item size") {
    for (ir::Line &line : c.module.main().lines)
      if (auto *a = std::get_if<ir::AllocateFromPoolLine>(&line);
          a && graph::dtypeSize(c.module.buffer(a->buffer).layout.dtype) > 1) {
        a->offset += 1;
        break;
      }
    CHECK_THAT(firstError(c.module), Catch::Contains("not a multiple of its item size"));
  }
  SECTION("a buffer past the end of its pool") {
    c.module.pools[0].bytes = 0;
    CHECK_THAT(firstError(c.module), Catch::Contains("does not fit in pool"));
  }
}

// Without stats, reuse and pool put the frees and the reuse plan in place in
// one pass; with them, frees first (the bounds are measured on those lines),
// then the plan. Both must give the same lines, small graphs included, where
// a take-over can come before any free that stays.
TEST_CASE("memory stats are measured only when asked for, and never change the plan",
          "[plan-memory]") {
  std::mt19937_64 rng(23);
  for (int trial = 0; trial < 48; ++trial) {
    Json json = randomGraph(rng, 2 + trial % 24, trial % 4 == 1, trial % 4 >= 2);
    DiagnosticEngine diag;
    auto doc = test::read(json.dump(), diag);
    REQUIRE(doc);
    for (MemoryPlan plan : {MemoryPlan::None, MemoryPlan::Reuse, MemoryPlan::Pool, MemoryPlan::Arena}) {
      passes::CompileOptions options;
      options.memoryPlan = plan;
      ir::Module measured, unmeasured;
      REQUIRE(test::compile(*doc, measured, diag, options));
      options.memoryStats = false;
      REQUIRE(test::compile(*doc, unmeasured, diag, options));
      CHECK(measured.memoryStats.size() >= 1);
      CHECK(unmeasured.memoryStats.empty());
      CHECK(ir::printModule(measured) == ir::printModule(unmeasured));
      // --verify-plan checks the stats too, so it measures them.
      options.verifyPlan = true;
      ir::Module verified;
      REQUIRE(test::compile(*doc, verified, diag, options));
      CHECK(verified.memoryStats.size() == measured.memoryStats.size());
    }
  }
}

TEST_CASE("the peak profile answers as a plain array of line values", "[plan-memory][property]") {
  // Spans of every kind: inside one block, across a block boundary, across
  // many blocks, the whole profile, and empty ones; profiles shorter than a
  // block and not a whole number of blocks.
  std::mt19937_64 rng(7);
  for (size_t n : {1u, 5u, 63u, 64u, 65u, 200u, 1000u, 4097u}) {
    std::vector<int64_t> naive(n);
    for (int64_t &v : naive)
      v = static_cast<int64_t>(rng() % 1000);
    passes::PeakProfile profile(naive);
    REQUIRE(profile.length() == n);
    for (int step = 0; step < 3000; ++step) {
      size_t lo = rng() % (n + 1), hi = rng() % (n + 1);
      if (lo > hi)
        std::swap(lo, hi);
      if (rng() % 4 == 0)
        hi = std::min(n, lo + rng() % 80); // short spans, as on real graphs
      if (rng() % 2) {
        int64_t delta = static_cast<int64_t>(rng() % 2000) - 600;
        profile.add(lo, hi, delta);
        for (size_t i = lo; i < hi; ++i)
          naive[i] += delta;
      } else if (lo < hi) {
        int64_t expected = *std::max_element(naive.begin() + lo, naive.begin() + hi);
        INFO("n " << n << " step " << step << " [" << lo << ", " << hi << ")");
        REQUIRE(profile.max(lo, hi) == expected);
      } else {
        REQUIRE(profile.max(lo, hi) < -(int64_t(1) << 60));
      }
    }
  }
}

TEST_CASE("building and planning in parts on threads gives the lines of one thread",
          "[plan-memory][build-wrapper-ir][property]") {
  // build-wrapper-ir, plan-memory and the line-local passes split a large
  // function into parts, a part a thread. Here every part is one node or
  // line at least, so random graphs of a few dozen nodes split many ways.
  // Named views of buffers (defined at first use, keeping their base alive)
  // and outputs that are views exercise the liveness rules.
  std::mt19937_64 rng(11);
  for (int trial = 0; trial < 80; ++trial) {
    Json json = randomGraph(rng, 4 + trial % 37, trial % 2 == 1);
    const size_t kernels = json["nodes"].size();
    for (size_t k = 0; k + 1 < kernels; ++k) {
      if (rng() % 3 != 0)
        continue;
      const Json &base = json["buffers"][k];
      std::string view = fmt::format("v{}", k);
      json["buffers"].push_back({{"name", view},
                                 {"dtype", base["dtype"]},
                                 {"device", "cuda:0"},
                                 {"size", {1}},
                                 {"stride", {1}},
                                 {"view_of", base["name"]}});
      if (rng() % 4 == 0) {
        json["outputs"].push_back({{"buffer", view}});
        continue;
      }
      // Read by a later kernel: the view is defined right before it.
      size_t reader = k + 1 + rng() % (kernels - k - 1);
      Json &args = json["nodes"][reader]["args"];
      args.insert(args.begin(), Json{{"role", "input"}, {"buffer", view}});
    }
    const std::string text = json.dump();
    INFO(text);
    for (MemoryPlan plan : {MemoryPlan::Reuse, MemoryPlan::None, MemoryPlan::Pool}) {
      DiagnosticEngine oneDiag, manyDiag;
      auto one = test::read(text, oneDiag);
      auto many = test::read(text, manyDiag);
      REQUIRE(one);
      REQUIRE(many);
      passes::CompileOptions oneOptions, manyOptions;
      oneOptions.memoryPlan = manyOptions.memoryPlan = plan;
      oneOptions.memoryStats = manyOptions.memoryStats = false;
      manyOptions.threads = 1 + static_cast<unsigned>(rng() % 6);
      manyOptions.minPerPart = 1;
      ir::Module oneModule, manyModule;
      // Both take their document over, as the driver does: only then does
      // build-wrapper-ir split its nodes.
      const graph::Document *oneDoc = one.get(), *manyDoc = many.get();
      passes::PassContext oneCtx{oneDoc, oneOptions, oneDiag, std::move(one)};
      passes::PassContext manyCtx{manyDoc, manyOptions, manyDiag, std::move(many)};
      REQUIRE(passes::runPipeline(passes::buildDefaultPipeline(), oneModule, oneCtx));
      REQUIRE(passes::runPipeline(passes::buildDefaultPipeline(), manyModule, manyCtx));
      CHECK(ir::printModule(manyModule) == ir::printModule(oneModule));
    }
  }
}
