//===- test/unit/SymTest.cpp - wirc::sym parser, printers, evaluation -----===//

#include "wirc/sym/Expr.h"
#include "wirc/sym/ExprList.h"

#include "wirc/runtime/Arith.h"

#include <catch2/catch.hpp>
#include <fmt/format.h>

#include <algorithm>
#include <climits>
#include <cmath>
#include <random>
#include <span>
#include <string>
#include <unordered_set>
#include <vector>

using namespace wirc::sym;

namespace {

Expr sym(std::string_view name) { return Expr::symbol(name); }

/// "s<i>", appended rather than built with operator+, which GCC 12 warns
/// about falsely (-Wrestrict) once inlined.
std::string symbolName(int i) {
  std::string name = "s";
  name += std::to_string(i);
  return name;
}

Expr parse(std::string_view text) {
  ParseError err;
  std::optional<Expr> e = parseExpr(text, err);
  INFO("text: " << text << "  error@" << err.offset << ": " << err.message);
  REQUIRE(e.has_value());
  return *e;
}

int64_t eval(const Expr &e, const SymbolValues &values = {}) {
  std::string error;
  std::optional<int64_t> v = evaluate(e, values, error);
  INFO("expr: " << toString(e) << "  error: " << error);
  REQUIRE(v.has_value());
  return *v;
}

ParseError parseFailure(std::string_view text) {
  ParseError err;
  std::optional<Expr> e = parseExpr(text, err);
  INFO("text: " << text);
  REQUIRE_FALSE(e.has_value());
  return err;
}

} // namespace

TEST_CASE("sym: basic values", "[sym]") {
  Expr zero;
  CHECK(zero.isConstant());
  CHECK(zero.constant() == 0);
  Expr five = 5;
  CHECK(five.constant() == 5);
  CHECK_FALSE(five.isSymbol());
  Expr s0 = sym("s0");
  CHECK(s0.isSymbol());
  CHECK_FALSE(s0.isConstant());
  CHECK(s0.symbolName() == "s0");
  CHECK_FALSE(s0.constant().has_value());
  CHECK(s0 == sym("s0"));
  CHECK(s0 != sym("s1"));
  CHECK(s0.hash() == sym("s0").hash());
  CHECK(Expr(3).hash() == Expr(3).hash());
  CHECK((s0 + 1).kind() == ExprKind::Add);
  CHECK((s0 + 1).operands().size() == 2);
}

TEST_CASE("sym: a list of expressions in place and on the heap", "[sym]") {
  // ExprList keeps three expressions in place and moves to the heap beyond
  // that; every copy, move and assignment across the two must keep the
  // items (ASan's leak check in CI covers the references they hold).
  STATIC_REQUIRE(sizeof(ExprList) == 32);
  auto model = [](size_t n) {
    std::vector<Expr> v;
    for (size_t i = 0; i < n; ++i)
      v.push_back(i % 2 ? Expr(int64_t(i)) : sym(fmt::format("s{}", i)) * int64_t(i + 2));
    return v;
  };
  auto same = [](const ExprList &list, const std::vector<Expr> &v) {
    REQUIRE(list.size() == v.size());
    CHECK(list.empty() == v.empty());
    for (size_t i = 0; i < v.size(); ++i)
      CHECK(list[i] == v[i]);
    std::span<const Expr> span = list;
    CHECK(span.size() == v.size());
    CHECK(std::equal(span.begin(), span.end(), v.begin(), v.end()));
  };
  for (size_t n = 0; n <= 8; ++n) {
    INFO("length " << n);
    std::vector<Expr> v = model(n);
    ExprList built;
    for (const Expr &e : v)
      built.push_back(e);
    same(built, v);
    CHECK(ExprList(v) == built);
    ExprList copy = built;
    same(copy, v);
    ExprList moved = std::move(copy);
    same(moved, v);
    CHECK(copy.empty());
    copy.push_back(Expr(7)); // a moved-from list is usable
    same(copy, {Expr(7)});
    for (size_t m = 0; m <= 8; ++m) {
      INFO("assigned over a list of length " << m);
      std::vector<Expr> w = model(m);
      ExprList target(w);
      target = built;
      same(target, v);
      ExprList other(w);
      other = std::move(moved);
      same(other, v);
      moved = other; // restore for the next round
      same(moved, v);
    }
    ExprList &self = built;
    built = self;
    same(built, v);
    built.clear();
    same(built, {});
    if (n) {
      ExprList popped(v);
      popped.pop_back();
      same(popped, std::vector<Expr>(v.begin(), v.end() - 1));
      if (n >= 2)
        CHECK(popped.back() == v[n - 2]);
    }
    CHECK(ExprList(v).toVector() == v);
    if (n) {
      // An item of the list appended to it, as it grows.
      ExprList grown(v);
      std::vector<Expr> expected = v;
      for (size_t k = 0; k < 6; ++k) {
        grown.push_back(grown[0]);
        expected.push_back(expected[0]);
      }
      same(grown, expected);
    }
  }
  CHECK(ExprList{Expr(1), Expr(2)} != ExprList{Expr(1)});
  CHECK(ExprList{Expr(1), Expr(2)} == ExprList{Expr(1), Expr(2)});
}

TEST_CASE("sym: integers in place and boxed are one kind of value", "[sym]") {
  // An Expr holds integers within +-2**61 in its word and boxes the others;
  // nothing outside Expr can tell the two apart.
  STATIC_REQUIRE(sizeof(Expr) == sizeof(void *));
  const int64_t edge = int64_t(1) << 61;
  const std::vector<int64_t> values = {0,        1,        -1,       edge - 2, edge - 1,
                                       edge,     edge + 1, -edge,    -edge - 1, -edge + 1,
                                       INT64_MAX, INT64_MIN, INT64_MAX - 1, INT64_MIN + 1};
  for (int64_t v : values) {
    INFO("value " << v);
    Expr e = v;
    CHECK(e.isConstant());
    CHECK(e.kind() == ExprKind::Integer);
    CHECK(e.constant() == v);
    CHECK(e.operands().empty());
    CHECK(e.symbolName().empty());
    Expr copy = e;
    Expr moved = std::move(copy);
    CHECK(moved == e);
    CHECK(moved.hash() == e.hash());
    CHECK(compare(moved, e) == 0);
    CHECK(toString(e) == std::to_string(v));
    CHECK(parse(toString(e)) == e);
    CHECK(eval(e) == v);
    for (int64_t w : values) {
      INFO("other " << w);
      CHECK((Expr(v) == Expr(w)) == (v == w));
      CHECK(compare(Expr(v), Expr(w)) == (v < w ? -1 : v > w ? 1 : 0));
    }
    // Integers sort before symbols, in place or boxed.
    CHECK(compare(e, sym("s0")) < 0);
  }
  // Arithmetic crosses the edge both ways and lands on the same values.
  CHECK(Expr(edge - 1) + 1 == Expr(edge));
  CHECK((Expr(edge) - 1).constant() == edge - 1);
  CHECK(Expr(edge) * 2 - Expr(edge) == Expr(edge));
  CHECK((-Expr(-edge)).constant() == edge);
  // Boxed coefficients and offsets inside nodes.
  Expr big = Expr(edge + 5) * sym("s0") + Expr(INT64_MIN);
  CHECK(parse(toString(big)) == big);
  CHECK(eval(big, {{"s0", 0}}) == INT64_MIN);
  CHECK(big.hash() == (Expr(INT64_MIN) + sym("s0") * Expr(edge + 5)).hash());
  // Assignments in every direction release what they replace.
  Expr a = edge + 7, b = sym("s1"), c = 3;
  a = b;
  CHECK(a == sym("s1"));
  b = c;
  CHECK(b == 3);
  c = Expr(INT64_MAX);
  CHECK(c.constant() == INT64_MAX);
  a = std::move(c);
  CHECK(a.constant() == INT64_MAX);
  a = a;
  CHECK(a.constant() == INT64_MAX);
}

TEST_CASE("sym: canonicalisation", "[sym]") {
  Expr s0 = sym("s0"), s1 = sym("s1"), s2 = sym("s2");

  SECTION("constant folding and identities") {
    CHECK((Expr(2) + 3) == 5);
    CHECK((s0 + 0) == s0);
    CHECK((s0 * 1) == s0);
    CHECK((s0 * 0) == 0);
    CHECK((s0 - s0) == 0);
    CHECK(floorDiv(s0, 1) == s0);
    CHECK(floorDiv(0, s0) == 0);
    CHECK(floorDiv(7, -2) == -4);
    CHECK(ceilDiv(7, 2) == 4);
    CHECK(mod(-7, 3) == 2);
    CHECK(mod(7, -3) == -2);
    CHECK(pow(s0, 0) == 1);
    CHECK(pow(s0, 1) == s0);
    CHECK(pow(3, 4) == 81);
    CHECK(min(3, 5) == 3);
    CHECK(max(3, 5) == 5);
  }

  SECTION("like terms and powers") {
    CHECK(2 * s0 + 3 * s0 == 5 * s0);
    CHECK(s0 * s0 == pow(s0, 2));
    CHECK(pow(s0, 2) * s0 == pow(s0, 3));
    CHECK(pow(pow(s0, 2), 3) == pow(s0, 6));
    CHECK(pow(2 * s0, 2) == 4 * pow(s0, 2));
    CHECK(s0 + s1 == s1 + s0);
    CHECK(s0 * s1 == s1 * s0);
    CHECK((s0 + s1) + s2 == s0 + (s1 + s2));
    CHECK(2 * (s0 + 1) == 2 * s0 + 2);
    CHECK(-(s0 + 1) == -s0 - 1);
  }

  SECTION("division rewrites") {
    CHECK(floorDiv(2 * s0, 2) == s0);
    CHECK(floorDiv(4 * s0 + 8, 4) == s0 + 2);
    CHECK(floorDiv(2 * s0 + s1, 2) == s0 + floorDiv(s1, 2));
    CHECK(floorDiv(s0 + 3, 2) == floorDiv(s0 + 1, 2) + 1);
    CHECK(floorDiv(4 * s0, 6) == floorDiv(2 * s0, 3));
    CHECK(floorDiv(floorDiv(s0, 2), 3) == floorDiv(s0, 6));
    CHECK(floorDiv(s0, -2) == floorDiv(-s0, 2));
    CHECK(floorDiv(s0 * s1, s1) == s0);
    CHECK(floorDiv(s0, s0) == 1);
    CHECK(floorDiv(mod(s0, 4), 4) == 0);
    CHECK(ceilDiv(s0, 1) == s0);
    CHECK(ceilDiv(8 * s0, 8) == s0);
    CHECK(ceilDiv(ceilDiv(s0, 2), 4) == ceilDiv(s0, 8));
    CHECK(ceilDiv(s0, 8).kind() == ExprKind::CeilDiv);
    CHECK(mod(s0, 1) == 0);
    CHECK(mod(4 * s0 + 5, 2) == mod(1, 2));
    CHECK(mod(4 * s0 + s1, 2) == mod(s1, 2));
    CHECK(mod(mod(s0, 6), 3) == mod(s0, 3));
    CHECK(modularIndexing(s0, 1, 1) == 0);
    CHECK(modularIndexing(s0 + 64, 16, 4) == modularIndexing(s0, 16, 4));
    CHECK(modularIndexing(2 * s0, 4, 8) == modularIndexing(s0, 2, 8));
    CHECK(modularIndexing(37, 4, 5) == 4);
    // Division by zero is never folded away when it is the whole expression.
    CHECK(floorDiv(s0, 0).kind() == ExprKind::FloorDiv);
    CHECK(mod(5, 0).kind() == ExprKind::Mod);
  }

  SECTION("min and max") {
    CHECK(min(s0, s0) == s0);
    CHECK(max(s0, s0 + 1) == s0 + 1);
    CHECK(min(s0, s0 + 1) == s0);
    CHECK(max(max(s0, 2), max(s1, 5)) == max(std::vector<Expr>{s0, s1, 5}));
    CHECK(min(s1, s0) == min(s0, s1));
    CHECK(toString(max(std::vector<Expr>{s1, 7, s0, 3})) == "Max(7, s0, s1)");
  }

  SECTION("overflow while folding throws") {
    CHECK_THROWS_AS(Expr(INT64_MAX) + 1, std::overflow_error);
    CHECK_THROWS_AS(pow(Expr(2), 64), std::overflow_error);
    CHECK_THROWS_AS(pow(s0, -1), std::domain_error);
  }

  SECTION("hash is consistent with equality") {
    std::unordered_set<Expr> set;
    set.insert(s0 * s1 + 2);
    set.insert(2 + s1 * s0);
    set.insert(floorDiv(s0, 2));
    CHECK(set.size() == 2);
    CHECK(set.count(Expr(2) + s0 * s1) == 1);
  }

  SECTION("total order") {
    std::vector<Expr> v = {s2, 3, s0 * s1, s0, pow(s0, 2), -1, s1};
    std::sort(v.begin(), v.end(), ExprLess());
    std::vector<std::string> texts;
    for (const Expr &e : v)
      texts.push_back(toString(e));
    CHECK(texts == std::vector<std::string>{"-1", "3", "s0**2", "s0*s1", "s0",
                                            "s1", "s2"});
  }

  SECTION("symbols, substitute, simplify") {
    Expr e = floorDiv(s1 * s0, 4) + max(s2, s0);
    CHECK(symbols(e) == std::vector<std::string>{"s0", "s1", "s2"});
    CHECK(symbols(Expr(7)).empty());
    std::map<std::string, Expr, std::less<>> repl = {{"s0", Expr(4)},
                                                     {"s2", sym("ks0")}};
    CHECK(substitute(e, repl) == s1 + max(sym("ks0"), 4));
    CHECK(simplify(e) == e);
    CHECK(simplify(simplify(e)) == simplify(e));
  }
}

TEST_CASE("sym: parser constructs", "[sym][parse]") {
  Expr s0 = sym("s0"), s1 = sym("s1");
  CHECK(parse("42") == 42);
  CHECK(parse("  s0 ") == s0);
  CHECK(parse("_x9") == sym("_x9"));
  CHECK(parse("s0 + 1") == s0 + 1);
  CHECK(parse("s0 - s1") == s0 - s1);
  CHECK(parse("2*s0") == 2 * s0);
  CHECK(parse("s0 // 2") == floorDiv(s0, 2));
  CHECK(parse("s0 % 3") == mod(s0, 3));
  CHECK(parse("s0**3") == pow(s0, 3));
  CHECK(parse("-s0") == -s0);
  CHECK(parse("+s0") == s0);
  CHECK(parse("--s0") == s0);
  CHECK(parse("(s0)") == s0);
  CHECK(parse("FloorDiv(s0, 2)") == floorDiv(s0, 2));
  CHECK(parse("CeilDiv(s0, 2)") == ceilDiv(s0, 2));
  CHECK(parse("Mod(s0, 3)") == mod(s0, 3));
  CHECK(parse("PythonMod(s0, 3)") == mod(s0, 3));
  CHECK(parse("ModularIndexing(s0, 16, 4)") == modularIndexing(s0, 16, 4));
  CHECK(parse("Min(s0, s1, 3)") == min(std::vector<Expr>{s0, s1, 3}));
  CHECK(parse("Max(s0)") == s0);
  CHECK(parse("\ts0\n*\r\n( s1 +1 )") == s0 * (s1 + 1));
  CHECK(parse("-9223372036854775808") == INT64_MIN);
  CHECK(parse("9223372036854775807") == INT64_MAX);
}

TEST_CASE("sym: parser precedence and associativity", "[sym][parse]") {
  CHECK(eval(parse("2**3**2")) == 512);
  CHECK(eval(parse("-2**2")) == -4);
  CHECK(eval(parse("(-2)**2")) == 4);
  CHECK(eval(parse("7//-2")) == -4);
  CHECK(eval(parse("-7 % 3")) == 2);
  CHECK(eval(parse("7 % -3")) == -2);
  CHECK(eval(parse("-7//2")) == -4);
  CHECK(eval(parse("1 + 2*3")) == 7);
  CHECK(eval(parse("10 - 3 - 2")) == 5);
  CHECK(eval(parse("100 // 10 // 5")) == 2);
  CHECK(eval(parse("2*7 // 3")) == 4);
  CHECK(eval(parse("2*(7 // 3)")) == 4);
  CHECK(eval(parse("7 // 3*2")) == 4);
  CHECK(eval(parse("17 % 5 * 3")) == 6);
  CHECK(eval(parse("2**-0")) == 1);
  CHECK(eval(parse("-3**2 + 1")) == -8);
  CHECK(eval(parse("- - 4")) == 4);
  SymbolValues v = {{"s0", 10}, {"s1", 3}};
  CHECK(eval(parse("s0 - s1 - 1"), v) == 6);
  CHECK(eval(parse("s0 - (s1 - 1)"), v) == 8);
  CHECK(eval(parse("-(s0 + 1)*s1"), v) == -33);
  CHECK(eval(parse("s0 * -s1"), v) == -30);
}

TEST_CASE("sym: parser errors", "[sym][parse]") {
  struct Case {
    const char *text;
    size_t offset;
    const char *message;
  };
  const Case cases[] = {
      {"", 0, "expected an expression, found end of input"},
      {"   ", 3, "expected an expression, found end of input"},
      {"Foo(1)", 0, "unknown function 'Foo'"},
      {"s0 + floor(s1)", 5, "unknown function 'floor'"},
      {"s0 / 2", 3, "true division '/' is not an integer operation; use //"},
      {"/2", 0, "true division '/' is not an integer operation; use //"},
      {"(s0 + 1", 7,
       "expected ')' to match '(' at offset 0, found end of input"},
      {"s0 + 1)", 6, "unexpected ')' after the end of the expression"},
      {"s0 s1", 3, "unexpected 's1' after the end of the expression"},
      {"s0 + 1 2", 7, "unexpected '2' after the end of the expression"},
      {"99999999999999999999", 0, "integer literal out of int64 range"},
      {"s0 + 9223372036854775808", 5, "integer literal out of int64 range"},
      {"-9223372036854775809", 1, "integer literal out of int64 range"},
      {"Max(s0, s1", 10, "expected ')' after arguments of Max"},
      {"Max(s0 s1)", 7, "expected ')' after arguments of Max"},
      {"Max()", 4, "Max takes at least 1 argument"},
      {"FloorDiv(s0)", 11, "FloorDiv takes 2 arguments, got 1"},
      {"FloorDiv(s0, 2, 3)", 14, "expected ')' after arguments of FloorDiv"},
      {"ModularIndexing(s0, 2 3)", 22,
       "expected ',' after argument 2 of ModularIndexing, found '3'"},
      {"Min + 1", 4, "expected '(' after function name 'Min'"},
      {"s0 ** s1", 6,
       "the exponent of '**' must be a non-negative integer constant"},
      {"2 ** -1", 5,
       "the exponent of '**' must be a non-negative integer constant"},
      {"s0 $ 1", 3, "unexpected character '$'"},
      {"s0 + \x01", 5, "unexpected byte 0x01"},
      {"s0 +", 4, "expected an expression, found end of input"},
      {"9223372036854775807 + 1", 0,
       "int64 overflow while folding constants"},
      {"2**64", 1, "int64 overflow while folding constants"},
  };
  for (const Case &c : cases) {
    ParseError err = parseFailure(c.text);
    INFO("text: " << c.text);
    CHECK(err.message == c.message);
    CHECK(err.offset == c.offset);
  }

  SECTION("depth limit") {
    std::string deep(300, '(');
    deep += "s0";
    deep += std::string(300, ')');
    ParseError err = parseFailure(deep);
    CHECK(err.offset == kMaxParseDepth);
    CHECK(err.message == "expression nested deeper than 256 levels");

    std::string minuses(100000, '-');
    err = parseFailure(minuses + "s0");
    CHECK(err.message == "expression nested deeper than 256 levels");

    std::string calls;
    for (int i = 0; i < 1000; ++i)
      calls += "Max(s0, ";
    err = parseFailure(calls + "1" + std::string(1000, ')'));
    CHECK(err.message == "expression nested deeper than 256 levels");

    std::string shallow(200, '(');
    shallow += "s0";
    shallow += std::string(200, ')');
    CHECK(parse(shallow) == sym("s0"));
  }
}

TEST_CASE("sym: parser survives mangled input", "[sym][parse]") {
  const std::string seeds[] = {
      "FloorDiv(s0*s1 + 3, 2) - Max(ks0, 4)**2 % 7",
      "ModularIndexing(-(s0 + 1)*s1, 16, 4) + CeilDiv(s6, -8)",
      "-9223372036854775808*s0 + Min(u0, 2**3**2) // -(s1 - 2)",
  };
  const char alphabet[] = "()+-*/%, 0123456789sMFx_\t";
  std::mt19937_64 rng(7);
  int parsed = 0;
  for (int i = 0; i < 20000; ++i) {
    std::string text = seeds[rng() % 3];
    for (int edits = 1 + static_cast<int>(rng() % 4); edits > 0; --edits) {
      size_t pos = rng() % (text.size() + 1);
      switch (rng() % 3) {
      case 0:
        if (pos < text.size())
          text.erase(pos, 1);
        break;
      case 1:
        text.insert(pos, 1, alphabet[rng() % (sizeof(alphabet) - 1)]);
        break;
      default:
        if (pos < text.size())
          text[pos] = alphabet[rng() % (sizeof(alphabet) - 1)];
        break;
      }
    }
    ParseError err;
    std::optional<Expr> e = parseExpr(text, err);
    INFO("text: " << text);
    if (!e) {
      CHECK(err.offset <= text.size());
      CHECK_FALSE(err.message.empty());
      continue;
    }
    ++parsed;
    REQUIRE(parse(toString(*e)) == *e);
  }
  CHECK(parsed > 1000);
}

TEST_CASE("sym: FX golden strings", "[sym][print]") {
  Expr s6 = sym("s6"), s10 = sym("s10");
  CHECK(printFx(simplify(s10 * s10)) == "s10**2");
  CHECK(printFx(ceilDiv(s6, 8)) == "-(((-s6)//8))");
  CHECK(printFx(ceilDiv(pow(s10, 2), 64)) == "-(((s10**2)//(-64)))");
}

TEST_CASE("sym: printer tables", "[sym][print]") {
  Expr s0 = sym("s0"), s1 = sym("s1"), s2 = sym("s2"), s6 = sym("s6"),
       s10 = sym("s10"), x0 = sym("x0");
  struct Row {
    Expr e;
    const char *fx;
    const char *python;
    const char *cpp;
    const char *canonical;
  };
  const Row rows[] = {
      {s0 + 1, "s0 + 1", "1 + s0", "wirc::rt::add(INT64_C(1), s0)",
       "s0 + 1"},
      {s0 - 1, "s0 - 1", "(-1) + s0", "wirc::rt::add(INT64_C(-1), s0)",
       "s0 - 1"},
      {2 * s0 - 3, "2*s0 - 3", "(-3) + 2*s0",
       "wirc::rt::add(INT64_C(-3), wirc::rt::mul(INT64_C(2), s0))",
       "2*s0 - 3"},
      {s2 + s0 * s1, "s0*s1 + s2", "s0*s1 + s2",
       "wirc::rt::add(wirc::rt::mul(s0, s1), s2)", "s0*s1 + s2"},
      {s1 - s0, "-s0 + s1", "((-1)*s0) + s1",
       "wirc::rt::add(wirc::rt::neg(s0), s1)", "-s0 + s1"},
      {-2 * s0, "-2*s0", "(-2)*s0", "wirc::rt::mul(INT64_C(-2), s0)",
       "-2*s0"},
      {s0 * s1 * s2, "s0*s1*s2", "s0*s1*s2", "wirc::rt::product({s0, s1, s2})",
       "s0*s1*s2"},
      {s0 + s1 + s2 + 4, "s0 + s1 + s2 + 4", "4 + s0 + s1 + s2",
       "wirc::rt::sum({INT64_C(4), s0, s1, s2})", "s0 + s1 + s2 + 4"},
      {s10 * s10, "s10**2", "s10*s10", "wirc::rt::pow(s10, INT64_C(2))",
       "s10**2"},
      {pow(s0 + 1, 2), "(s0 + 1)**2", "(1 + s0)*(1 + s0)",
       "wirc::rt::pow(wirc::rt::add(INT64_C(1), s0), INT64_C(2))",
       "(s0 + 1)**2"},
      {pow(s0, 20), "s0**20", "s0 ** 20", "wirc::rt::pow(s0, INT64_C(20))",
       "s0**20"},
      {floorDiv(s0, 2), "(s0//2)", "(s0 // 2)",
       "wirc::rt::floor_div(s0, INT64_C(2))", "FloorDiv(s0, 2)"},
      {floorDiv(-s6, 8), "((-s6)//8)", "(((-1)*s6) // 8)",
       "wirc::rt::floor_div(wirc::rt::neg(s6), INT64_C(8))",
       "FloorDiv(-s6, 8)"},
      {floorDiv(s0 + 1, 2), "((s0 + 1)//2)", "((1 + s0) // 2)",
       "wirc::rt::floor_div(wirc::rt::add(INT64_C(1), s0), INT64_C(2))",
       "FloorDiv(s0 + 1, 2)"},
      {2 * floorDiv(s0, 2), "2*(s0//2)", "2*(s0 // 2)",
       "wirc::rt::mul(INT64_C(2), wirc::rt::floor_div(s0, INT64_C(2)))",
       "2*FloorDiv(s0, 2)"},
      {floorDiv(s0, 2) + 1, "(s0//2) + 1", "1 + (s0 // 2)",
       "wirc::rt::add(INT64_C(1), wirc::rt::floor_div(s0, INT64_C(2)))",
       "FloorDiv(s0, 2) + 1"},
      {ceilDiv(s6, 8), "-(((-s6)//8))", "-((s6) // -(8))",
       "wirc::rt::ceil_div(s6, INT64_C(8))", "CeilDiv(s6, 8)"},
      {ceilDiv(s0 * s1, 1024), "-(((s0*s1)//(-1024)))",
       "-((s0*s1) // -(1024))",
       "wirc::rt::ceil_div(wirc::rt::mul(s0, s1), INT64_C(1024))",
       "CeilDiv(s0*s1, 1024)"},
      {s0 + ceilDiv(s6, 8), "s0 - (((-s6)//8))", "s0 + (-((s6) // -(8)))",
       "wirc::rt::add(s0, wirc::rt::ceil_div(s6, INT64_C(8)))",
       "s0 + CeilDiv(s6, 8)"},
      {mod(s0, 3), "s0 % 3", "s0 % 3", "wirc::rt::py_mod(s0, INT64_C(3))",
       "Mod(s0, 3)"},
      {mod(s0 + 1, 3) + s1, "s1 + ((s0 + 1) % 3)", "s1 + ((1 + s0) % 3)",
       "wirc::rt::add(s1, wirc::rt::py_mod(wirc::rt::add(INT64_C(1), s0), "
       "INT64_C(3)))",
       "s1 + Mod(s0 + 1, 3)"},
      {modularIndexing(x0, 16, 4), "ModularIndexing(x0, 16, 4)",
       "((x0 // 16) % 4)",
       "wirc::rt::py_mod(wirc::rt::floor_div(x0, INT64_C(16)), INT64_C(4))",
       "ModularIndexing(x0, 16, 4)"},
      {modularIndexing(s0, 1, 4), "ModularIndexing(s0, 1, 4)", "(s0 % 4)",
       "wirc::rt::py_mod(wirc::rt::floor_div(s0, INT64_C(1)), INT64_C(4))",
       "ModularIndexing(s0, 1, 4)"},
      {max(s0, s1), "Max(s0, s1)", "max(s0, s1)",
       "wirc::rt::max(s0, s1)", "Max(s0, s1)"},
      {min(std::vector<Expr>{s0, s1, x0}), "Min(s0, s1, x0)",
       "min(s0, s1, x0)", "wirc::rt::min({s0, s1, x0})", "Min(s0, s1, x0)"},
      {s1 * (s0 + 1), "s1*(s0 + 1)", "s1*(1 + s0)",
       "wirc::rt::mul(s1, wirc::rt::add(INT64_C(1), s0))", "s1*(s0 + 1)"},
      {Expr(-64), "-64", "-64", "INT64_C(-64)", "-64"},
      {Expr(INT64_MIN), "-9223372036854775808", "-9223372036854775808",
       "(INT64_C(-9223372036854775807) - 1)", "-9223372036854775808"},
  };
  for (const Row &r : rows) {
    INFO("canonical: " << toString(r.e));
    CHECK(printFx(r.e) == r.fx);
    CHECK(printPython(r.e) == r.python);
    CHECK(printCpp(r.e) == r.cpp);
    CHECK(toString(r.e) == r.canonical);
    CHECK(parse(toString(r.e)) == r.e);
  }
}

TEST_CASE("sym: round trip of awkward canonical forms", "[sym][print]") {
  Expr s0 = sym("s0"), s1 = sym("s1");
  const Expr cases[] = {
      -(s0 + 1) * s1,
      product(std::vector<Expr>{Expr(3), s0 + 1, s1}),
      s1 - product(std::vector<Expr>{s0 + 1, s1}),
      INT64_MIN * s0 + s1,
      s1 + INT64_MIN,
      pow(floorDiv(s0, 2), 3) * min(s0, s1),
      mod(s0, 3) * 2,
      -mod(s0, 3),
      -ceilDiv(s0, 4),
  };
  for (const Expr &e : cases) {
    INFO("canonical: " << toString(e));
    CHECK(parse(toString(e)) == e);
    SymbolValues v = {{"s0", 7}, {"s1", -3}};
    std::string error;
    std::optional<int64_t> want = evaluate(e, v, error);
    std::optional<int64_t> fx = evaluate(parse(printFx(e)), v, error);
    CHECK(want == fx);
  }
}

TEST_CASE("sym: evaluation", "[sym][eval]") {
  Expr s0 = sym("s0"), s1 = sym("s1");
  SymbolValues v = {{"s0", -7}, {"s1", 2}};
  CHECK(eval(floorDiv(s0, s1), v) == -4);
  CHECK(eval(ceilDiv(s0, s1), v) == -3);
  CHECK(eval(mod(s0, s1), v) == 1);
  CHECK(eval(modularIndexing(s0, s1, 3), v) == 2);
  CHECK(eval(pow(s0, 3), v) == -343);
  CHECK(eval(min(s0, s1) + max(s0, s1), v) == -5);

  std::string error;
  SECTION("unknown symbol") {
    CHECK_FALSE(evaluate(s0 + sym("u0"), v, error));
    CHECK(error == "unknown symbol 'u0'");
  }
  SECTION("division by zero") {
    CHECK_FALSE(evaluate(floorDiv(s1, s0 + 7), v, error));
    CHECK(error == "division by zero in FloorDiv");
    CHECK_FALSE(evaluate(mod(s0, 0), v, error));
    CHECK(error == "division by zero in Mod");
    CHECK_FALSE(evaluate(ceilDiv(s0, s1 - 2), v, error));
    CHECK(error == "division by zero in CeilDiv");
    CHECK_FALSE(evaluate(modularIndexing(s0, 1, s1 - 2), v, error));
    CHECK(error == "division by zero in ModularIndexing");
  }
  SECTION("overflow") {
    SymbolValues big = {{"s0", INT64_MAX}, {"s1", 2}};
    CHECK_FALSE(evaluate(s0 + 1, big, error));
    CHECK(error == "int64 overflow in Add");
    CHECK_FALSE(evaluate(s0 * s1, big, error));
    CHECK(error == "int64 overflow in Mul");
    CHECK_FALSE(evaluate(pow(s1, 63), big, error));
    CHECK(error == "int64 overflow in Pow");
    SymbolValues minValue = {{"s0", INT64_MIN}};
    CHECK_FALSE(
        evaluate(floorDiv(s0, s1), {{"s0", INT64_MIN}, {"s1", -1}}, error));
    CHECK(error == "int64 overflow in FloorDiv");
    CHECK_FALSE(evaluate(-s0, minValue, error));
    CHECK(error == "int64 overflow in Mul");
    CHECK(evaluate(mod(s0, s1), {{"s0", INT64_MIN}, {"s1", -1}}, error) == 0);
    CHECK(evaluate(pow(-2 * s1, 63), {{"s1", 1}}, error) == INT64_MIN);
  }
}

TEST_CASE("sym: scale", "[sym][scale]") {
  constexpr int kTerms = 10000;
  std::vector<Expr> syms;
  for (int i = 0; i < kTerms; ++i)
    syms.push_back(sym(symbolName(i)));

  SECTION("n-ary sum") {
    std::vector<Expr> terms;
    for (int i = 0; i < kTerms; ++i)
      terms.push_back((i % 7) * syms[static_cast<size_t>(i)] + 1);
    Expr e = sum(terms);
    // Every seventh coefficient is 0.
    CHECK(e.operands().size() == 1 + kTerms - (kTerms + 6) / 7);
    CHECK(e.operands()[0] == kTerms);
    CHECK(simplify(e) == e);
    std::string text = toString(e);
    CHECK(parse(text) == e);
    CHECK(!printFx(e).empty());
    CHECK(!printPython(e).empty());
    CHECK(!printCpp(e).empty());
    SymbolValues values;
    for (int i = 0; i < kTerms; ++i)
      values[symbolName(i)] = 1;
    int64_t want = kTerms;
    for (int i = 0; i < kTerms; ++i)
      want += i % 7;
    CHECK(eval(e, values) == want);
  }

  SECTION("repeated binary +") {
    // Each + copies its n-term operand (O(n)); sum() is the bulk path.
    constexpr int kRepeated = 3000;
    Expr e;
    for (int i = kRepeated - 1; i >= 0; --i)
      e = e + syms[static_cast<size_t>(i)];
    for (int i = 0; i < kRepeated; i += 2)
      e = e - syms[static_cast<size_t>(i)];
    CHECK(e.operands().size() == kRepeated / 2);
    CHECK(simplify(e) == e);
  }

  SECTION("parse a 10,000-term sum") {
    std::string text;
    for (int i = 0; i < kTerms; ++i)
      text += (i ? " + " : "") + std::to_string(i % 5 + 1) + "*s" +
              std::to_string(i % 2000);
    Expr e = parse(text);
    CHECK(e.operands().size() == 2000);
    CHECK(parse(toString(e)) == e);
  }

  SECTION("deep simplify does not grow") {
    Expr s0 = sym("s0");
    Expr e = s0;
    for (int i = 0; i < 200; ++i)
      e = floorDiv(e + 3, 2) + ceilDiv(s0, 4);
    Expr once = simplify(e);
    CHECK(simplify(once) == once);
    CHECK(toString(once).size() == toString(e).size());
  }
}

TEST_CASE("runtime: checked Arith helpers", "[sym][arith]") {
  namespace rt = wirc::rt;
  // Usable in constant expressions.
  static_assert(rt::floor_div(-7, 2) == -4);
  static_assert(rt::ceil_div(-7, 2) == -3);
  static_assert(rt::ceil_div(7, 2) == 4);
  static_assert(rt::py_mod(-7, 3) == 2);
  static_assert(rt::py_mod(7, -3) == -2);
  static_assert(rt::pow(3, 4) == 81);
  static_assert(rt::sum({1, 2, 3}) == 6);
  static_assert(rt::product({2, 3, 4}) == 24);
  static_assert(rt::min({4, -1, 3}) == -1);
  static_assert(rt::max(4, 9) == 9);

  for (int64_t a = -30; a <= 30; ++a) {
    for (int64_t b = -7; b <= 7; ++b) {
      if (b == 0)
        continue;
      INFO("a=" << a << " b=" << b);
      auto q = static_cast<int64_t>(std::floor(double(a) / double(b)));
      auto c = static_cast<int64_t>(std::ceil(double(a) / double(b)));
      CHECK(rt::floor_div(a, b) == q);
      CHECK(rt::ceil_div(a, b) == c);
      CHECK(rt::py_mod(a, b) == a - b * q);
    }
  }

  CHECK_THROWS_WITH(rt::add(INT64_MAX, 1), "wirc::rt::add: int64 overflow");
  CHECK_THROWS_WITH(rt::sub(INT64_MIN, 1), "wirc::rt::sub: int64 overflow");
  CHECK_THROWS_WITH(rt::floor_div(1, 0),
                    "wirc::rt::floor_div: division by zero");
  CHECK_THROWS_WITH(rt::py_mod(1, 0), "wirc::rt::py_mod: modulo by zero");
  CHECK_THROWS_AS(rt::ceil_div(1, 0), std::overflow_error);
  CHECK_THROWS_AS(rt::floor_div(INT64_MIN, -1), std::overflow_error);
  CHECK_THROWS_AS(rt::ceil_div(INT64_MIN, -1), std::overflow_error);
  CHECK_THROWS_AS(rt::neg(INT64_MIN), std::overflow_error);
  CHECK_THROWS_AS(rt::mul(INT64_MIN, -1), std::overflow_error);
  CHECK_THROWS_AS(rt::sum({INT64_MAX, 1, -5}), std::overflow_error);
  CHECK_THROWS_AS(rt::product({INT64_MAX, 2, 0}), std::overflow_error);
  CHECK_THROWS_AS(rt::pow(2, 63), std::overflow_error);
  CHECK_THROWS_WITH(rt::pow(2, -1), "wirc::rt::pow: negative exponent");
  CHECK(rt::py_mod(INT64_MIN, -1) == 0);
  CHECK(rt::floor_div(INT64_MIN, 1) == INT64_MIN);
  CHECK(rt::floor_div(INT64_MIN, 2) == INT64_MIN / 2);
  CHECK(rt::ceil_div(INT64_MAX, 2) == INT64_MAX / 2 + 1);
  CHECK(rt::py_mod(INT64_MIN, 3) == 1);
  CHECK(rt::pow(-2, 63) == INT64_MIN);
  CHECK(rt::pow(2, 62) == (int64_t(1) << 62));
  CHECK(rt::pow(1, INT64_MAX) == 1);
  CHECK(rt::pow(-1, INT64_MAX) == -1);
  CHECK(rt::pow(0, 0) == 1);
  CHECK(rt::min(INT64_MIN, INT64_MAX) == INT64_MIN);
}
