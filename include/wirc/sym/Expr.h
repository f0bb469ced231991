//===- wirc/sym/Expr.h - Symbolic integer expressions -----------*- C++ -*-===//
//
// Sizes, strides, numels and launch grids in wirc are integers or symbolic
// integer expressions over size symbols (s0, ks0, u0, ...). This header is the
// whole public interface of that small algebra: an immutable value type Expr,
// its constructors, a parser for the graph format, an exact evaluator and the
// printers for the FX, Python and C++ targets.
//
// Canonical form
// --------------
// Every constructor and operator canonicalises eagerly, so an Expr is always
// in canonical form and == / hash() are plain structural comparisons. The
// rewrites used are valid for every integer value of every symbol (negative
// ones included); none assumes that sizes are >= 0. Constructors:
//   - fold constants and flatten, sort (deterministic total order, see
//     compare()) and collect n-ary Add/Mul: 2*s0 + 3*s0 -> 5*s0,
//     s0*s0 -> s0**2, x + 0 -> x, x*1 -> x, x*0 -> 0;
//   - distribute a constant over a sum, as sympy does: 2*(s0 + 1) -> 2*s0 + 2;
//   - FloorDiv/CeilDiv: x//1 -> x, 0//x -> 0, x//x -> 1, constant folding,
//     divisor sign normalised (a//-b -> (-a)//b), terms divisible by the
//     divisor move out ((2*s0 + s1)//2 -> s0 + s1//2), common constant and
//     monomial factors cancel ((4*s0)//6 -> (2*s0)//3), nested positive
//     constant divisors merge ((a//b)//c -> a//(b*c)), Mod(x, m)//d -> 0 for
//     constants 0 < m <= d;
//   - Mod: constant folding, x % +-1 -> 0, terms divisible by the modulus
//     drop, Mod(Mod(x, m), b) -> Mod(x, b) when b divides m;
//   - ModularIndexing: constant folding, m = +-1 -> 0, x = 0 -> 0, terms of x
//     divisible by d*m drop, common factors of x and d cancel;
//   - Min/Max: flatten nested same kind, fold constants, dedupe, sort, drop an
//     argument that differs from another by a constant (Max(s0, s0 + 1) ->
//     s0 + 1).
// This is not a normal form for polynomials: products of sums are never
// expanded, so 2*s1*(s0 + 1) and s1*(2*s0 + 2) are different expressions
// (as in sympy), and a + b == b + a but (2*(s0 + 1))*s1 != 2*((s0 + 1)*s1).
// The rewrites x*0 -> 0, 0//x -> 0, 0 % x -> 0, x//x -> 1, x % x -> 0,
// ModularIndexing(x, d, 1) -> 0 and term cancellation may remove a division
// by zero that the unsimplified text would have hit (sympy does the same).
//
// Errors: constant arithmetic during canonicalisation that leaves int64
// (e.g. Expr(INT64_MAX) + 1, 2**64) throws std::overflow_error; pow() with a
// negative exponent throws std::domain_error. parseExpr() turns both into a
// ParseError. Division by zero is never folded: FloorDiv(x, 0) stays a node and
// evaluate() reports it.
//
// Cost: operator+ and operator* on an n-term operand are O(n) (the result is
// a new n-term node); use sum() / product() to build big sums in O(n log n);
// operands that arrive already in canonical order are not sorted again (one
// comparison per operand), which is what simplify() passes. An Expr is one
// word: an integer within +-2**61 in place, or a reference-counted node
// (integers beyond that range are boxed); copying a node is one atomic
// increment, an integer a word copy. Recursion depth of every
// algorithm is the nesting depth of the expression, never its operand count.
//
// Graph-format syntax (parseExpr)
// -------------------------------
// Python-like infix with sympy's function names, so that str(expr) of the
// integer expressions PyTorch produces parses:
//
//   expr    := sum
//   sum     := product (('+' | '-') product)*           left-assoc
//   product := unary (('*' | '//' | '%') unary)*        left-assoc, Python's
//                                                       equal precedence
//   unary   := ('-' | '+') unary | power
//   power   := atom ('**' unary)?                        right-assoc, binds
//                                                       tighter than unary
//                                                       on its left: -2**2 = -4
//   atom    := INTEGER | SYMBOL | '(' expr ')' | FUNC '(' expr (',' expr)* ')'
//   FUNC    := FloorDiv(a, b) | CeilDiv(a, b) | Mod(a, b) | PythonMod(a, b)
//            | ModularIndexing(x, d, m) | Min(a, ...) | Max(a, ...)
//
// INTEGER is decimal digits within int64 (a '-' directly before a literal that
// is not the base of '**' makes a negative literal, so -9223372036854775808
// parses). SYMBOL is [A-Za-z_][A-Za-z0-9_]* other than the function names.
// '//' is floor division and '%' is modulo with the sign of the divisor, as in
// Python; Mod and PythonMod both mean that. The exponent of '**' must fold to
// a non-negative integer constant. True division '/' is rejected. Whitespace
// (space, tab, CR, LF) may appear between any two tokens. Nesting (parentheses,
// calls, unary signs, '**' chains) is limited to kMaxParseDepth levels.
//
//===----------------------------------------------------------------------===//

#ifndef WIRC_SYM_EXPR_H
#define WIRC_SYM_EXPR_H

#include <atomic>
#include <cstddef>
#include <cstdint>
#include <functional>
#include <initializer_list>
#include <iosfwd>
#include <map>
#include <memory>
#include <optional>
#include <span>
#include <string>
#include <string_view>
#include <vector>

namespace wirc::sym {

namespace detail {
struct Node;
struct Access;
/// The reference count every heap object an Expr points to begins with.
struct Counted {
  mutable std::atomic<uint32_t> refs{1};
};
/// An integer outside the range an Expr holds in place.
struct BoxedInt : Counted {
  int64_t value = 0;
};
} // namespace detail

/// The node kinds of a canonical expression.
enum class ExprKind : uint8_t {
  Integer,         ///< An int64 literal; no operands.
  Symbol,          ///< A named integer; no operands.
  Add,             ///< n >= 2 operands: optional Integer first, then terms.
  Mul,             ///< n >= 2 operands: optional Integer first, then factors.
  Pow,             ///< Operands (base, Integer exponent >= 2).
  FloorDiv,        ///< Operands (a, b): floor(a / b).
  CeilDiv,         ///< Operands (a, b): ceil(a / b).
  Mod,             ///< Operands (a, b): a - b * floor(a / b) (Python %).
  ModularIndexing, ///< Operands (x, d, m): (x // d) % m.
  Min,             ///< n >= 2 operands.
  Max,             ///< n >= 2 operands.
};

/// An immutable symbolic integer expression in canonical form. A value type:
/// copying is cheap (a shared node, or an inline int64 for integers).
class Expr {
public:
  /// The integer 0.
  Expr() = default;
  /// The integer \p value (implicit, so that `s0 + 1` works).
  Expr(int64_t value) {
    if (value >= kInlineMin && value <= kInlineMax)
      bits = (static_cast<uintptr_t>(value) << kTagBits) | kInlineTag;
    else
      bits = box(value);
  }
  Expr(const Expr &other) noexcept : bits(other.bits) { retain(); }
  Expr(Expr &&other) noexcept : bits(other.bits) { other.bits = kZero; }
  Expr &operator=(const Expr &other) noexcept {
    other.retain();
    drop();
    bits = other.bits;
    return *this;
  }
  Expr &operator=(Expr &&other) noexcept {
    if (this != &other) {
      drop();
      bits = other.bits;
      other.bits = kZero;
    }
    return *this;
  }
  ~Expr() { drop(); }

  /// A bare symbol. \p name should be an identifier that is not one of the
  /// graph-format function names, or toString() will not parse back.
  static Expr symbol(std::string_view name);

  /// The node kind.
  ExprKind kind() const;
  /// True for an integer literal.
  bool isConstant() const { return (bits & kTagMask) != kNodeTag; }
  /// The literal's value, or nullopt when this is not an integer literal.
  std::optional<int64_t> constant() const {
    if (!isConstant())
      return std::nullopt;
    return intValue();
  }
  /// True for a bare symbol.
  bool isSymbol() const { return kind() == ExprKind::Symbol; }
  /// The symbol's name; only valid if isSymbol(), empty otherwise.
  std::string_view symbolName() const;
  /// The operands in canonical order (see ExprKind); empty for Integer and
  /// Symbol. The span lives as long as any copy of this Expr.
  std::span<const Expr> operands() const;

  /// Structural equality of the canonical forms.
  friend bool operator==(const Expr &lhs, const Expr &rhs);
  /// Structural inequality of the canonical forms.
  friend bool operator!=(const Expr &lhs, const Expr &rhs) {
    return !(lhs == rhs);
  }
  /// A structural hash, consistent with == and stable across runs.
  size_t hash() const;

private:
  friend struct detail::Access;
  // The low bits of the word: 00 a node, 01 an integer in place (the other
  // bits), 10 a boxed integer. Heap objects are at least 8-byte aligned.
  static constexpr unsigned kTagBits = 2;
  static constexpr uintptr_t kTagMask = 3, kNodeTag = 0, kInlineTag = 1, kBoxedTag = 2;
  static constexpr int64_t kInlineMax = INT64_MAX >> kTagBits;
  static constexpr int64_t kInlineMin = INT64_MIN >> kTagBits;
  static constexpr uintptr_t kZero = kInlineTag;
  static_assert(sizeof(uintptr_t) == sizeof(int64_t), "Expr needs 64-bit words");

  /// A boxed integer's word (out of line: such integers are rare).
  static uintptr_t box(int64_t value);
  /// Frees the node or boxed integer of \p bits, whose last reference went
  /// away (out of line: node destruction is not worth inlining).
  static void release(uintptr_t bits) noexcept;
  bool counted() const { return (bits & 1) == 0; }
  const detail::Counted *object() const {
    return reinterpret_cast<const detail::Counted *>(bits & ~kTagMask);
  }
  void retain() const {
    if (counted())
      object()->refs.fetch_add(1, std::memory_order_relaxed);
  }
  void drop() {
    if (counted() && object()->refs.fetch_sub(1, std::memory_order_acq_rel) == 1)
      release(bits);
  }
  /// The node; null for integers.
  const detail::Node *node() const {
    return (bits & kTagMask) == kNodeTag ? reinterpret_cast<const detail::Node *>(bits) : nullptr;
  }
  /// An integer's value.
  int64_t intValue() const {
    if ((bits & kTagMask) == kInlineTag)
      return static_cast<int64_t>(bits) >> kTagBits;
    return reinterpret_cast<const detail::BoxedInt *>(bits & ~kTagMask)->value;
  }

  uintptr_t bits = kZero;
};

static_assert(sizeof(Expr) == sizeof(uintptr_t));

/// Sum; canonicalises eagerly. Throws std::overflow_error if a folded
/// constant or coefficient leaves int64.
Expr operator+(const Expr &lhs, const Expr &rhs);
/// Difference, as lhs + (-1)*rhs.
Expr operator-(const Expr &lhs, const Expr &rhs);
/// Product; canonicalises eagerly (distributes a constant over a sum).
Expr operator*(const Expr &lhs, const Expr &rhs);
/// Negation, as (-1)*e.
Expr operator-(const Expr &e);
/// The n-ary sum of \p terms in O(n log n); the empty sum is 0.
Expr sum(std::span<const Expr> terms);
/// The n-ary product of \p factors in O(n log n); the empty product is 1.
Expr product(std::span<const Expr> factors);
/// Python floor division a // b (rounds toward -inf).
Expr floorDiv(const Expr &a, const Expr &b);
/// Ceiling division: ceil(a / b) == -((-a) // b). Kept as its own node kind.
Expr ceilDiv(const Expr &a, const Expr &b);
/// Python modulo a % b (the result has the sign of the divisor).
Expr mod(const Expr &a, const Expr &b);
/// (x // div) % mod, Inductor's ModularIndexing.
Expr modularIndexing(const Expr &x, const Expr &div, const Expr &mod);
/// base ** exponent. Throws std::domain_error if \p exponent < 0.
Expr pow(const Expr &base, int64_t exponent);
/// The smaller of \p a and \p b.
Expr min(const Expr &a, const Expr &b);
/// The larger of \p a and \p b.
Expr max(const Expr &a, const Expr &b);
/// The smallest of \p args (at least one; throws std::invalid_argument if
/// empty).
Expr min(std::span<const Expr> args);
/// The largest of \p args (at least one; throws std::invalid_argument if
/// empty).
Expr max(std::span<const Expr> args);
/// sum({a, b, c}).
inline Expr sum(std::initializer_list<Expr> terms) {
  return sum(std::span<const Expr>(terms.begin(), terms.size()));
}
/// product({a, b, c}).
inline Expr product(std::initializer_list<Expr> factors) {
  return product(std::span<const Expr>(factors.begin(), factors.size()));
}
/// min({a, b, c}).
inline Expr min(std::initializer_list<Expr> args) {
  return min(std::span<const Expr>(args.begin(), args.size()));
}
/// max({a, b, c}).
inline Expr max(std::initializer_list<Expr> args) {
  return max(std::span<const Expr>(args.begin(), args.size()));
}

/// A deterministic total order on canonical expressions (-1, 0, 1), the one
/// that sorts operands: integers first by value, then monomials in sympy's
/// lexicographic order (s0*s1 < s0 < s1 < s2, s10**2 < s10). Symbol names
/// compare bytewise. compare(a, b) == 0 exactly when a == b.
int compare(const Expr &lhs, const Expr &rhs);

/// Strict weak ordering by compare(), for std::map / std::sort.
struct ExprLess {
  /// lhs sorts before rhs.
  bool operator()(const Expr &lhs, const Expr &rhs) const {
    return compare(lhs, rhs) < 0;
  }
};

/// The deepest nesting parseExpr() accepts.
inline constexpr unsigned kMaxParseDepth = 256;

/// Why parseExpr() failed.
struct ParseError {
  /// Byte offset of the offending token in the text.
  size_t offset = 0;
  /// What went wrong, e.g. "unknown function 'Foo'".
  std::string message;
};

/// Parses the graph-format syntax described at the top of this header. On
/// failure returns nullopt and fills \p err.
std::optional<Expr> parseExpr(std::string_view text, ParseError &err);

/// The canonical form of \p e. Since every constructor canonicalises, this
/// rebuilds \p e bottom-up through the constructors and returns an equal
/// expression; it is idempotent and deterministic.
Expr simplify(const Expr &e);

/// Values for the symbols of an expression.
using SymbolValues = std::map<std::string, int64_t, std::less<>>;

/// Evaluates \p e with exact int64 arithmetic, operation by operation in the
/// order printCpp() uses (so the printed C++ fails exactly when this does).
/// Returns nullopt and sets \p error on an unknown symbol, division (or
/// modulo) by zero, or int64 overflow of any intermediate result.
std::optional<int64_t> evaluate(const Expr &e, const SymbolValues &values,
                                std::string &error);

/// Replaces symbols by expressions (those not in \p replacements stay) and
/// re-canonicalises.
Expr substitute(const Expr &e,
                const std::map<std::string, Expr, std::less<>> &replacements);

/// The names of the symbols in \p e, sorted bytewise, unique.
std::vector<std::string> symbols(const Expr &e);

/// Canonical graph-format text: parseExpr(toString(e)) == e (for nesting up to
/// kMaxParseDepth). Like printFx() but FloorDiv, CeilDiv and Mod print as
/// calls: `FloorDiv(s0, 2) + 1`, `CeilDiv(s6, 8)`, `Mod(s0, 3)`.
std::string toString(const Expr &e);
/// toString of each, as a bracketed list: `[s0, 64]` (sizes and strides in
/// the IR's text and in comments of emitted code).
std::string toString(std::span<const Expr> list);

/// Writes toString(e), so that test frameworks and logs show expressions.
std::ostream &operator<<(std::ostream &os, const Expr &e);

/// PyTorch FX graph text (sympy str): `s0 + 1`, `2*s0 - 3`, `s10**2`,
/// `(s0//2)`, `((-s6)//8)`, ceilDiv(s6, 8) as `-(((-s6)//8))`, Mod as
/// `s0 % 3`, `Min(s0, s1)`, `ModularIndexing(x, d, m)`. Constants last in sums.
/// The text parses back to an expression of equal value.
std::string printFx(const Expr &e);

/// Python as Inductor's wrapper prints it (pexpr): constants first in sums
/// (`1 + s0`, `(-1) + s0`), `(-2)*s0`, powers as repeated products (`s10*s10`;
/// `base ** e` above exponent 16), `(a // b)`, CeilDiv as `-((a) // -(b))`,
/// `a % b`, `((x // d) % m)`, `min(a, b)`. A valid Python expression whose
/// value equals evaluate() (Python ints never overflow).
std::string printPython(const Expr &e);
/// printPython(e) appended to \p out, for emitters that build one text.
void printPython(const Expr &e, std::string &out);

/// A C++ expression of type int64_t without undefined behaviour: literals as
/// `INT64_C(5)`, every operation through the checked helpers of
/// wirc/runtime/Arith.h (`wirc::rt::add`, `sum({...})`, `mul`, `product({...})`,
/// `neg`, `pow`, `floor_div`, `ceil_div`, `py_mod`, `min`, `max`). It needs
/// int64_t variables named like the symbols and evaluates to evaluate()'s
/// value, or throws (wirc::rt::arith_error) exactly when evaluate() fails.
std::string printCpp(const Expr &e);

} // namespace wirc::sym

/// Hashes by Expr::hash().
template <> struct std::hash<wirc::sym::Expr> {
  /// The structural hash.
  size_t operator()(const wirc::sym::Expr &e) const noexcept {
    return e.hash();
  }
};

#endif // WIRC_SYM_EXPR_H
