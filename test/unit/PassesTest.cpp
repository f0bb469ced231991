//===- PassesTest.cpp - Pipeline passes and their invariants --------------===//
#include "TestUtil.h"

#include "wirc/ir/Verifier.h"

#include <catch2/catch.hpp>
#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include <fstream>
#include <random>
#include <set>

using namespace wirc;
using Json = nlohmann::ordered_json;

namespace {

Json tensor(const std::string &name, int64_t n) {
  return {{"name", name}, {"dtype", "float32"}, {"device", "cuda:0"},
          {"size", {n}},  {"stride", {1}}};
}

Json kernel(const std::string &name, const std::string &gridType = "Grid1D",
            Json kwargs = {{"XBLOCK", 128}}) {
  return {{"name", name},
          {"language", "triton"},
          {"source", "..."},
          {"grid_type", gridType},
          {"configs", {{{"kwargs", kwargs}, {"num_warps", 4}}}}};
}

Json document(Json inputs, Json buffers, Json kernels, Json nodes, Json outputs) {
  return {{"format", "wirc.graph"}, {"version", 1},        {"name", "g"},
          {"inputs", inputs},       {"buffers", buffers},  {"kernels", kernels},
          {"nodes", nodes},         {"outputs", outputs}};
}

/// A random chain-and-fan graph: each kernel reads 1-3 earlier tensors and
/// writes a new buffer; some buffers are outputs.
Json randomGraph(std::mt19937_64 &rng, int numInputs, int numKernels) {
  Json inputs = Json::array(), buffers = Json::array(), kernels = Json::array(),
       nodes = Json::array(), outputs = Json::array();
  std::vector<std::string> tensors;
  for (int i = 0; i < numInputs; ++i) {
    inputs.push_back(tensor(fmt::format("arg{}_1", i), 16));
    tensors.push_back(fmt::format("arg{}_1", i));
  }
  for (int k = 0; k < numKernels; ++k) {
    std::string name = fmt::format("triton_poi_{}", k);
    kernels.push_back(kernel(name));
    Json args = Json::array();
    int reads = 1 + static_cast<int>(rng() % 3);
    std::set<std::string> chosen;
    for (int r = 0; r < reads; ++r)
      chosen.insert(tensors[rng() % tensors.size()]);
    for (const std::string &t : chosen)
      args.push_back({{"role", "input"}, {"buffer", t}});
    std::string out = fmt::format("buf{}", k);
    buffers.push_back(tensor(out, 16));
    args.push_back({{"role", "output"}, {"buffer", out}});
    nodes.push_back({{"op", "kernel_call"}, {"kernel", name}, {"args", args},
                     {"numels", {{"xnumel", 16}}}});
    tensors.push_back(out);
    if (rng() % 5 == 0 || k + 1 == numKernels)
      outputs.push_back({{"buffer", out}});
  }
  return document(inputs, buffers, kernels, nodes, outputs);
}

std::unique_ptr<graph::Document> readOk(const Json &json, DiagnosticEngine &diag) {
  auto doc = test::read(json.dump(), diag);
  INFO(test::firstError(diag));
  REQUIRE(doc);
  return doc;
}

} // namespace

TEST_CASE("plan-memory frees every buffer once, right after its last use", "[plan-memory]") {
  std::mt19937_64 rng(1234);
  for (int trial = 0; trial < 200; ++trial) {
    Json json = randomGraph(rng, 1 + trial % 4, 1 + trial % 23);
    DiagnosticEngine diag;
    auto doc = readOk(json, diag);
    ir::Module module;
    passes::CompileOptions noReuse;
    noReuse.memoryPlan = passes::MemoryPlan::None;
    REQUIRE(test::compile(*doc, module, diag, noReuse));
    REQUIRE(ir::verifyModule(module).empty());

    const ir::Function &main = module.main();
    std::set<ir::BufferId> outputs, freed;
    for (const ir::Line &line : main.lines)
      if (auto *out = std::get_if<ir::OutputLine>(&line))
        for (const ir::Value &v : out->outputs)
          outputs.insert(v.buffer);
    for (size_t i = 0; i < main.lines.size(); ++i) {
      auto *free = std::get_if<ir::FreeLine>(&main.lines[i]);
      if (!free)
        continue;
      INFO("trial " << trial << " line " << i);
      CHECK(outputs.count(free->buffer) == 0);
      CHECK(freed.insert(free->buffer).second);
      // Nothing after the free uses the buffer (the verifier's use-after-free
      // check), and the last non-free line before it does: frees are not late.
      size_t j = i;
      while (j > 0 && std::holds_alternative<ir::FreeLine>(main.lines[j - 1]))
        --j;
      REQUIRE(j > 0);
      bool usedJustBefore = false;
      ir::forEachUse(main.lines[j - 1], [&](ir::BufferId b) { usedJustBefore |= b == free->buffer; });
      CHECK(usedJustBefore);
    }
    // No leaks: every buffer and input that is not an output is freed.
    for (ir::BufferId b = 0; b < module.buffers.size(); ++b) {
      const ir::BufferInfo &info = module.buffer(b);
      if (info.kind != ir::BufferKind::Input && info.kind != ir::BufferKind::Intermediate)
        continue;
      bool used = false;
      for (const ir::Line &line : main.lines)
        ir::forEachUse(line, [&](ir::BufferId u) { used |= u == b; });
      if (used && !outputs.count(b))
        CHECK(freed.count(b) == 1);
    }
  }
}

namespace {
/// Peak of the bytes the wrapper holds, simulated over the lines at the
/// hints: allocations add, frees subtract, reuses move storage.
int64_t simulatedPeak(const ir::Module &module) {
  int64_t live = 0, peak = 0;
  auto bytes = [&](ir::BufferId b) {
    const ir::BufferInfo &info = module.buffer(b);
    int64_t elements = 1;
    for (size_t i = 0; i < info.layout.size.size(); ++i)
      elements += (*info.layout.size[i].constant() - 1) * *info.layout.stride[i].constant();
    return elements * graph::dtypeSize(info.layout.dtype);
  };
  for (const ir::Line &line : module.main().lines) {
    if (auto *a = std::get_if<ir::AllocateLine>(&line))
      live += bytes(a->buffer);
    if (auto *f = std::get_if<ir::FreeLine>(&line);
        f && module.buffer(f->buffer).kind == ir::BufferKind::Intermediate)
      live -= bytes(f->buffer);
    peak = std::max(peak, live);
  }
  return peak;
}
} // namespace

TEST_CASE("reuse never raises the peak and keeps the IR valid", "[plan-memory]") {
  std::mt19937_64 rng(99);
  int reused = 0;
  for (int trial = 0; trial < 150; ++trial) {
    Json json = randomGraph(rng, 1 + trial % 3, 2 + trial % 19);
    // Mixed sizes, so that only some buffers share a key.
    for (Json &b : json["buffers"])
      b["size"] = {16 << (rng() % 3)};
    DiagnosticEngine diag;
    auto doc = readOk(json, diag);
    ir::Module plain, withReuse;
    passes::CompileOptions none;
    none.memoryPlan = passes::MemoryPlan::None;
    REQUIRE(test::compile(*doc, plain, diag, none));
    REQUIRE(test::compile(*doc, withReuse, diag));
    REQUIRE(ir::verifyModule(withReuse).empty());
    INFO("trial " << trial);
    CHECK(simulatedPeak(withReuse) <= simulatedPeak(plain));
    for (const ir::Line &line : withReuse.main().lines)
      if (auto *r = std::get_if<ir::ReuseLine>(&line); r && !r->inPlace) {
        ++reused;
        // Only storage of the same dtype and size is handed over.
        CHECK(withReuse.buffer(r->old).layout.size == withReuse.buffer(r->reusedAs).layout.size);
      }
  }
  CHECK(reused > 0);
}

TEST_CASE("name-kernel-args follows Inductor's counting rules", "[name-kernel-args]") {
  Json inputs = {tensor("arg0_1", 8), tensor("arg1_1", 8)};
  Json buffers = {tensor("buf0", 8), tensor("buf1", 8), tensor("buf2", 8), tensor("buf3", 8),
                  tensor("buf4", 8)};
  buffers[0]["removed"] = true;
  buffers[3]["removed"] = true;
  Json args = {
      {{"role", "in_out"}, {"buffer", "buf2"}},
      {{"role", "removed"}, {"buffer", "buf3"}, {"was", "in_out"}},
      {{"role", "in_out"}, {"buffer", "buf4"}},
      {{"role", "input"}, {"buffer", "arg0_1"}},
      {{"role", "input"}, {"buffer", "arg1_1"}},
      {{"role", "removed"}, {"buffer", "buf0"}},
      {{"role", "output"}, {"buffer", "buf1"}},
      {{"role", "size"}, {"value", 8}},
  };
  Json nodes = {
      {{"op", "kernel_call"}, {"kernel", "k0"},
       {"args", {{{"role", "output"}, {"buffer", "buf2"}}, {{"role", "output"}, {"buffer", "buf4"}}}},
       {"numels", {{"xnumel", 8}}}},
      {{"op", "kernel_call"}, {"kernel", "k1"}, {"args", args}, {"numels", {{"xnumel", 8}}}},
  };
  Json json = document(inputs, buffers, {kernel("k0"), kernel("k1")}, nodes,
                       {{{"buffer", "buf1"}}, {{"buffer", "buf2"}}, {{"buffer", "buf4"}}});
  DiagnosticEngine diag;
  auto doc = readOk(json, diag);
  ir::Module module;
  REQUIRE(test::compile(*doc, module, diag));
  std::vector<std::string> names;
  for (const ir::Line &line : module.main().lines)
    if (auto *call = std::get_if<ir::KernelCallLine>(&line); call && call->kernel == 1)
      for (const ir::CallArg &arg : call->args)
        names.push_back(arg.param);
  // Removed arguments keep their slot: a removed in-place group counts its
  // two names (in_out_ptr1 and in_out_ptr2 are gaps) and a removed output its
  // slot (out_ptr0), so no two parameters ever share a name.
  CHECK(names == std::vector<std::string>{"in_out_ptr0", "", "in_out_ptr3", "in_ptr0", "in_ptr1",
                                          "", "out_ptr1", "ks0"});
}

// PyTorch issue 146975, fixed by PR 147199: in-place groups removed in the
// middle of a kernel used to be counted as one, so a later group got the name
// of a live one (in_out_ptr2 twice). Every removed name counts.
TEST_CASE("removed in-place groups never make in_out names collide", "[name-kernel-args]") {
  Json buffers = Json::array();
  for (const char *name : {"buf6", "buf11", "buf24", "buf26"}) {
    Json b = tensor(name, 8);
    b["removed"] = true;
    buffers.push_back(b);
  }
  for (const char *name : {"buf0", "buf3", "buf22", "buf27"})
    buffers.push_back(tensor(name, 8));
  auto inOut = [](const char *buffer, const char *result) {
    return Json{{"role", "in_out"}, {"buffer", buffer}, {"result", result}};
  };
  auto removed = [](const char *buffer) {
    return Json{{"role", "removed"}, {"buffer", buffer}, {"was", "in_out"}};
  };
  Json nodes = {
      {{"op", "kernel_call"}, {"kernel", "k0"},
       {"args", {{{"role", "output"}, {"buffer", "buf22"}}, {{"role", "output"}, {"buffer", "buf0"}}}},
       {"numels", {{"xnumel", 8}}}},
      // The worked example of the research sheet, in creation order.
      {{"op", "kernel_call"}, {"kernel", "k1"},
       {"args", {inOut("buf6", "buf11"), inOut("buf24", "buf26"), inOut("buf22", "buf27"),
                 removed("buf6"), removed("buf24"), inOut("buf0", "buf3")}},
       {"numels", {{"xnumel", 8}}}},
  };
  Json json = document(Json::array(), buffers, {kernel("k0"), kernel("k1")}, nodes,
                       {{{"buffer", "buf27"}}, {{"buffer", "buf3"}}});
  DiagnosticEngine diag;
  auto doc = readOk(json, diag);
  ir::Module module;
  REQUIRE(test::compile(*doc, module, diag));
  std::vector<std::pair<std::string, std::string>> passed;
  for (const ir::Line &line : module.main().lines)
    if (auto *call = std::get_if<ir::KernelCallLine>(&line); call && call->kernel == 1)
      for (const ir::CallArg &arg : call->args)
        if (arg.role != graph::ArgRole::Removed)
          passed.emplace_back(arg.param, module.buffer(arg.value.buffer).name);
  // Before the fix the last group was named in_out_ptr2, like buf27's.
  CHECK(passed == std::vector<std::pair<std::string, std::string>>{{"in_out_ptr2", "buf27"},
                                                                   {"in_out_ptr5", "buf3"}});
}

TEST_CASE("a call that disagrees with the kernel signature is an error", "[name-kernel-args]") {
  Json k = kernel("k0");
  k["signature"] = {{{"name", "in_ptr0"}, {"type", "*fp32"}},
                    {{"name", "out_ptr0"}, {"type", "*fp32"}},
                    {{"name", "xnumel"}, {"type", "i32"}},
                    {{"name", "XBLOCK"}, {"type", "constexpr"}}};
  Json nodes = {{{"op", "kernel_call"}, {"kernel", "k0"},
                 {"args", {{{"role", "input"}, {"buffer", "arg0_1"}},
                           {{"role", "output"}, {"buffer", "buf0"}}}},
                 {"numels", {{"xnumel", 8}}}}};
  Json json = document({tensor("arg0_1", 8)}, {tensor("buf0", 8)}, {k}, nodes,
                       {{{"buffer", "buf0"}}});
  {
    DiagnosticEngine diag;
    auto doc = readOk(json, diag);
    ir::Module module;
    CHECK(test::compile(*doc, module, diag));
  }
  json["nodes"][0]["args"][1]["name"] = "out_ptr3";
  DiagnosticEngine diag;
  auto doc = readOk(json, diag);
  ir::Module module;
  CHECK_FALSE(test::compile(*doc, module, diag));
  CHECK(test::firstError(diag) ==
        "call of kernel 'k0' passes (in_ptr0, out_ptr3, xnumel) but its signature takes "
        "(in_ptr0, out_ptr0, xnumel)");
}

namespace {
/// The grid of the only launch in a one-kernel graph.
std::vector<std::optional<int64_t>> foldedGrid(const std::string &gridType, Json kwargs,
                                               Json numels, Json extra = Json::object()) {
  Json k = kernel("k0", gridType, kwargs);
  if (extra.contains("config_grid"))
    k["configs"][0]["grid"] = extra["config_grid"];
  Json call = {{"op", "kernel_call"}, {"kernel", "k0"},
               {"args", {{{"role", "output"}, {"buffer", "buf0"}}}}, {"numels", numels}};
  if (extra.contains("grid"))
    call["grid"] = extra["grid"];
  Json json = document(Json::array(), {tensor("buf0", 8)}, {k}, {call}, {{{"buffer", "buf0"}}});
  DiagnosticEngine diag;
  auto doc = readOk(json, diag);
  ir::Module module;
  REQUIRE(test::compile(*doc, module, diag));
  for (const ir::Line &line : module.main().lines)
    if (auto *c = std::get_if<ir::KernelCallLine>(&line))
      return {c->grids[0][0].constant(), c->grids[0][1].constant(), c->grids[0][2].constant()};
  FAIL("no kernel call");
  return {};
}
using G = std::vector<std::optional<int64_t>>;
} // namespace

TEST_CASE("launch grids fold per grid type", "[fold-launch-grids]") {
  CHECK(foldedGrid("Grid1D", {{"XBLOCK", 128}}, {{"xnumel", 1000}}) == G{8, 1, 1});
  CHECK(foldedGrid("Grid1D", {{"XBLOCK", 128}}, {{"xnumel", 1024}}) == G{8, 1, 1});
  // A persistent reduction has no R0_BLOCK; a missing XBLOCK leaves the numel.
  CHECK(foldedGrid("Grid1D", Json::object(), {{"xnumel", 5}, {"r0_numel", 129}}) == G{5, 1, 1});
  CHECK(foldedGrid("Grid2D", {{"XBLOCK", 16}, {"YBLOCK", 32}},
                   {{"xnumel", 100}, {"ynumel", 100}}) == G{7, 4, 1});
  CHECK(foldedGrid("Grid3D", {{"XBLOCK", 16}, {"YBLOCK", 4}, {"ZBLOCK", 2}},
                   {{"xnumel", 16}, {"ynumel", 5}, {"znumel", 3}}) == G{1, 2, 2});
  // A batched matmul puts z (the batch) on grid dimension 0 and x on 2.
  CHECK(foldedGrid("BatchMatmulGrid3D", {{"XBLOCK", 16}, {"YBLOCK", 4}, {"ZBLOCK", 2}},
                   {{"xnumel", 16}, {"ynumel", 5}, {"znumel", 3}}) == G{2, 2, 1});
  CHECK(foldedGrid("CooperativeReductionGrid", {{"XBLOCK", 1}, {"RSPLIT", 8}},
                   {{"xnumel", 3}, {"r0_numel", 4096}}) == G{8, 3, 1});
  CHECK(foldedGrid("SplitScanGrid", {{"R0_BLOCK", 1024}}, {{"xnumel", 6}, {"r0_numel", 5000}}) ==
        G{5, 6, 1});
  CHECK(foldedGrid("FixedGrid", Json::object(), Json::object(), {{"grid", {3, 2, 1}}}) ==
        G{3, 2, 1});
  CHECK(foldedGrid("PrecomputedGrid", {{"XBLOCK", 64}}, {{"xnumel", 64}},
                   {{"config_grid", {9, 1, 1}}}) == G{9, 1, 1});
}

TEST_CASE("a launch empty under every config is dropped", "[fold-launch-grids]") {
  // The lines of a one-launch graph after the pipeline: (calls, comments).
  auto launches = [](Json k, Json numels) {
    Json call = {{"op", "kernel_call"}, {"kernel", "k0"},
                 {"args", {{{"role", "output"}, {"buffer", "buf0"}}}}, {"numels", numels}};
    Json json = document(Json::array(), {tensor("buf0", 8)}, {k}, {call}, {{{"buffer", "buf0"}}});
    DiagnosticEngine diag;
    auto doc = readOk(json, diag);
    ir::Module module;
    REQUIRE(test::compile(*doc, module, diag));
    std::pair<int, std::vector<std::string>> seen;
    for (const ir::Line &line : module.main().lines) {
      seen.first += std::holds_alternative<ir::KernelCallLine>(line);
      if (auto *c = std::get_if<ir::CommentLine>(&line))
        seen.second.push_back(c->text);
    }
    return seen;
  };
  auto empty = launches(kernel("k0"), {{"xnumel", 0}});
  CHECK(empty.first == 0);
  CHECK(empty.second == std::vector<std::string>{"k0: empty launch grid, launch skipped"});
  CHECK(launches(kernel("k0"), {{"xnumel", 1}}).first == 1);
  // Empty under one config only: the launcher may pick the other one.
  Json k = kernel("k0", "PrecomputedGrid", {{"XBLOCK", 64}});
  k["configs"][0]["grid"] = {0, 1, 1};
  k["configs"].push_back({{"kwargs", {{"XBLOCK", 128}}}, {"grid", {4, 1, 1}}});
  CHECK(launches(k, {{"xnumel", 64}}).first == 1);
  k["configs"][1]["grid"] = {4, 0, 1};
  CHECK(launches(k, {{"xnumel", 64}}).first == 0);
}

TEST_CASE("y blocks past 65535 overflow into z", "[fold-launch-grids]") {
  Json kwargs = {{"XBLOCK", 1}, {"YBLOCK", 1}};
  CHECK(foldedGrid("Grid2DWithYZOverflow", kwargs, {{"xnumel", 1}, {"ynumel", 65535}}) ==
        G{1, 65535, 1});
  CHECK(foldedGrid("Grid2DWithYZOverflow", kwargs, {{"xnumel", 1}, {"ynumel", 65536}}) ==
        G{1, 32768, 2});
  for (int64_t y : {int64_t(1), int64_t(65535), int64_t(65536), int64_t(131071),
                    int64_t(1) << 31}) {
    G g = foldedGrid("Grid2DWithYZOverflow", kwargs, {{"xnumel", 1}, {"ynumel", y}});
    INFO("ynumel " << y);
    CHECK(*g[1] <= 65535);
    CHECK(*g[2] <= 65535);
    CHECK(*g[1] * *g[2] >= y);
  }
}

TEST_CASE("the verifier rejects malformed IR", "[verifier]") {
  Json json = randomGraph(*std::make_unique<std::mt19937_64>(7), 2, 4);
  DiagnosticEngine diag;
  auto doc = readOk(json, diag);
  ir::Module module;
  REQUIRE(test::compile(*doc, module, diag));
  REQUIRE(ir::verifyModule(module).empty());
  auto &lines = module.main().lines;
  auto firstOf = [&](auto tag) {
    for (size_t i = 0; i < lines.size(); ++i)
      if (std::holds_alternative<decltype(tag)>(lines[i]))
        return i;
    return lines.size();
  };

  SECTION("use after free") {
    size_t alloc = firstOf(ir::AllocateLine{});
    ir::BufferId b = std::get<ir::AllocateLine>(lines[alloc]).buffer;
    lines.insert(lines.begin() + alloc + 1, ir::FreeLine{b});
    auto errors = ir::verifyModule(module);
    REQUIRE_FALSE(errors.empty());
    CHECK(errors[0].find("after it was freed") != std::string::npos);
  }
  SECTION("use before definition") {
    size_t alloc = firstOf(ir::AllocateLine{});
    lines.erase(lines.begin() + alloc);
    auto errors = ir::verifyModule(module);
    REQUIRE_FALSE(errors.empty());
    CHECK(errors[0].find("before its definition") != std::string::npos);
  }
  SECTION("double free") {
    size_t free = firstOf(ir::FreeLine{});
    REQUIRE(free < lines.size());
    lines.insert(lines.begin() + free, lines[free]);
    CHECK_FALSE(ir::verifyModule(module).empty());
  }
  SECTION("dangling buffer") {
    lines.insert(lines.begin(), ir::FreeLine{999999});
    auto errors = ir::verifyModule(module);
    REQUIRE_FALSE(errors.empty());
    CHECK(errors[0].find("dangling buffer id") != std::string::npos);
  }
  SECTION("unbalanced device guard") {
    lines.insert(lines.begin(), ir::DeviceGuardEnterLine{0});
    CHECK_FALSE(ir::verifyModule(module).empty());
  }
  SECTION("missing output") {
    lines.erase(lines.begin() + firstOf(ir::OutputLine{}));
    CHECK_FALSE(ir::verifyModule(module).empty());
  }
}

TEST_CASE("an IR value keeps its text, view and items out of line", "[ir]") {
  using ir::Value;
  // Call arguments are most of a large module: a bare buffer stays small.
  if constexpr (sizeof(void *) == 8)
    STATIC_REQUIRE(sizeof(Value) <= 64);

  Value buffer = Value::ofBuffer(3);
  CHECK_FALSE(buffer.parts.has_value());
  CHECK(buffer.text().empty());
  CHECK(buffer.size().empty());
  CHECK(buffer.stride().empty());
  CHECK(buffer.items().empty());

  Value list;
  list.kind = Value::Kind::List;
  list.mutableParts().items = {Value::ofBuffer(1), Value::ofExpr(sym::Expr(7))};
  Value view;
  view.kind = Value::Kind::View;
  view.buffer = 2;
  view.mutableParts().size = {sym::Expr(4), sym::Expr::symbol("s0")};
  view.mutableParts().stride = {sym::Expr(1), sym::Expr(4)};
  list.mutableParts().items.push_back(view);

  // Copies are deep: changing the copy leaves the original as it was.
  Value copy = list;
  copy.mutableParts().items[2].mutableParts().size[0] = sym::Expr(5);
  copy.mutableParts().items.pop_back();
  REQUIRE(list.items().size() == 3);
  CHECK(list.items()[2].size()[0] == sym::Expr(4));
  CHECK(list.items()[2].size()[1] == sym::Expr::symbol("s0"));
  CHECK(copy.items().size() == 2);

  std::vector<ir::BufferId> used;
  ir::forEachBuffer(list, [&](ir::BufferId b) { used.push_back(b); });
  CHECK(used == std::vector<ir::BufferId>{1, 2});
}

TEST_CASE("subgraph functions come after main, each after those it calls", "[build-wrapper-ir]") {
  // The nested cond input lists the outer branches before the inner ones.
  std::ifstream in(std::string(WIRC_SOURCE_DIR) + "/test/lit/fx/Inputs/nested_cond.json");
  REQUIRE(in);
  Json json = Json::parse(in);
  DiagnosticEngine diag;
  auto doc = readOk(json, diag);
  ir::Module module;
  REQUIRE(test::compile(*doc, module, diag));
  std::vector<std::string> names;
  for (const ir::Function &f : module.functions)
    names.push_back(f.name);
  CHECK(names == std::vector<std::string>{"nested_cond", "outer_false", "inner_true",
                                          "inner_false", "outer_true"});
  REQUIRE(ir::verifyModule(module).empty());

  SECTION("the verifier rejects a call to a function that comes later") {
    std::swap(module.functions[2], module.functions[4]); // outer_true before inner_true
    for (ir::Line &line : module.functions[2].lines)
      if (auto *cond = std::get_if<ir::CondLine>(&line))
        cond->trueFunction = 4;
    for (ir::Line &line : module.main().lines)
      if (auto *cond = std::get_if<ir::CondLine>(&line))
        cond->trueFunction = 2;
    std::vector<std::string> errors = ir::verifyModule(module);
    bool found = false;
    for (const std::string &e : errors) {
      INFO(e);
      found |= e.find("cond in function outer_true calls function inner_true, which does not "
                      "come before it") != std::string::npos;
    }
    CHECK(found);
  }
  SECTION("a while_loop's cond function must return a predicate") {
    ir::WhileLoopLine loop;
    loop.condFunction = 1;
    loop.bodyFunction = 2;
    module.main().lines.insert(module.main().lines.begin(), loop);
    std::vector<std::string> errors = ir::verifyModule(module);
    REQUIRE_FALSE(errors.empty());
    bool found = false;
    for (const std::string &e : errors)
      found |= e.find("does not return a predicate") != std::string::npos;
    CHECK(found);
  }
}
