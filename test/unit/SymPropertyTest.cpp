//===- test/unit/SymPropertyTest.cpp - Randomised wirc::sym checks --------===//
//
// Random trees over three symbols, values in [-50, 50], fixed seeds. The
// reference is an independent 128-bit evaluator with Python semantics over
// the unsimplified tree (test/sym/RandomExpr.h).
//
//===----------------------------------------------------------------------===//

#include "../sym/RandomExpr.h"

#include <catch2/catch.hpp>

#include <algorithm>
#include <random>

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

namespace {

int64_t pyFloorDiv(int64_t a, int64_t b) {
  int64_t q = a / b;
  return (a % b != 0 && ((a < 0) != (b < 0))) ? q - 1 : q;
}

enum class DivOp { Floor, Ceil, Mod };

int64_t applyRef(DivOp op, int64_t a, int64_t b) {
  switch (op) {
  case DivOp::Floor:
    return pyFloorDiv(a, b);
  case DivOp::Ceil:
    return -pyFloorDiv(-a, b);
  case DivOp::Mod:
    return a - b * pyFloorDiv(a, b);
  }
  return 0;
}

Expr applyExpr(DivOp op, const Expr &a, const Expr &b) {
  switch (op) {
  case DivOp::Floor:
    return floorDiv(a, b);
  case DivOp::Ceil:
    return ceilDiv(a, b);
  case DivOp::Mod:
    return mod(a, b);
  }
  return {};
}

} // namespace

// Every two-level nesting of //, ceil-div and % over small linear forms and
// small divisors: the rewrites on nested divisions are where subtle errors
// hide, and random trees hit each pattern only rarely.
TEST_CASE("sym property: nested divisions exhaustively", "[sym][property]") {
  const Expr s0 = Expr::symbol("s0"), s1 = Expr::symbol("s1");
  const DivOp ops[] = {DivOp::Floor, DivOp::Ceil, DivOp::Mod};
  const int64_t divisors[] = {-2, -1, 1, 2, 3, 4, 6};
  int checked = 0;
  for (int64_t a = -2; a <= 2; ++a)
    for (int64_t b = 0; b <= 1; ++b)
      for (int64_t c = -2; c <= 2; ++c)
        for (DivOp inner : ops)
          for (int64_t d1 : divisors)
            for (DivOp outer : ops)
              for (int64_t d2 : divisors) {
                Expr e = applyExpr(outer,
                                   applyExpr(inner, a * s0 + b * s1 + c, d1),
                                   d2);
                INFO("a=" << a << " b=" << b << " c=" << c << " d1=" << d1
                          << " d2=" << d2 << " inner=" << int(inner)
                          << " outer=" << int(outer)
                          << "\ncanonical: " << toString(e));
                for (int64_t v0 = -4; v0 <= 4; ++v0)
                  for (int64_t v1 = -2; v1 <= 2; ++v1) {
                    int64_t want =
                        applyRef(outer,
                                 applyRef(inner, a * v0 + b * v1 + c, d1), d2);
                    std::string error;
                    std::optional<int64_t> got =
                        evaluate(e, {{"s0", v0}, {"s1", v1}}, error);
                    INFO("s0=" << v0 << " s1=" << v1);
                    REQUIRE(got == want);
                    ++checked;
                  }
              }
  CHECK(checked > 100000);
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

namespace {

/// Nodes of the expression tree, shared subtrees counted each time.
size_t treeSize(const Expr &e) {
  size_t n = 1;
  for (const Expr &op : e.operands())
    n += treeSize(op);
  return n;
}

/// Ten rounds of simplify leave \p e unchanged: same expression, same size.
void checkFixpoint(const Expr &e) {
  INFO("expr: " << toString(e));
  Expr once = simplify(e);
  size_t size = treeSize(once);
  Expr again = once;
  for (int round = 0; round < 10; ++round) {
    again = simplify(again);
    REQUIRE(again == once);
    REQUIRE(treeSize(again) == size);
  }
  REQUIRE(toString(again) == toString(once));
}

} // namespace

// simplify(simplify(e)) == simplify(e) and the size never grows, for random
// trees, for big sums shaped like index expressions (the benchmark's), in
// any term order, and for deep nesting, whose size must stay linear.
TEST_CASE("sym property: repeated simplification is a fixpoint", "[sym][property]") {
  SECTION("random trees") {
    RandomExprGen gen(0xf1c5);
    for (int i = 0; i < 500; ++i)
      checkFixpoint(toExpr(gen.tree(static_cast<int>(gen.pickIn(1, 6)))));
  }

  SECTION("big sums in any order") {
    std::mt19937_64 rng(42);
    std::vector<Expr> symbols;
    for (int i = 0; i < 16; ++i) {
      // Appended: GCC 12 warns falsely (-Wrestrict) about "s" + std::string.
      std::string name = "s";
      name += std::to_string(i);
      symbols.push_back(Expr::symbol(name));
    }
    std::vector<Expr> terms;
    for (int i = 0; i < 3000; ++i) {
      Expr term(static_cast<int64_t>(rng() % 7) - 3);
      for (int k = 0, n = 1 + static_cast<int>(rng() % 3); k < n; ++k)
        term = term * symbols[rng() % symbols.size()];
      if (rng() % 4 == 0)
        term = floorDiv(term, Expr(static_cast<int64_t>(2 + rng() % 6)));
      else if (rng() % 5 == 0)
        term = ceilDiv(term + 1, Expr(static_cast<int64_t>(2 + rng() % 6)));
      terms.push_back(term);
    }
    Expr e = sum(terms);
    checkFixpoint(e);
    // The canonical order does not depend on the order terms arrive in,
    // already sorted, reversed or shuffled, nor on building pairwise.
    std::vector<Expr> sorted(e.operands().begin(), e.operands().end());
    CHECK(sum(sorted) == e);
    std::vector<Expr> reversed(sorted.rbegin(), sorted.rend());
    CHECK(sum(reversed) == e);
    std::shuffle(terms.begin(), terms.end(), rng);
    CHECK(sum(terms) == e);
    Expr pairwise = 0;
    for (const Expr &t : terms)
      pairwise = pairwise + t;
    CHECK(pairwise == e);
  }

  SECTION("deep nesting stays linear") {
    Expr s0 = Expr::symbol("s0");
    Expr e = s0;
    size_t previous = treeSize(e);
    for (int depth = 1; depth <= 300; ++depth) {
      e = floorDiv(e + 3, Expr(2)) + ceilDiv(s0, Expr(4));
      size_t size = treeSize(e);
      // Each level adds at most the few nodes it wraps the previous level
      // in: linear, not exponential, growth.
      REQUIRE(size > previous);
      REQUIRE(size - previous <= 10);
      previous = size;
    }
    checkFixpoint(e);
  }
}
