//===- lib/sym/Canonical.cpp - Canonicalising constructors ----------------===//
//
// Every way to build a compound Expr goes through here, so every Expr is in
// canonical form. Each rewrite is an identity over all integers (negative
// values included); see the list in Expr.h.
//
//===----------------------------------------------------------------------===//

#include "ExprImpl.h"

#include "wirc/runtime/Arith.h"

#include <algorithm>
#include <numeric>
#include <stdexcept>

namespace wirc::sym {

using detail::baseOf;
using detail::coefficientOf;
using detail::compareBases;
using detail::compareMonomials;
using detail::exponentOf;
using detail::FactorRange;
using detail::factorsOf;
using detail::intValue;
using detail::isKind;
using detail::makeNode;
using detail::makeTerm;
using detail::opsOf;
using detail::SmallVec;

namespace {

[[noreturn]] void overflow() {
  throw std::overflow_error(
      "wirc::sym: int64 overflow while canonicalising an expression");
}

int64_t checkedAdd(int64_t a, int64_t b) {
  int64_t r = 0;
  if (rt::try_add(a, b, r) != rt::ArithStatus::Ok)
    overflow();
  return r;
}

int64_t checkedMul(int64_t a, int64_t b) {
  int64_t r = 0;
  if (rt::try_mul(a, b, r) != rt::ArithStatus::Ok)
    overflow();
  return r;
}

uint64_t magnitude(int64_t v) {
  return v < 0 ? uint64_t(0) - static_cast<uint64_t>(v)
               : static_cast<uint64_t>(v);
}

Expr makePow(const Expr &base, int64_t exponent) {
  if (exponent == 1)
    return base;
  return makeNode(ExprKind::Pow, {base, Expr(exponent)});
}

// The terms of a sum: the operands of an Add, else the expression itself.
std::span<const Expr> termsOf(const Expr &e) {
  if (isKind(e, ExprKind::Add))
    return e.operands();
  return {&e, 1};
}

// Sorts items that arrive as sorted runs. Adjacent runs already in order
// join first (one comparison each), so re-canonicalising a sorted operand list
// sorts nothing; one run left needs nothing, two are merged in linear time
// (the a + b case), more are sorted.
template <typename Items, typename Runs, typename Less>
void sortRuns(Items &items, Runs &runStarts, Less less) {
  size_t kept = runStarts.empty() ? 0 : 1;
  for (size_t k = 1; k < runStarts.size(); ++k) {
    size_t start = runStarts[k];
    if (less(items[start], items[start - 1]))
      runStarts[kept++] = start;
  }
  runStarts.resize(kept);
  if (runStarts.size() <= 1)
    return;
  auto first = items.begin(), last = items.end();
  if (runStarts.size() == 2) {
    auto mid = first + static_cast<ptrdiff_t>(runStarts[1]);
    // One short run (s + t with t a single term): binary-search insertion
    // costs O(log n) comparisons instead of the merge's O(n).
    constexpr ptrdiff_t kShortRun = 4;
    if (last - mid <= kShortRun) {
      for (auto it = mid; it != last; ++it)
        std::rotate(std::upper_bound(first, it, *it, less), it, it + 1);
      return;
    }
    if (mid - first <= kShortRun) {
      for (auto it = mid; it != first; --it)
        std::rotate(it - 1, it, std::lower_bound(it, last, *(it - 1), less));
      return;
    }
    std::inplace_merge(first, mid, last, less);
    return;
  }
  std::stable_sort(first, last, less);
}

//===----------------------------------------------------------------------===//
// Sum and product
//===----------------------------------------------------------------------===//

// Equality of two monomials; cheaper than compareMonomials() == 0 since ==
// rejects on the cached hash.
bool sameFactors(FactorRange a, FactorRange b) {
  if (a.size() != b.size())
    return false;
  for (const Expr *x = a.begin(), *y = b.begin(); x != a.end(); ++x, ++y)
    if (*x != *y)
      return false;
  return true;
}

struct TermRef {
  int64_t coefficient;
  const Expr *term;
};

Expr sumImpl(std::span<const Expr> operands) {
  int64_t constant = 0;
  std::vector<TermRef> terms;
  terms.reserve(operands.size());
  SmallVec<size_t, 8> runStarts;
  for (const Expr &op : operands) {
    bool started = false;
    for (const Expr &t : termsOf(op)) {
      if (t.isConstant()) {
        constant = checkedAdd(constant, intValue(t));
        continue;
      }
      if (!started) {
        runStarts.push_back(terms.size());
        started = true;
      }
      terms.push_back({coefficientOf(t), &t});
    }
  }
  sortRuns(terms, runStarts, [](const TermRef &a, const TermRef &b) {
    return compareMonomials(factorsOf(*a.term), factorsOf(*b.term)) < 0;
  });

  std::vector<Expr> out;
  out.reserve(terms.size() + 1);
  if (constant != 0)
    out.push_back(constant);
  for (size_t i = 0; i < terms.size();) {
    size_t j = i + 1;
    int64_t coefficient = terms[i].coefficient;
    FactorRange monomial = factorsOf(*terms[i].term);
    for (; j < terms.size() && sameFactors(monomial, factorsOf(*terms[j].term));
         ++j)
      coefficient = checkedAdd(coefficient, terms[j].coefficient);
    if (coefficient != 0) {
      if (j == i + 1)
        out.push_back(*terms[i].term);
      else
        out.push_back(makeTerm(coefficient, monomial));
    }
    i = j;
  }
  if (out.empty())
    return 0;
  if (out.size() == 1)
    return out.front();
  return makeNode(ExprKind::Add, std::move(out));
}

// c * (sum): the terms keep their order since only coefficients change.
Expr distribute(int64_t c, const Expr &sumExpr) {
  std::vector<Expr> out;
  out.reserve(opsOf(sumExpr).size());
  for (const Expr &t : opsOf(sumExpr)) {
    if (t.isConstant())
      out.push_back(checkedMul(c, intValue(t)));
    else
      out.push_back(makeTerm(checkedMul(c, coefficientOf(t)), factorsOf(t)));
  }
  return makeNode(ExprKind::Add, std::move(out));
}

Expr productImpl(std::span<const Expr> operands) {
  int64_t coefficient = 1;
  SmallVec<const Expr *, 8> factors;
  SmallVec<size_t, 8> runStarts;
  for (const Expr &op : operands)
    if (op.isConstant() && intValue(op) == 0)
      return 0;
  for (const Expr &op : operands) {
    if (op.isConstant()) {
      coefficient = checkedMul(coefficient, intValue(op));
      continue;
    }
    if (isKind(op, ExprKind::Mul)) {
      coefficient = checkedMul(coefficient, coefficientOf(op));
      FactorRange fs = factorsOf(op);
      runStarts.push_back(factors.size());
      for (const Expr &f : fs)
        factors.push_back(&f);
      continue;
    }
    runStarts.push_back(factors.size());
    factors.push_back(&op);
  }
  sortRuns(factors, runStarts, [](const Expr *a, const Expr *b) {
    return compareBases(baseOf(*a), baseOf(*b)) < 0;
  });

  std::vector<Expr> merged;
  merged.reserve(factors.size() + 1);
  if (coefficient != 1)
    merged.push_back(coefficient);
  for (size_t i = 0; i < factors.size();) {
    size_t j = i + 1;
    const Expr &base = baseOf(*factors[i]);
    int64_t exponent = exponentOf(*factors[i]);
    for (; j < factors.size() && base == baseOf(*factors[j]); ++j)
      exponent = checkedAdd(exponent, exponentOf(*factors[j]));
    merged.push_back(j == i + 1 ? *factors[i] : makePow(base, exponent));
    i = j;
  }

  size_t numFactors = merged.size() - (coefficient != 1 ? 1 : 0);
  if (numFactors == 0)
    return coefficient;
  if (numFactors == 1) {
    if (coefficient == 1)
      return merged.front();
    if (isKind(merged.back(), ExprKind::Add))
      return distribute(coefficient, merged.back());
  }
  return makeNode(ExprKind::Mul, std::move(merged));
}

//===----------------------------------------------------------------------===//
// Division
//===----------------------------------------------------------------------===//

// A divisor seen as one term coefficient * monomial; invalid for a sum.
struct Divisor {
  bool valid = false;
  int64_t coefficient = 1;
  FactorRange monomial;
};

Divisor asDivisor(const Expr &b) {
  Divisor d;
  if (isKind(b, ExprKind::Add))
    return d;
  d.valid = true;
  d.coefficient = b.isConstant() ? intValue(b) : coefficientOf(b);
  d.monomial = factorsOf(b);
  return d;
}

// If `term` = q * divisor for a term q, returns true and sets `quotient`.
bool divideTerm(const Expr &term, int64_t dc, FactorRange dm, Expr &quotient) {
  int64_t tc = term.isConstant() ? intValue(term) : coefficientOf(term);
  int64_t qc = 0;
  if (dc == -1) {
    if (rt::try_neg(tc, qc) != rt::ArithStatus::Ok)
      return false;
  } else {
    if (tc % dc != 0)
      return false;
    qc = tc / dc;
  }
  FactorRange tm = factorsOf(term);
  std::vector<Expr> parts{Expr(qc)};
  const Expr *t = tm.begin();
  for (const Expr &df : dm) {
    const Expr &db = baseOf(df);
    while (t != tm.end() && compareBases(baseOf(*t), db) < 0)
      parts.push_back(*t++);
    if (t == tm.end() || compareBases(baseOf(*t), db) != 0)
      return false;
    int64_t left = exponentOf(*t) - exponentOf(df);
    if (left < 0)
      return false;
    if (left > 0)
      parts.push_back(makePow(db, left));
    ++t;
  }
  parts.insert(parts.end(), t, tm.end());
  quotient = productImpl(parts);
  return true;
}

enum class DivKind { Floor, Ceil, Mod };

// Splits the terms of `a` into those divisible by the divisor (their
// quotients, plus the quotient of the constant for a constant divisor) and
// the rest: a == d * sum(quotients) + sum(rest), with the constant of `rest`
// reduced into the range of a Python remainder.
void splitTerms(const Expr &a, const Divisor &d, std::vector<Expr> &quotients,
                std::vector<Expr> &rest) {
  for (const Expr &t : termsOf(a)) {
    if (t.isConstant() && d.monomial.empty()) {
      int64_t k = intValue(t), q = 0, r = 0;
      if (rt::try_floor_div(k, d.coefficient, q) != rt::ArithStatus::Ok) {
        rest.push_back(t);
        continue;
      }
      rt::try_py_mod(k, d.coefficient, r);
      if (q != 0)
        quotients.push_back(q);
      if (r != 0)
        rest.push_back(r);
      continue;
    }
    Expr q;
    if (divideTerm(t, d.coefficient, d.monomial, q))
      quotients.push_back(q);
    else
      rest.push_back(t);
  }
}

// Divides every term of `rest` and the divisor by their common constant and
// monomial factor, which leaves a // b, ceil(a / b) unchanged (an identity of
// rationals). Returns false when there is no common factor.
bool cancelCommonFactor(std::vector<Expr> &rest, Expr &divisor) {
  Divisor d = asDivisor(divisor);
  if (!d.valid || d.coefficient == INT64_MIN)
    return false;
  uint64_t g = magnitude(d.coefficient);
  bool hasConstant = false;
  for (const Expr &t : rest) {
    if (t.isConstant())
      hasConstant = true;
    g = std::gcd(g, magnitude(t.isConstant() ? intValue(t) : coefficientOf(t)));
  }
  // The common monomial: minimum exponents over the divisor's bases.
  std::vector<Expr> common;
  if (!hasConstant) {
    for (const Expr &df : d.monomial) {
      const Expr &base = baseOf(df);
      int64_t e = exponentOf(df);
      for (const Expr &t : rest) {
        int64_t found = 0;
        for (const Expr &tf : factorsOf(t))
          if (compareBases(baseOf(tf), base) == 0)
            found = exponentOf(tf);
        e = std::min(e, found);
      }
      if (e > 0)
        common.push_back(makePow(base, e));
    }
  }
  if (g <= 1 && common.empty())
    return false;
  int64_t gc = static_cast<int64_t>(g);
  Expr commonTerm = makeTerm(gc, {common.data(), common.data() + common.size()});
  Divisor c = asDivisor(commonTerm);
  for (Expr &t : rest) {
    Expr q;
    divideTerm(t, c.coefficient, c.monomial, q);
    t = q;
  }
  Expr q;
  divideTerm(divisor, c.coefficient, c.monomial, q);
  divisor = q;
  return true;
}

Expr divide(DivKind kind, const Expr &a, const Expr &b);

// The constant-folding and trivial cases; nullopt when none applies.
std::optional<Expr> divideTrivial(DivKind kind, const Expr &a, const Expr &b) {
  ExprKind nodeKind = kind == DivKind::Floor  ? ExprKind::FloorDiv
                      : kind == DivKind::Ceil ? ExprKind::CeilDiv
                                              : ExprKind::Mod;
  if (b.isConstant()) {
    int64_t c = intValue(b);
    if (c == 0)
      return makeNode(nodeKind, {a, b});
    if (a.isConstant()) {
      int64_t r = 0;
      rt::ArithStatus s = kind == DivKind::Floor
                              ? rt::try_floor_div(intValue(a), c, r)
                          : kind == DivKind::Ceil
                              ? rt::try_ceil_div(intValue(a), c, r)
                              : rt::try_py_mod(intValue(a), c, r);
      if (s != rt::ArithStatus::Ok)
        overflow();
      return Expr(r);
    }
    if (kind == DivKind::Mod && (c == 1 || c == -1))
      return Expr(0);
    if (c == 1)
      return a;
    if (c == -1)
      return -a;
  }
  if (a.isConstant() && intValue(a) == 0)
    return Expr(0);
  if (a == b)
    return Expr(kind == DivKind::Mod ? 0 : 1);
  return std::nullopt;
}

Expr divide(DivKind kind, const Expr &a, const Expr &b) {
  if (std::optional<Expr> r = divideTrivial(kind, a, b))
    return *r;
  ExprKind nodeKind = kind == DivKind::Floor  ? ExprKind::FloorDiv
                      : kind == DivKind::Ceil ? ExprKind::CeilDiv
                                              : ExprKind::Mod;
  Divisor d = asDivisor(b);
  if (!d.valid)
    return makeNode(nodeKind, {a, b});

  // a // -b == (-a) // b and ceil likewise; skipped if negation overflows.
  if (kind != DivKind::Mod && d.coefficient < 0 &&
      d.coefficient != INT64_MIN) {
    std::optional<Expr> na, nb;
    try {
      na = -a;
      nb = -b;
    } catch (const std::overflow_error &) {
    }
    if (na && nb)
      return divide(kind, *na, *nb);
  }

  std::vector<Expr> quotients, rest;
  splitTerms(a, d, quotients, rest);
  if (kind == DivKind::Mod)
    quotients.clear();
  if (rest.empty())
    return sum(quotients);

  Expr divisor = b;
  if (kind != DivKind::Mod)
    cancelCommonFactor(rest, divisor);
  Expr inner = sum(rest);

  Expr reduced = [&]() -> Expr {
    if (std::optional<Expr> r = divideTrivial(kind, inner, divisor))
      return *r;
    if (kind == DivKind::Mod) {
      // Mod(Mod(x, m), b) == Mod(x, b) when b divides m.
      if (isKind(inner, ExprKind::Mod)) {
        const Expr &m = opsOf(inner)[1];
        bool divides = m == divisor;
        if (!divides && m.isConstant() && divisor.isConstant() &&
            intValue(divisor) != -1)
          divides = intValue(m) % intValue(divisor) == 0;
        if (divides)
          return divide(kind, opsOf(inner)[0], divisor);
      }
      return makeNode(nodeKind, {inner, divisor});
    }
    if (divisor.isConstant() && intValue(divisor) > 0) {
      int64_t c = intValue(divisor);
      // (x // m2) // c == x // (m2 * c) for positive constants; ceil too.
      if (isKind(inner, nodeKind) && opsOf(inner)[1].isConstant() &&
          intValue(opsOf(inner)[1]) > 0) {
        int64_t merged = 0;
        if (rt::try_mul(intValue(opsOf(inner)[1]), c, merged) ==
            rt::ArithStatus::Ok)
          return divide(kind, opsOf(inner)[0], merged);
      }
      // 0 <= Mod(x, m) < m <= c, so the floor quotient is 0.
      if (kind == DivKind::Floor && isKind(inner, ExprKind::Mod) &&
          opsOf(inner)[1].isConstant() && intValue(opsOf(inner)[1]) > 0 &&
          intValue(opsOf(inner)[1]) <= c)
        return 0;
    }
    return makeNode(nodeKind, {inner, divisor});
  }();
  if (quotients.empty())
    return reduced;
  quotients.push_back(reduced);
  return sum(quotients);
}

//===----------------------------------------------------------------------===//
// Min / Max
//===----------------------------------------------------------------------===//

// Beyond this many arguments the quadratic dominance check is skipped.
constexpr size_t kMaxDominanceArgs = 16;

Expr minMax(ExprKind kind, std::span<const Expr> args) {
  if (args.empty())
    throw std::invalid_argument("wirc::sym: Min/Max need an argument");
  bool isMin = kind == ExprKind::Min;
  std::optional<int64_t> constant;
  std::vector<Expr> flat;
  auto add = [&](const Expr &e) {
    if (e.isConstant()) {
      int64_t v = intValue(e);
      if (!constant || (isMin ? v < *constant : v > *constant))
        constant = v;
    } else {
      flat.push_back(e);
    }
  };
  for (const Expr &a : args) {
    if (isKind(a, kind))
      for (const Expr &inner : a.operands())
        add(inner);
    else
      add(a);
  }
  if (constant)
    flat.push_back(*constant);
  std::stable_sort(flat.begin(), flat.end(), ExprLess());
  flat.erase(std::unique(flat.begin(), flat.end()), flat.end());

  if (flat.size() > 1 && flat.size() <= kMaxDominanceArgs) {
    std::vector<bool> dropped(flat.size(), false);
    for (size_t i = 0; i < flat.size(); ++i) {
      for (size_t j = i + 1; j < flat.size() && !dropped[i]; ++j) {
        if (dropped[j])
          continue;
        std::optional<Expr> diff;
        try {
          diff = flat[i] - flat[j];
        } catch (const std::overflow_error &) {
        }
        if (!diff || !diff->isConstant())
          continue;
        // flat[i] - flat[j] == k: the smaller is flat[j] iff k > 0.
        bool iLarger = intValue(*diff) > 0;
        if (isMin == iLarger)
          dropped[i] = true;
        else
          dropped[j] = true;
      }
    }
    std::vector<Expr> kept;
    for (size_t i = 0; i < flat.size(); ++i)
      if (!dropped[i])
        kept.push_back(flat[i]);
    flat = std::move(kept);
  }
  if (flat.size() == 1)
    return flat.front();
  return makeNode(kind, std::move(flat));
}

} // namespace

//===----------------------------------------------------------------------===//
// Public constructors
//===----------------------------------------------------------------------===//

Expr sum(std::span<const Expr> terms) { return sumImpl(terms); }

Expr product(std::span<const Expr> factors) { return productImpl(factors); }

Expr operator+(const Expr &lhs, const Expr &rhs) {
  if (lhs.isConstant() && rhs.isConstant())
    return checkedAdd(intValue(lhs), intValue(rhs));
  const Expr ops[] = {lhs, rhs};
  return sumImpl(ops);
}

Expr operator-(const Expr &e) {
  if (e.isConstant()) {
    int64_t r = 0;
    if (rt::try_neg(intValue(e), r) != rt::ArithStatus::Ok)
      overflow();
    return r;
  }
  const Expr ops[] = {Expr(-1), e};
  return productImpl(ops);
}

Expr operator-(const Expr &lhs, const Expr &rhs) { return lhs + (-rhs); }

Expr operator*(const Expr &lhs, const Expr &rhs) {
  if (lhs.isConstant() && rhs.isConstant())
    return checkedMul(intValue(lhs), intValue(rhs));
  const Expr ops[] = {lhs, rhs};
  return productImpl(ops);
}

Expr floorDiv(const Expr &a, const Expr &b) {
  return divide(DivKind::Floor, a, b);
}

Expr ceilDiv(const Expr &a, const Expr &b) {
  return divide(DivKind::Ceil, a, b);
}

Expr mod(const Expr &a, const Expr &b) { return divide(DivKind::Mod, a, b); }

Expr modularIndexing(const Expr &x, const Expr &div, const Expr &mod) {
  auto node = [](const Expr &xx, const Expr &dd, const Expr &mm) {
    return makeNode(ExprKind::ModularIndexing, {xx, dd, mm});
  };
  // Like 0 // x -> 0, these drop a possible division by zero in `div`.
  if (mod == Expr(1) || mod == Expr(-1) || x == Expr(0))
    return div == Expr(0) || mod == Expr(0) ? node(x, div, mod) : Expr(0);
  if (!div.isConstant() || !mod.isConstant())
    return node(x, div, mod);
  int64_t d = intValue(div), m = intValue(mod);
  if (d == 0 || m == 0)
    return node(x, div, mod);
  if (x.isConstant()) {
    int64_t q = 0, r = 0;
    if (rt::try_floor_div(intValue(x), d, q) != rt::ArithStatus::Ok)
      overflow();
    rt::try_py_mod(q, m, r);
    return r;
  }
  if (d < 0 || m < 0)
    return node(x, div, mod);
  // Terms divisible by d*m change x // d by a multiple of m.
  int64_t dm = 0;
  if (rt::try_mul(d, m, dm) != rt::ArithStatus::Ok)
    return node(x, div, mod);
  Divisor period;
  period.valid = true;
  period.coefficient = dm;
  std::vector<Expr> quotients, rest;
  splitTerms(x, period, quotients, rest);
  if (rest.empty())
    return 0;
  Expr divisor = div;
  cancelCommonFactor(rest, divisor);
  Expr inner = sum(rest);
  if (inner.isConstant())
    return modularIndexing(inner, divisor, mod);
  return node(inner, divisor, mod);
}

Expr pow(const Expr &base, int64_t exponent) {
  if (exponent < 0)
    throw std::domain_error("wirc::sym::pow: negative exponent");
  if (exponent == 0)
    return 1;
  if (exponent == 1)
    return base;
  if (base.isConstant()) {
    int64_t r = 0;
    if (rt::try_pow(intValue(base), exponent, r) != rt::ArithStatus::Ok)
      overflow();
    return r;
  }
  if (isKind(base, ExprKind::Mul)) {
    std::vector<Expr> parts;
    for (const Expr &f : base.operands())
      parts.push_back(pow(f, exponent));
    return productImpl(parts);
  }
  if (isKind(base, ExprKind::Pow))
    return makePow(opsOf(base)[0],
                   checkedMul(intValue(opsOf(base)[1]), exponent));
  return makePow(base, exponent);
}

Expr min(const Expr &a, const Expr &b) {
  const Expr args[] = {a, b};
  return minMax(ExprKind::Min, args);
}

Expr max(const Expr &a, const Expr &b) {
  const Expr args[] = {a, b};
  return minMax(ExprKind::Max, args);
}

Expr min(std::span<const Expr> args) { return minMax(ExprKind::Min, args); }

Expr max(std::span<const Expr> args) { return minMax(ExprKind::Max, args); }

} // namespace wirc::sym
