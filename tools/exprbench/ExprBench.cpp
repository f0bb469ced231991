//===- ExprBench.cpp - Speed and growth of symbolic expressions -----------===//
//
// Prints, for expressions of 1k to 100k terms, the time to build, simplify
// and print them (Python, C++, FX), and the expression's size (tree nodes)
// after one and after ten rounds of simplification: equal sizes and equal
// expressions show that repeated simplification does not grow it. Figures go
// to docs/performance.md.
//
// usage: wirc-exprbench [REPEATS [MAX_TERMS]]
//
//===----------------------------------------------------------------------===//
#include "wirc/sym/Expr.h"

#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <random>
#include <vector>

using namespace wirc::sym;
using Clock = std::chrono::steady_clock;

namespace {

/// Nodes of the expression tree, shared subtrees counted each time.
size_t treeSize(const Expr &e) {
  size_t n = 1;
  for (const Expr &op : e.operands())
    n += treeSize(op);
  return n;
}

double ms(Clock::time_point start) {
  return std::chrono::duration<double, std::milli>(Clock::now() - start).count();
}

/// A sum of `terms` products of small coefficients and up to three of 64
/// symbols, with floor and ceiling divisions mixed in: the shape of index
/// and size expressions.
std::vector<Expr> randomTerms(size_t terms, uint64_t seed) {
  std::mt19937_64 rng(seed);
  std::vector<Expr> symbols;
  for (int i = 0; i < 64; ++i) {
    std::string name = "s"; // (appended: GCC 12 warns falsely about "s" + string)
    name += std::to_string(i);
    symbols.push_back(Expr::symbol(name));
  }
  std::vector<Expr> out;
  out.reserve(terms);
  for (size_t i = 0; i < terms; ++i) {
    Expr term(static_cast<int64_t>(rng() % 7) + 1);
    for (int k = 0, n = 1 + static_cast<int>(rng() % 3); k < n; ++k)
      term = term * symbols[rng() % symbols.size()];
    if (rng() % 5 == 0)
      term = floorDiv(term, Expr(static_cast<int64_t>(2 + rng() % 6)));
    else if (rng() % 7 == 0)
      term = ceilDiv(term, Expr(static_cast<int64_t>(2 + rng() % 6)));
    out.push_back(term);
  }
  return out;
}

} // namespace

int main(int argc, char **argv) {
  int repeats = argc > 1 ? std::atoi(argv[1]) : 3;
  size_t maxTerms = argc > 2 ? static_cast<size_t>(std::atoll(argv[2])) : 100000;
  std::printf("%8s %10s %12s %10s %10s %10s %10s %10s %10s %7s\n", "terms", "build ms",
              "simplify ms", "python ms", "cpp ms", "fx ms", "total ms", "nodes x1", "nodes x10",
              "stable");
  bool failed = false;
  for (size_t terms : {size_t(1000), size_t(10000), size_t(100000)}) {
    if (terms > maxTerms)
      break;
    double best[5] = {1e30, 1e30, 1e30, 1e30, 1e30};
    bool stable = true;
    size_t nodesOnce = 0, nodesTen = 0;
    for (int r = 0; r < repeats; ++r) {
      std::vector<Expr> parts = randomTerms(terms, 7 + terms);
      auto t0 = Clock::now();
      Expr e = sum(parts);
      double build = ms(t0);
      t0 = Clock::now();
      Expr s = simplify(e);
      double simp = ms(t0);
      t0 = Clock::now();
      size_t py = printPython(s).size();
      double tpy = ms(t0);
      t0 = Clock::now();
      size_t cpp = printCpp(s).size();
      double tcpp = ms(t0);
      t0 = Clock::now();
      size_t fx = printFx(s).size();
      double tfx = ms(t0);
      // Simplifying a simplified expression changes nothing: no growth.
      Expr once = s;
      nodesOnce = treeSize(once);
      for (int k = 1; k < 10; ++k)
        s = simplify(s);
      nodesTen = treeSize(s);
      stable &= s == once && nodesTen == nodesOnce && toString(s) == toString(once);
      (void)py;
      (void)cpp;
      (void)fx;
      double times[5] = {build, simp, tpy, tcpp, tfx};
      for (int k = 0; k < 5; ++k)
        best[k] = std::min(best[k], times[k]);
    }
    std::printf("%8zu %10.2f %12.2f %10.2f %10.2f %10.2f %10.2f %10zu %10zu %7s\n", terms,
                best[0], best[1], best[2], best[3], best[4],
                best[1] + best[2] + best[3] + best[4], nodesOnce, nodesTen, stable ? "yes" : "NO");
    if (!stable)
      failed = true;
  }

  // Nesting: each level wraps the previous expression once, so the size must
  // grow linearly with the depth and not change under simplification.
  std::printf("\n%8s %10s %10s %10s %7s\n", "depth", "nodes", "nodes x1", "nodes x10", "stable");
  Expr s0 = Expr::symbol("s0");
  for (int depth : {10, 100, 1000}) {
    Expr e = s0;
    for (int i = 0; i < depth; ++i)
      e = floorDiv(e + 3, Expr(2)) + ceilDiv(s0, Expr(4));
    Expr once = simplify(e), ten = once;
    for (int k = 1; k < 10; ++k)
      ten = simplify(ten);
    bool stable = once == e && ten == once;
    std::printf("%8d %10zu %10zu %10zu %7s\n", depth, treeSize(e), treeSize(once), treeSize(ten),
                stable ? "yes" : "NO");
    failed |= !stable;
  }
  return failed ? 1 : 0;
}
