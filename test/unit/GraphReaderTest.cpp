//===- GraphReaderTest.cpp - The graph-format reader ----------------------===//
#include "TestUtil.h"

#include <catch2/catch.hpp>

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
