//===- GraphReaderTest.cpp - The graph-format reader ----------------------===//
#include "TestUtil.h"

#include "wirc/ir/Verifier.h"

#include <catch2/catch.hpp>
#include <fmt/format.h>
#include <nlohmann/json.hpp>

#include <algorithm>
#include <filesystem>
#include <functional>
#include <fstream>
#include <random>
#include <sstream>

using namespace wirc;

namespace {
std::string sample(const std::string &name) {
  std::ifstream in(std::string(WIRC_SOURCE_DIR) + "/samples/seed/" + name);
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}
} // namespace

TEST_CASE("the seed samples read and compile", "[reader]") {
  for (const char *name : {"01-add.json", "02-extern-addmm.json", "03-topk-multi-output.json",
                           "04-reinterpret-view.json", "05-dynamic-1d.json", "06-dynamic-2d.json"}) {
    INFO(name);
    std::string text = sample(name);
    REQUIRE_FALSE(text.empty());
    DiagnosticEngine diag;
    auto doc = test::read(text, diag);
    INFO(test::firstError(diag));
    REQUIRE(doc);
    ir::Module module;
    CHECK(test::compile(*doc, module, diag));
  }
}

TEST_CASE("the reader keeps the document's structure", "[reader]") {
  DiagnosticEngine diag;
  auto doc = test::read(sample("06-dynamic-2d.json"), diag);
  REQUIRE(doc);
  CHECK(doc->main.name == "add_dynamic_2d");
  REQUIRE(doc->main.symbols.size() == 1);
  CHECK(doc->main.symbols[0].hint == 16);
  REQUIRE(doc->main.inputs.size() == 3);
  CHECK(doc->main.inputs[0].kind == graph::InputKind::Symbol);
  CHECK(doc->main.inputs[1].layout.size[0].isSymbol());
  CHECK(doc->main.inputs[1].layout.stride[1] == sym::Expr(1));
  REQUIRE(doc->kernels.size() == 1);
  CHECK(doc->kernels[0].configs[0].kwarg("XBLOCK") == 64);
  CHECK(doc->kernels[0].gridType == graph::GridType::Grid1D);
  CHECK(doc->main.nodes.size() == 4);
}

// Byte-level mutations of a valid document must give either a valid document
// or diagnostics: never a crash, an internal error or an exception.
TEST_CASE("mutated documents never crash the reader or the pipeline", "[reader][property]") {
  std::string base = sample("03-topk-multi-output.json");
  std::mt19937_64 rng(42);
  const std::string alphabet = "{}[]\":,0123456789-.eE abcnulltrue\\\n";
  int accepted = 0;
  for (int trial = 0; trial < 400; ++trial) {
    std::string text = base;
    int edits = 1 + static_cast<int>(rng() % 4);
    for (int e = 0; e < edits; ++e) {
      size_t pos = rng() % text.size();
      switch (rng() % 3) {
      case 0:
        text[pos] = alphabet[rng() % alphabet.size()];
        break;
      case 1:
        text.erase(pos, 1 + rng() % 8);
        break;
      default:
        text.insert(pos, 1, alphabet[rng() % alphabet.size()]);
      }
    }
    DiagnosticEngine diag;
    std::unique_ptr<graph::Document> doc;
    REQUIRE_NOTHROW(doc = test::read(text, diag));
    CHECK((doc != nullptr) == !diag.hasErrors());
    if (!doc)
      continue;
    ++accepted;
    ir::Module module;
    REQUIRE_NOTHROW(test::compile(*doc, module, diag));
  }
  CHECK(accepted < 400);
}

namespace {

/// What reading \p text with \p limits gives: every diagnostic, and the IR
/// the default pipeline makes of the document, if there is one.
/// \p checkedInParts, if given, counts the graphs the reader checked in parts.
std::string readOutcome(const std::string &text, const graph::ReaderLimits &limits,
                        unsigned *checkedInParts = nullptr) {
  DiagnosticEngine diag;
  diag.setSource("test.json", [&text](std::string_view pointer) {
    return graph::locateJsonPointer(text, pointer);
  });
  std::unique_ptr<graph::Document> doc = graph::readDocument(text, diag, limits);
  std::string out;
  for (const Diagnostic &d : diag.diagnostics())
    out += formatDiagnostic(d) + "\n";
  if (!doc)
    return out + "(no document)\n";
  if (checkedInParts)
    *checkedInParts += doc->graphsCheckedInParts;
  ir::Module module;
  DiagnosticEngine compileDiag;
  if (!test::compile(*doc, module, compileDiag))
    return out + "(no module)\n";
  return out + ir::printModule(module);
}

} // namespace

TEST_CASE("reading nodes on several threads changes nothing", "[reader][threads]") {
  // Every graph of the repository, good and bad, read with one node (and
  // buffer) per thread at least and, from four threads, parsed in parts of a
  // few hundred bytes, so that even small graphs are split.
  std::vector<std::filesystem::path> files;
  for (const char *dir : {"/test/fixtures", "/test/lit", "/samples"})
    for (const auto &entry :
         std::filesystem::recursive_directory_iterator(std::string(WIRC_SOURCE_DIR) + dir))
      if (entry.path().extension() == ".json")
        files.push_back(entry.path());
  std::sort(files.begin(), files.end());
  REQUIRE(files.size() > 50);
  int split = 0;
  unsigned checkedInParts = 0;
  for (const std::filesystem::path &file : files) {
    INFO(file.string());
    std::ifstream in(file);
    std::stringstream ss;
    ss << in.rdbuf();
    const std::string text = ss.str();
    graph::ReaderLimits one;
    std::string expected = readOutcome(text, one);
    for (unsigned threads : {2u, 3u, 8u}) {
      graph::ReaderLimits many;
      many.threads = threads;
      many.minNodesPerThread = 1;
      many.partsFrom = 0; // from four threads, the text is parsed in parts
      CHECK(readOutcome(text, many, &checkedInParts) == expected);
    }
    split += text.find("\"nodes\"") != std::string::npos;
  }
  CHECK(split > 40);
  CHECK(checkedInParts > 40);
}

TEST_CASE("nodes out of order, repeated or missing are reported as without threads",
          "[reader][threads][property]") {
  // The checks of definitions, uses, in-place renames and device guards
  // span the parts a graph's nodes are checked in: move, repeat and drop
  // nodes of a graph with hundreds of kernels so that each check fails
  // across parts, and compare with a read on one thread.
  std::ifstream in(std::string(WIRC_SOURCE_DIR) + "/test/fixtures/deep_residual_mlp/graph0.json");
  const nlohmann::json good = nlohmann::json::parse(in);
  const size_t n = good["nodes"].size();
  REQUIRE(n > 600);
  graph::ReaderLimits one;
  auto compare = [&](const nlohmann::json &doc, unsigned expectedInParts) {
    const std::string text = doc.dump(1);
    const std::string expected = readOutcome(text, one);
    for (unsigned threads : {2u, 4u, 8u}) {
      graph::ReaderLimits many;
      many.threads = threads;
      many.minNodesPerThread = 1;
      unsigned inParts = 0;
      CHECK(readOutcome(text, many, &inParts) == expected);
      // Nodes are checked in parts from four threads, like the text parsed.
      CHECK(inParts == (threads >= 4 ? expectedInParts : 0));
    }
    return expected;
  };
  CHECK(compare(good, 1).find("error") == std::string::npos);

  std::mt19937_64 rng(7);
  int reported = 0;
  for (int trial = 0; trial < 60; ++trial) {
    INFO("trial " << trial);
    nlohmann::json doc = good;
    nlohmann::json &nodes = doc["nodes"];
    const size_t a = rng() % n, b = rng() % n;
    switch (trial % 4) {
    case 0: // two nodes trade places
      std::swap(nodes[a], nodes[b]);
      break;
    case 1: // a node runs twice
      nodes.insert(nodes.begin() + static_cast<std::ptrdiff_t>(b), nodes[a]);
      break;
    case 2: // a node is dropped
      nodes.erase(nodes.begin() + static_cast<std::ptrdiff_t>(a));
      break;
    default: // a node moves to the other end
      nodes.insert(a < n / 2 ? nodes.end() : nodes.begin(), nodes[a]);
      nodes.erase(nodes.begin() + static_cast<std::ptrdiff_t>(a < n / 2 ? a : a + 1));
      break;
    }
    const std::string text = doc.dump(1);
    const std::string expected = readOutcome(text, one);
    reported += expected.find("error") != std::string::npos;
    for (unsigned threads : {4u, 8u}) {
      graph::ReaderLimits many;
      many.threads = threads;
      many.minNodesPerThread = 1;
      CHECK(readOutcome(text, many) == expected);
    }
  }
  CHECK(reported > 20);

  // Errors that only a check across parts finds: a name used after an
  // in-place kernel far before renamed it, a result defined twice, device
  // guards out of balance.
  std::vector<std::pair<size_t, size_t>> inPlace; // node, argument
  for (size_t i = 0; i < n; ++i)
    if (good["nodes"][i]["op"] == "kernel_call")
      for (size_t k = 0; k < good["nodes"][i]["args"].size(); ++k)
        if (good["nodes"][i]["args"][k].contains("result"))
          inPlace.emplace_back(i, k);
  REQUIRE(inPlace.size() > 20);
  auto arg = [](nlohmann::json &doc, std::pair<size_t, size_t> at) -> nlohmann::json & {
    return doc["nodes"][at.first]["args"][at.second];
  };
  const auto first = inPlace.front(), late = inPlace[inPlace.size() * 3 / 4];
  nlohmann::json doc = good;
  arg(doc, late)["buffer"] = arg(doc, first)["buffer"]; // renamed long ago
  CHECK(compare(doc, 0).find("in-place kernel renamed it") != std::string::npos);
  doc = good;
  arg(doc, late)["result"] = arg(doc, first)["result"];
  CHECK(compare(doc, 0).find("defined twice") != std::string::npos);
  doc = good;
  std::swap(doc["nodes"].front(), doc["nodes"].back());
  REQUIRE(doc["nodes"].front()["op"] == "device_guard_exit");
  CHECK(compare(doc, 0).find("without a matching device_guard_enter") != std::string::npos);
  doc = good;
  doc["nodes"].erase(doc["nodes"].size() - 1);
  CHECK(compare(doc, 0).find("has no matching device_guard_exit") != std::string::npos);
  doc = good; // a guard closed and opened again between parts is balanced
  doc["nodes"].insert(doc["nodes"].begin() + static_cast<std::ptrdiff_t>(n / 2),
                      {{{"op", "device_guard_exit"}}, {{"op", "device_guard_enter"}, {"device", 0}}});
  CHECK(compare(doc, 1).find("error") == std::string::npos);
}

TEST_CASE("a bad node on a thread gets the diagnostics of a read without threads",
          "[reader][threads]") {
  std::string text = sample("03-topk-multi-output.json");
  // Break the first and the last node: with two threads, one in each part.
  size_t first = text.find("\"op\"", text.find("\"nodes\""));
  size_t last = text.rfind("\"op\"");
  REQUIRE(first != std::string::npos);
  REQUIRE(last > first);
  text.replace(last, 4, "\"oq\"");
  text.replace(first, 4, "\"oq\"");
  graph::ReaderLimits one, two;
  two.threads = 2;
  two.minNodesPerThread = 1;
  std::string expected = readOutcome(text, one);
  CHECK(expected.find("(no document)") != std::string::npos);
  CHECK(std::count(expected.begin(), expected.end(), '\n') >= 3);
  CHECK(readOutcome(text, two) == expected);
}

TEST_CASE("tensor names resolve by their whole spelling", "[reader][names]") {
  // Counters with leading zeros, past nine digits or far beyond the graph's
  // size, names without a counter, and more prefixes than the reader keeps
  // arrays for: each name is its own tensor.
  std::vector<std::string> names = {"buf1",   "buf01",          "buf001",     "buf0",
                                    "b0",     "buf999999999",   "buf4294967295", "x",
                                    "buf_1",  "buf10",          "arg3_1",     "arg3_10"};
  for (int i = 0; i < 5000; ++i)
    names.push_back(fmt::format("p{}_{}", i, i % 7));
  auto document = [&](const std::vector<std::string> &inputs,
                      const std::vector<std::string> &outputs) {
    std::string text = R"({"format": "wirc.graph", "version": 1, "name": "names", "inputs": [)";
    for (size_t i = 0; i < inputs.size(); ++i)
      text += (i ? ", " : "") + std::string(R"({"name": ")") + inputs[i] +
              R"(", "dtype": "float32", "device": "cuda:0", "size": [4], "stride": [1]})";
    text += R"(], "outputs": [)";
    for (size_t i = 0; i < outputs.size(); ++i)
      text += (i ? ", " : "") + std::string(R"({"buffer": ")") + outputs[i] + "\"}";
    return text + "]}";
  };
  // Outputs in another order than the inputs, so a name resolved to the
  // wrong tensor shows.
  std::vector<std::string> outputs(names.rbegin(), names.rend());
  std::string ir = readOutcome(document(names, outputs), graph::ReaderLimits{});
  INFO(ir.substr(0, 2000));
  std::string expected = "output (";
  for (size_t i = 0; i < outputs.size(); ++i)
    expected += (i ? ", %" : "%") + outputs[i];
  expected += ")";
  CHECK(ir.find(expected) != std::string::npos);

  // A second definition of any of them is reported against the first.
  for (const char *again : {"buf01", "buf999999999", "buf4294967295", "x", "p4999_1"}) {
    INFO(again);
    std::vector<std::string> twice = names;
    twice.push_back(again);
    std::string outcome = readOutcome(document(twice, {again}), graph::ReaderLimits{});
    CHECK(outcome.find("duplicate name '" + std::string(again) + "'; first defined at /inputs/") !=
          std::string::npos);
  }
}

TEST_CASE("subgraphs that call each other are ordered callees first, loops rejected",
          "[reader][subgraphs][property]") {
  // Random call graphs between subgraphs (each a torch.cond over two of the
  // others, or none); main calls the first. Acyclic ones read with every
  // callee ordered before its callers and compile with the verifier clean;
  // cyclic ones are rejected with the loop named.
  using Json = nlohmann::json;
  auto tensor = [](const std::string &name) {
    return Json{{"name", name}, {"dtype", "float32"}, {"device", "cuda:0"},
                {"size", {4}}, {"stride", {1}}};
  };
  auto condNode = [](const std::string &t, const std::string &f, const std::string &x,
                     const std::string &result) {
    return Json{{"op", "cond"},        {"predicate", true},  {"true_graph", t},
                {"false_graph", f},    {"operands", {{{"buffer", x}}}}, {"result", result}};
  };
  std::mt19937_64 rng(2024);
  int acyclic = 0, cyclic = 0;
  for (int trial = 0; trial < 300; ++trial) {
    const int n = 2 + static_cast<int>(rng() % 7);
    std::vector<std::vector<int>> callees(n);
    for (int g = 0; g < n; ++g)
      if (rng() % 3 != 0) {
        int a = static_cast<int>(rng() % n), b = static_cast<int>(rng() % n);
        // Mostly calls to later subgraphs (acyclic); now and then anywhere.
        if (rng() % 4 != 0) {
          if (g + 1 >= n)
            continue;
          a = g + 1 + static_cast<int>(rng() % (n - g - 1));
          b = g + 1 + static_cast<int>(rng() % (n - g - 1));
        }
        callees[g] = {a, b};
      }
    // Shuffled document order, so that the order is the reader's work.
    std::vector<int> position(n);
    for (int g = 0; g < n; ++g)
      position[g] = g;
    std::shuffle(position.begin(), position.end(), rng);
    auto name = [](int g) { return fmt::format("sub{}", g); };
    Json subgraphs = Json::array();
    for (int slot = 0; slot < n; ++slot)
      subgraphs.push_back(nullptr);
    bool selfCall = false;
    for (int g = 0; g < n; ++g) {
      Json nodes = Json::array(), buffers = Json::array();
      Json outputs = {{{"buffer", "x"}}};
      if (!callees[g].empty()) {
        selfCall |= callees[g][0] == g || callees[g][1] == g;
        buffers.push_back({{"name", "t"}, {"tuple", true}});
        nodes.push_back(condNode(name(callees[g][0]), name(callees[g][1]), "x", "t"));
      }
      subgraphs[position[g]] = {{"name", name(g)}, {"inputs", {tensor("x")}},
                                {"buffers", buffers}, {"nodes", nodes}, {"outputs", outputs}};
    }
    Json doc = {{"format", "wirc.graph"},
                {"version", 1},
                {"inputs", {tensor("arg0")}},
                {"buffers", {{{"name", "t"}, {"tuple", true}}}},
                {"nodes", {condNode(name(0), name(n - 1), "arg0", "t")}},
                {"outputs", {{{"buffer", "arg0"}}}},
                {"subgraphs", subgraphs}};
    // Cycle: a depth-first search of our own.
    std::vector<int> state(n, 0);
    bool loops = false;
    std::function<void(int)> visit = [&](int g) {
      state[g] = 1;
      for (int c : callees[g])
        if (state[c] == 1)
          loops = true;
        else if (state[c] == 0)
          visit(c);
      state[g] = 2;
    };
    for (int g = 0; g < n; ++g)
      if (state[g] == 0)
        visit(g);
    INFO("trial " << trial << ": " << doc.dump());
    DiagnosticEngine diag;
    auto read = test::read(doc.dump(), diag);
    if (loops) {
      ++cyclic;
      REQUIRE_FALSE(read);
      CHECK(test::firstError(diag).find("calls itself") != std::string::npos);
      if (!selfCall)
        CHECK(test::firstError(diag).find(" -> ") != std::string::npos);
      continue;
    }
    ++acyclic;
    INFO(test::firstError(diag));
    REQUIRE(read);
    REQUIRE(read->subgraphOrder.size() == static_cast<size_t>(n));
    std::vector<int> rank(n, -1);
    for (size_t k = 0; k < read->subgraphOrder.size(); ++k) {
      const std::string &sub = read->subgraphs[read->subgraphOrder[k]].name;
      rank[std::stoi(sub.substr(3))] = static_cast<int>(k);
    }
    for (int g = 0; g < n; ++g) {
      REQUIRE(rank[g] >= 0);
      for (int c : callees[g])
        CHECK(rank[c] < rank[g]);
    }
    ir::Module module;
    REQUIRE(test::compile(*read, module, diag));
    CHECK(ir::verifyModule(module).empty());
  }
  CHECK(acyclic > 50);
  CHECK(cyclic > 20);
}

TEST_CASE("a float symbol stands alone however often its spelling was read before",
          "[reader][symbols]") {
  std::ifstream in(std::string(WIRC_SOURCE_DIR) + "/test/lit/python/Inputs/item-float.json");
  const nlohmann::json good = nlohmann::json::parse(in);
  {
    DiagnosticEngine diag;
    auto doc = test::read(good.dump(), diag);
    REQUIRE(doc);
    REQUIRE(doc->main.symbols.size() == 1);
    CHECK(doc->main.symbols[0].isFloat);
    CHECK(doc->main.symbols[0].unbacked);
  }
  // The reader parses each spelling once: "zuf0" read first as a value (the
  // kernel's argument) must still be an error in an assert read after it.
  nlohmann::json later = good;
  later["nodes"].push_back({{"op", "assert_scalar"}, {"lhs", "zuf0"}, {"cmp", ">"}, {"rhs", 0}});
  DiagnosticEngine diag;
  CHECK_FALSE(test::read(later.dump(), diag));
  CHECK(test::firstError(diag).find("uses float symbol 'zuf0'") != std::string::npos);
  // An integer symbol of the same document is unaffected.
  nlohmann::json mixed = good;
  mixed["symbols"].push_back({{"name", "u0"}, {"unbacked", true}});
  mixed["symbols"][0].erase("dtype");
  DiagnosticEngine intDiag;
  CHECK_FALSE(test::read(mixed.dump(), intDiag));
  CHECK(test::firstError(intDiag).find("an item read binds an integer") != std::string::npos);
}
