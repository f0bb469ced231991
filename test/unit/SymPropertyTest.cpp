//===- test/unit/SymPropertyTest.cpp - Randomised wirc::sym checks --------===//
//
// Random trees over three symbols, values in [-50, 50], fixed seeds. The
// reference is an independent 128-bit evaluator with Python semantics over
// the unsimplified tree (test/sym/RandomExpr.h).
//
//===----------------------------------------------------------------------===//

#include "../sym/RandomExpr.h"

#include <catch2/catch.hpp>

using namespace wirc::sym;
using namespace wirc::symtest;

namespace {

struct Counts {
  int checked = 0;
  int divisionByZero = 0;
  int tooBig = 0;
};

Expr parseOrFail(const std::string &text) {
  ParseError err;
  std::optional<Expr> e = parseExpr(text, err);
  INFO("text: " << text << "\nerror@" << err.offset << ": " << err.message);
  REQUIRE(e.has_value());
  return *e;
}

void checkOne(RandomExprGen &gen, const RNode &tree, Counts &counts) {
  std::string rawText = gen.text(tree);
  Expr e = toExpr(tree);
  std::string canonical = toString(e);
  INFO("raw: " << rawText << "\ncanonical: " << canonical);

  Expr simplified = simplify(e);
  REQUIRE(simplified == e);
  REQUIRE(simplify(simplified) == simplified);
  REQUIRE(simplified.hash() == e.hash());

  Expr reparsed = parseOrFail(canonical);
  REQUIRE(reparsed == e);
  Expr fromRaw = parseOrFail(rawText);
  Expr fromFx = parseOrFail(printFx(e));

  for (int round = 0; round < 3; ++round) {
    SymbolValues values = gen.values(-50, 50);
    Int128 want = 0;
    RefStatus status = refEval(tree, values, want);
    if (status == RefStatus::DivisionByZero) {
      ++counts.divisionByZero;
      continue;
    }
    if (status == RefStatus::TooBig) {
      ++counts.tooBig;
      continue;
    }
    INFO("s0=" << values["s0"] << " s1=" << values["s1"]
               << " ks2=" << values["ks2"] << " want=" << (int64_t)want);
    std::string error;
    for (const Expr &candidate : {e, fromRaw, fromFx}) {
      INFO("candidate: " << toString(candidate));
      std::optional<int64_t> got = evaluate(candidate, values, error);
      INFO("error: " << error);
      REQUIRE(got.has_value());
      REQUIRE(*got == (int64_t)want);
    }
    ++counts.checked;
  }
}

} // namespace

TEST_CASE("sym property: canonical forms keep the value", "[sym][property]") {
  uint64_t seed = GENERATE(1u, 2u, 3u, 0x5eedu);
  RandomExprGen gen(seed);
  Counts counts;
  for (int i = 0; i < 1000; ++i) {
    RNode tree = gen.tree(static_cast<int>(gen.pickIn(1, 5)));
    checkOne(gen, tree, counts);
  }
  INFO("checked " << counts.checked << ", division by zero "
                  << counts.divisionByZero << ", too big " << counts.tooBig);
  // Guard against a generator that stopped producing useful cases.
  CHECK(counts.checked > 2000);
}

TEST_CASE("sym property: algebraic laws hold structurally", "[sym][property]") {
  RandomExprGen gen(42);
  for (int i = 0; i < 500; ++i) {
    Expr a = toExpr(gen.tree(3)), b = toExpr(gen.tree(3)),
         c = toExpr(gen.tree(2));
    INFO("a: " << toString(a) << "\nb: " << toString(b)
               << "\nc: " << toString(c));
    REQUIRE(a + b == b + a);
    REQUIRE(a * b == b * a);
    REQUIRE((a + b) + c == a + (b + c));
    REQUIRE(a - a == 0);
    REQUIRE(a + b - b == a);
    REQUIRE(min(a, b) == min(b, a));
    REQUIRE(max(std::vector<Expr>{a, b, c}) == max(max(c, b), a));
    REQUIRE(-(-a) == a);
    REQUIRE(compare(a, b) == -compare(b, a));
    REQUIRE((compare(a, b) == 0) == (a == b));
    if (a == b)
      REQUIRE(a.hash() == b.hash());
  }
}
