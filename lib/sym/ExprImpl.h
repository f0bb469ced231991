//===- lib/sym/ExprImpl.h - Private node layout of wirc::sym ----*- C++ -*-===//
//
// Shared by the implementation files of lib/sym only.
//
//===----------------------------------------------------------------------===//

#ifndef WIRC_LIB_SYM_EXPRIMPL_H
#define WIRC_LIB_SYM_EXPRIMPL_H

#include "wirc/sym/Expr.h"

#include <cstdint>
#include <cstring>
#include <memory>
#include <string>
#include <type_traits>
#include <vector>

namespace wirc::sym::detail {

/// A heap node; never mutated after construction.
struct Node : Counted {
  ExprKind kind = ExprKind::Symbol;
  /// Structural hash, computed once at construction.
  size_t hash = 0;
  /// Symbol name (Symbol only).
  std::string name;
  /// Operands in canonical order.
  std::vector<Expr> ops;
};

/// A vector of trivially copyable items that keeps its first \p N items
/// inline: canonicalising a term (a few factors) then allocates nothing for
/// its scratch lists.
template <typename T, size_t N> class SmallVec {
  static_assert(std::is_trivially_copyable_v<T>);

public:
  SmallVec() = default;
  SmallVec(const SmallVec &) = delete;
  SmallVec &operator=(const SmallVec &) = delete;

  void push_back(T item) {
    if (count == capacity)
      grow();
    items[count++] = item;
  }
  void resize(size_t n) {
    while (capacity < n)
      grow();
    count = n;
  }
  T *begin() { return items; }
  T *end() { return items + count; }
  const T *begin() const { return items; }
  const T *end() const { return items + count; }
  T &operator[](size_t i) { return items[i]; }
  const T &operator[](size_t i) const { return items[i]; }
  size_t size() const { return count; }
  bool empty() const { return count == 0; }

private:
  void grow() {
    capacity *= 2;
    auto bigger = std::make_unique<T[]>(capacity);
    std::memcpy(bigger.get(), items, count * sizeof(T));
    heap = std::move(bigger);
    items = heap.get();
  }

  T inlineItems[N];
  T *items = inlineItems;
  size_t count = 0;
  size_t capacity = N;
  std::unique_ptr<T[]> heap;
};

/// Friend of Expr: the only way to build nodes or look inside.
struct Access {
  static const Node *node(const Expr &e) { return e.node(); }
  static int64_t value(const Expr &e) { return e.intValue(); }
  /// Wraps already-canonical operands into a node without rewriting them.
  static Expr make(ExprKind kind, std::vector<Expr> ops);
  static Expr makeSymbol(std::string_view name);
};

inline Expr makeNode(ExprKind kind, std::vector<Expr> ops) {
  return Access::make(kind, std::move(ops));
}

/// The Integer value of \p e; \p e must be a constant.
inline int64_t intValue(const Expr &e) { return Access::value(e); }

/// True if \p e is a node of \p kind.
inline bool isKind(const Expr &e, ExprKind kind) {
  const Node *n = Access::node(e);
  return n && n->kind == kind;
}

/// The operands of a node (empty for integers).
inline const std::vector<Expr> &opsOf(const Expr &e) {
  static const std::vector<Expr> kNone;
  const Node *n = Access::node(e);
  return n ? n->ops : kNone;
}

/// The constant coefficient of a term: the leading Integer of a Mul, else 1.
inline int64_t coefficientOf(const Expr &term) {
  if (isKind(term, ExprKind::Mul) && opsOf(term)[0].isConstant())
    return intValue(opsOf(term)[0]);
  return 1;
}

/// Splits a factor into (base, exponent): Pow(b, e) -> (b, e), else (f, 1).
inline const Expr &baseOf(const Expr &factor) {
  return isKind(factor, ExprKind::Pow) ? opsOf(factor)[0] : factor;
}
inline int64_t exponentOf(const Expr &factor) {
  return isKind(factor, ExprKind::Pow) ? intValue(opsOf(factor)[1]) : 1;
}

/// The non-constant factors of a term, in canonical order, without copying:
/// for a Mul its operands after the coefficient, otherwise the term itself.
struct FactorRange {
  const Expr *first = nullptr;
  const Expr *last = nullptr;
  const Expr *begin() const { return first; }
  const Expr *end() const { return last; }
  size_t size() const { return static_cast<size_t>(last - first); }
  bool empty() const { return first == last; }
};

inline FactorRange factorsOf(const Expr &term) {
  if (term.isConstant())
    return {};
  if (isKind(term, ExprKind::Mul)) {
    const std::vector<Expr> &ops = opsOf(term);
    const Expr *b = ops.data();
    if (b->isConstant())
      ++b;
    return {b, ops.data() + ops.size()};
  }
  return {&term, &term + 1};
}

/// Orders two bases (atoms: Symbol, Add, FloorDiv, ...).
int compareBases(const Expr &lhs, const Expr &rhs);

/// Orders two monomials in sympy's lexicographic order, ignoring
/// coefficients: at the first base where the exponents differ the larger
/// exponent sorts first.
int compareMonomials(FactorRange lhs, FactorRange rhs);

/// Builds coefficient * factors, reusing the factors (no canonicalisation
/// beyond dropping a coefficient of 1; the caller guarantees canonicity).
Expr makeTerm(int64_t coefficient, FactorRange factors);

} // namespace wirc::sym::detail

#endif // WIRC_LIB_SYM_EXPRIMPL_H
