//===- lib/sym/Expr.cpp - Expr nodes, equality, hashing, order ------------===//
//
// The value type itself: node creation with a cached structural hash,
// equality, the deterministic total order that sorts operands, and the
// whole-tree walks (symbols, substitute, simplify).
//
//===----------------------------------------------------------------------===//

#include "ExprImpl.h"

#include <algorithm>
#include <array>
#include <cassert>
#include <utility>

namespace wirc::sym {

using detail::Access;
using detail::FactorRange;
using detail::Node;

namespace {

// splitmix64 finaliser: a fixed, platform-independent mix.
uint64_t mix64(uint64_t x) {
  x += 0x9e3779b97f4a7c15ULL;
  x = (x ^ (x >> 30)) * 0xbf58476d1ce4e5b9ULL;
  x = (x ^ (x >> 27)) * 0x94d049bb133111ebULL;
  return x ^ (x >> 31);
}

// Order-dependent and cheap (one multiply); the operand hashes are already
// mixed and Access::make finishes with mix64.
uint64_t combine(uint64_t seed, uint64_t v) {
  return (((seed << 5) | (seed >> 59)) ^ v) * 0x100000001b3ULL;
}

// FNV-1a, so that symbol hashes do not depend on the standard library.
uint64_t hashString(std::string_view s) {
  uint64_t h = 0xcbf29ce484222325ULL;
  for (unsigned char c : s) {
    h ^= c;
    h *= 0x100000001b3ULL;
  }
  return h;
}

uint64_t hashInteger(int64_t v) {
  return mix64(static_cast<uint64_t>(v) ^ 0x5bd1e9955bd1e995ULL);
}

bool nodesEqual(const Node *a, const Node *b) {
  if (a == b)
    return true;
  if (a->hash != b->hash || a->kind != b->kind || a->name != b->name ||
      a->ops.size() != b->ops.size())
    return false;
  for (size_t i = 0; i < a->ops.size(); ++i)
    if (a->ops[i] != b->ops[i])
      return false;
  return true;
}

// Rank of a base kind in the operand order: symbols first (sympy prints
// s1*(s0 + 1)), then function-like nodes, then sums.
int baseRank(const Expr &e) {
  switch (e.kind()) {
  case ExprKind::Integer:
    return 0;
  case ExprKind::Symbol:
    return 1;
  case ExprKind::FloorDiv:
    return 2;
  case ExprKind::CeilDiv:
    return 3;
  case ExprKind::Mod:
    return 4;
  case ExprKind::ModularIndexing:
    return 5;
  case ExprKind::Min:
    return 6;
  case ExprKind::Max:
    return 7;
  case ExprKind::Add:
    return 8;
  case ExprKind::Pow:
    return 9;
  case ExprKind::Mul:
    return 10;
  }
  return 11;
}

int compareInts(int64_t a, int64_t b) { return a < b ? -1 : (b < a ? 1 : 0); }

} // namespace

//===----------------------------------------------------------------------===//
// Nodes
//===----------------------------------------------------------------------===//

Expr Access::make(ExprKind kind, std::vector<Expr> ops) {
  auto *n = new Node;
  n->kind = kind;
  uint64_t h = mix64(static_cast<uint64_t>(kind) + 1);
  for (const Expr &op : ops)
    h = combine(h, op.hash());
  n->hash = static_cast<size_t>(mix64(h));
  n->ops = std::move(ops);
  Expr e;
  e.bits = reinterpret_cast<uintptr_t>(n);
  return e;
}

Expr Access::makeSymbol(std::string_view name) {
  auto *n = new Node;
  n->kind = ExprKind::Symbol;
  n->name = std::string(name);
  n->hash = static_cast<size_t>(mix64(combine(
      mix64(static_cast<uint64_t>(ExprKind::Symbol) + 1), hashString(name))));
  Expr e;
  e.bits = reinterpret_cast<uintptr_t>(n);
  return e;
}

Expr Expr::symbol(std::string_view name) {
  assert(!name.empty() && "symbol names must be identifiers");
  return Access::makeSymbol(name);
}

uintptr_t Expr::box(int64_t value) {
  auto *boxed = new detail::BoxedInt;
  boxed->value = value;
  return reinterpret_cast<uintptr_t>(boxed) | kBoxedTag;
}

void Expr::release(uintptr_t bits) noexcept {
  if ((bits & kTagMask) == kNodeTag)
    delete reinterpret_cast<Node *>(bits);
  else
    delete reinterpret_cast<detail::BoxedInt *>(bits & ~kTagMask);
}

ExprKind Expr::kind() const {
  const Node *n = node();
  return n ? n->kind : ExprKind::Integer;
}

std::string_view Expr::symbolName() const {
  const Node *n = node();
  if (n && n->kind == ExprKind::Symbol)
    return n->name;
  return {};
}

std::span<const Expr> Expr::operands() const {
  const Node *n = node();
  if (!n)
    return {};
  return n->ops;
}

bool operator==(const Expr &lhs, const Expr &rhs) {
  const Node *a = Access::node(lhs);
  const Node *b = Access::node(rhs);
  if (!a || !b)
    return !a && !b && Access::value(lhs) == Access::value(rhs);
  return nodesEqual(a, b);
}

size_t Expr::hash() const {
  if (const Node *n = node())
    return n->hash;
  return static_cast<size_t>(hashInteger(intValue()));
}

//===----------------------------------------------------------------------===//
// Order
//===----------------------------------------------------------------------===//

namespace detail {

int compareBases(const Expr &lhs, const Expr &rhs) {
  const Node *a = Access::node(lhs);
  const Node *b = Access::node(rhs);
  if (!a || !b)
    return compare(lhs, rhs);
  if (a == b)
    return 0;
  int ra = baseRank(lhs), rb = baseRank(rhs);
  if (ra != rb)
    return ra < rb ? -1 : 1;
  if (a->kind == ExprKind::Symbol) {
    int c = a->name.compare(b->name);
    return c < 0 ? -1 : (c > 0 ? 1 : 0);
  }
  size_t n = std::min(a->ops.size(), b->ops.size());
  for (size_t i = 0; i < n; ++i)
    if (int c = compare(a->ops[i], b->ops[i]))
      return c;
  return compareInts(static_cast<int64_t>(a->ops.size()),
                     static_cast<int64_t>(b->ops.size()));
}

int compareMonomials(FactorRange lhs, FactorRange rhs) {
  const Expr *l = lhs.begin(), *r = rhs.begin();
  for (; l != lhs.end() && r != rhs.end(); ++l, ++r) {
    if (int c = compareBases(baseOf(*l), baseOf(*r)))
      return c;
    int64_t el = exponentOf(*l), er = exponentOf(*r);
    if (el != er)
      return el > er ? -1 : 1;
  }
  if (l != lhs.end())
    return -1;
  if (r != rhs.end())
    return 1;
  return 0;
}

Expr makeTerm(int64_t coefficient, FactorRange factors) {
  if (coefficient == 0 || factors.empty())
    return coefficient;
  if (coefficient == 1 && factors.size() == 1)
    return *factors.begin();
  std::vector<Expr> ops;
  ops.reserve(factors.size() + 1);
  if (coefficient != 1)
    ops.push_back(coefficient);
  ops.insert(ops.end(), factors.begin(), factors.end());
  return makeNode(ExprKind::Mul, std::move(ops));
}

} // namespace detail

int compare(const Expr &lhs, const Expr &rhs) {
  bool lc = lhs.isConstant(), rc = rhs.isConstant();
  if (lc || rc) {
    if (lc && rc)
      return compareInts(Access::value(lhs), Access::value(rhs));
    return lc ? -1 : 1;
  }
  if (Access::node(lhs) == Access::node(rhs))
    return 0;
  if (int c = detail::compareMonomials(detail::factorsOf(lhs),
                                       detail::factorsOf(rhs)))
    return c;
  return compareInts(detail::coefficientOf(lhs), detail::coefficientOf(rhs));
}

//===----------------------------------------------------------------------===//
// Whole-tree walks
//===----------------------------------------------------------------------===//

namespace {

void collectSymbols(const Expr &e, std::vector<std::string_view> &out) {
  if (e.isSymbol()) {
    out.push_back(e.symbolName());
    return;
  }
  for (const Expr &op : e.operands())
    collectSymbols(op, out);
}

using Replacements = std::map<std::string, Expr, std::less<>>;

// Rebuilds through the public constructors. With `always` false a node whose
// operands did not change is returned as is.
Expr rebuild(const Expr &e, const Replacements &repl, bool always) {
  if (e.isConstant())
    return e;
  if (e.isSymbol()) {
    auto it = repl.find(e.symbolName());
    return it == repl.end() ? e : it->second;
  }
  std::span<const Expr> ops = e.operands();
  // Most nodes have a few operands: keep them on the stack.
  constexpr size_t kInlineOps = 6;
  std::array<Expr, kInlineOps> inlineOps;
  std::vector<Expr> heapOps;
  if (ops.size() > kInlineOps)
    heapOps.resize(ops.size());
  std::span<Expr> newOps = ops.size() > kInlineOps
                               ? std::span<Expr>(heapOps)
                               : std::span<Expr>(inlineOps.data(), ops.size());
  bool changed = false;
  for (size_t i = 0; i < ops.size(); ++i) {
    newOps[i] = rebuild(ops[i], repl, always);
    changed = changed || Access::node(newOps[i]) != Access::node(ops[i]) ||
              Access::value(newOps[i]) != Access::value(ops[i]);
  }
  if (!changed && !always)
    return e;
  switch (e.kind()) {
  case ExprKind::Add:
    return sum(newOps);
  case ExprKind::Mul:
    return product(newOps);
  case ExprKind::Pow:
    return pow(newOps[0], Access::value(newOps[1]));
  case ExprKind::FloorDiv:
    return floorDiv(newOps[0], newOps[1]);
  case ExprKind::CeilDiv:
    return ceilDiv(newOps[0], newOps[1]);
  case ExprKind::Mod:
    return mod(newOps[0], newOps[1]);
  case ExprKind::ModularIndexing:
    return modularIndexing(newOps[0], newOps[1], newOps[2]);
  case ExprKind::Min:
    return min(newOps);
  case ExprKind::Max:
    return max(newOps);
  case ExprKind::Integer:
  case ExprKind::Symbol:
    break;
  }
  return e;
}

} // namespace

std::vector<std::string> symbols(const Expr &e) {
  std::vector<std::string_view> names;
  collectSymbols(e, names);
  std::sort(names.begin(), names.end());
  names.erase(std::unique(names.begin(), names.end()), names.end());
  return {names.begin(), names.end()};
}

Expr substitute(const Expr &e, const Replacements &replacements) {
  return rebuild(e, replacements, /*always=*/false);
}

Expr simplify(const Expr &e) {
  static const Replacements kNone;
  return rebuild(e, kNone, /*always=*/true);
}

} // namespace wirc::sym
