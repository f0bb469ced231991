//===- test/sym/RandomExpr.h - Random expression trees for sym tests ------===//
//
// A tiny expression tree independent of wirc::sym, with a reference evaluator
// in 128-bit integers and Python semantics, a builder into wirc::sym::Expr through the
// public operators, and a printer into graph-format text with Python's
// precedence (minimal parentheses, mixed spellings, random whitespace). Shared
// by the Catch2 property tests and test/sym/ExprPropertyGen.cpp.
//
//===----------------------------------------------------------------------===//

#ifndef WIRC_TEST_SYM_RANDOMEXPR_H
#define WIRC_TEST_SYM_RANDOMEXPR_H

#include "wirc/sym/Expr.h"

#include <cstdint>
#include <random>
#include <string>
#include <vector>

namespace wirc::symtest {

/// A node of the reference tree.
struct RNode {
  enum Op {
    Const,
    Sym,
    Add,
    Sub,
    Mul,
    Neg,
    FloorDiv,
    CeilDiv,
    Mod,
    ModIndex,
    Pow,
    Min,
    Max
  };
  Op op = Const;
  /// Const: the value; Sym: the symbol index; Pow: the exponent.
  int64_t value = 0;
  std::vector<RNode> kids;
};

/// Names of the symbols a tree may use.
inline const std::vector<std::string> &symbolNames() {
  static const std::vector<std::string> names = {"s0", "s1", "ks2"};
  return names;
}

/// Generates random trees deterministically from a seed.
class RandomExprGen {
public:
  explicit RandomExprGen(uint64_t seed) : rng(seed) {}

  /// A random tree of at most \p depth levels.
  RNode tree(int depth) {
    RNode n;
    if (depth <= 0 || pick(4) == 0) {
      if (pick(5) < 2) {
        n.op = RNode::Const;
        n.value = pickIn(-10, 10);
      } else {
        n.op = RNode::Sym;
        n.value = pickIn(0, static_cast<int64_t>(symbolNames().size()) - 1);
      }
      return n;
    }
    n.op = static_cast<RNode::Op>(pickIn(RNode::Add, RNode::Max));
    switch (n.op) {
    case RNode::Neg:
      n.kids.push_back(tree(depth - 1));
      break;
    case RNode::Pow:
      n.value = pickIn(0, 3);
      n.kids.push_back(tree(depth - 1));
      break;
    case RNode::ModIndex:
      n.kids.push_back(tree(depth - 1));
      n.kids.push_back(smallDivisor(depth - 1));
      n.kids.push_back(smallDivisor(depth - 1));
      break;
    case RNode::FloorDiv:
    case RNode::CeilDiv:
    case RNode::Mod:
      n.kids.push_back(tree(depth - 1));
      n.kids.push_back(smallDivisor(depth - 1));
      break;
    case RNode::Min:
    case RNode::Max: {
      int64_t k = pickIn(2, 3);
      for (int64_t i = 0; i < k; ++i)
        n.kids.push_back(tree(depth - 1));
      break;
    }
    default:
      n.kids.push_back(tree(depth - 1));
      n.kids.push_back(tree(depth - 1));
      break;
    }
    return n;
  }

  /// Values for every symbol in [lo, hi].
  wirc::sym::SymbolValues values(int64_t lo, int64_t hi) {
    wirc::sym::SymbolValues v;
    for (const std::string &name : symbolNames())
      v[name] = pickIn(lo, hi);
    return v;
  }

  /// Graph-format text for \p n with Python precedence.
  std::string text(const RNode &n) { return textAt(n).text; }

  /// A uniform integer in [lo, hi].
  int64_t pickIn(int64_t lo, int64_t hi) {
    return std::uniform_int_distribution<int64_t>(lo, hi)(rng);
  }

private:
  int64_t pick(int64_t n) { return pickIn(0, n - 1); }

  // Divisors are mostly small positive constants, as in real sizes, but
  // negative, zero and symbolic ones appear too.
  RNode smallDivisor(int depth) {
    RNode n;
    int64_t r = pick(10);
    if (r < 6) {
      n.op = RNode::Const;
      n.value = pickIn(1, 8);
    } else if (r < 7) {
      n.op = RNode::Const;
      n.value = pickIn(-4, 0);
    } else {
      n = tree(depth < 1 ? 0 : 1);
    }
    return n;
  }

  struct Text {
    std::string text;
    int level; // 1 sum, 2 product, 3 unary, 4 power, 5 atom
  };

  std::string space() {
    int64_t r = pick(8);
    return r == 0 ? "" : (r == 1 ? "  " : " ");
  }

  std::string wrapIf(const Text &t, bool wrap) {
    return wrap ? "(" + t.text + ")" : t.text;
  }

  std::string call(const std::string &name, const RNode &n) {
    std::string s = name + "(";
    for (size_t i = 0; i < n.kids.size(); ++i) {
      if (i) {
        // Appended: GCC 12 warns falsely (-Wrestrict) about "," + std::string.
        s += ',';
        s += space();
      }
      s += textAt(n.kids[i]).text;
    }
    return s + ")";
  }

  Text binary(const RNode &n, const char *op, int level) {
    Text l = textAt(n.kids[0]), r = textAt(n.kids[1]);
    return {wrapIf(l, l.level < level) + space() + op + space() +
                wrapIf(r, r.level <= level),
            level};
  }

  Text textAt(const RNode &n) {
    switch (n.op) {
    case RNode::Const:
      return {std::to_string(n.value), n.value < 0 ? 3 : 5};
    case RNode::Sym:
      return {symbolNames()[static_cast<size_t>(n.value)], 5};
    case RNode::Add:
      return binary(n, "+", 1);
    case RNode::Sub:
      return binary(n, "-", 1);
    case RNode::Mul:
      return binary(n, "*", 2);
    case RNode::Neg: {
      Text k = textAt(n.kids[0]);
      std::string text = "-";
      text += space();
      text += wrapIf(k, k.level < 3);
      return {text, 3};
    }
    case RNode::FloorDiv:
      if (pick(2))
        return binary(n, "//", 2);
      return {call("FloorDiv", n), 5};
    case RNode::CeilDiv:
      return {call("CeilDiv", n), 5};
    case RNode::Mod: {
      int64_t r = pick(3);
      if (r == 0)
        return binary(n, "%", 2);
      return {call(r == 1 ? "Mod" : "PythonMod", n), 5};
    }
    case RNode::ModIndex:
      return {call("ModularIndexing", n), 5};
    case RNode::Pow: {
      Text b = textAt(n.kids[0]);
      return {wrapIf(b, b.level < 5) + space() + "**" + space() +
                  std::to_string(n.value),
              4};
    }
    case RNode::Min:
      return {call("Min", n), 5};
    case RNode::Max:
      return {call("Max", n), 5};
    }
    return {"0", 5};
  }

  std::mt19937_64 rng;
};

/// 128-bit integers for the reference evaluator (a GCC/Clang extension).
__extension__ typedef __int128 Int128;

/// Outcome of the reference evaluator.
enum class RefStatus { Ok, DivisionByZero, TooBig };

/// Evaluates with Python semantics in Int128; TooBig once any intermediate
/// exceeds 2^62 in magnitude (the int64 evaluator may then overflow).
inline RefStatus refEval(const RNode &n, const wirc::sym::SymbolValues &vals,
                         Int128 &out) {
  constexpr Int128 kLimit = (Int128)1 << 62;
  std::vector<Int128> v;
  for (const RNode &k : n.kids) {
    Int128 x = 0;
    RefStatus s = refEval(k, vals, x);
    if (s != RefStatus::Ok)
      return s;
    v.push_back(x);
  }
  auto floorDiv = [](Int128 a, Int128 b) {
    Int128 q = a / b;
    if (a % b != 0 && ((a < 0) != (b < 0)))
      --q;
    return q;
  };
  switch (n.op) {
  case RNode::Const:
    out = n.value;
    break;
  case RNode::Sym:
    out = vals.at(symbolNames()[static_cast<size_t>(n.value)]);
    break;
  case RNode::Add:
    out = v[0] + v[1];
    break;
  case RNode::Sub:
    out = v[0] - v[1];
    break;
  case RNode::Mul:
    out = v[0] * v[1];
    break;
  case RNode::Neg:
    out = -v[0];
    break;
  case RNode::FloorDiv:
    if (v[1] == 0)
      return RefStatus::DivisionByZero;
    out = floorDiv(v[0], v[1]);
    break;
  case RNode::CeilDiv:
    if (v[1] == 0)
      return RefStatus::DivisionByZero;
    out = -floorDiv(-v[0], v[1]);
    break;
  case RNode::Mod:
    if (v[1] == 0)
      return RefStatus::DivisionByZero;
    out = v[0] - v[1] * floorDiv(v[0], v[1]);
    break;
  case RNode::ModIndex: {
    if (v[1] == 0 || v[2] == 0)
      return RefStatus::DivisionByZero;
    Int128 q = floorDiv(v[0], v[1]);
    out = q - v[2] * floorDiv(q, v[2]);
    break;
  }
  case RNode::Pow:
    out = 1;
    for (int64_t i = 0; i < n.value; ++i) {
      out *= v[0];
      if (out > kLimit || out < -kLimit)
        return RefStatus::TooBig;
    }
    break;
  case RNode::Min:
  case RNode::Max:
    out = v[0];
    for (Int128 x : v)
      out = (n.op == RNode::Min) == (x < out) ? x : out;
    break;
  }
  if (out > kLimit || out < -kLimit)
    return RefStatus::TooBig;
  return RefStatus::Ok;
}

/// Builds the tree through wirc::sym's public operators.
inline wirc::sym::Expr toExpr(const RNode &n) {
  using namespace wirc::sym;
  std::vector<Expr> k;
  for (const RNode &kid : n.kids)
    k.push_back(toExpr(kid));
  switch (n.op) {
  case RNode::Const:
    return n.value;
  case RNode::Sym:
    return Expr::symbol(symbolNames()[static_cast<size_t>(n.value)]);
  case RNode::Add:
    return k[0] + k[1];
  case RNode::Sub:
    return k[0] - k[1];
  case RNode::Mul:
    return k[0] * k[1];
  case RNode::Neg:
    return -k[0];
  case RNode::FloorDiv:
    return floorDiv(k[0], k[1]);
  case RNode::CeilDiv:
    return ceilDiv(k[0], k[1]);
  case RNode::Mod:
    return mod(k[0], k[1]);
  case RNode::ModIndex:
    return modularIndexing(k[0], k[1], k[2]);
  case RNode::Pow:
    return pow(k[0], n.value);
  case RNode::Min:
    return min(k);
  case RNode::Max:
    return max(k);
  }
  return {};
}

} // namespace wirc::symtest

#endif // WIRC_TEST_SYM_RANDOMEXPR_H
