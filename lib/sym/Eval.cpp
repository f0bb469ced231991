//===- lib/sym/Eval.cpp - Exact int64 evaluation --------------------------===//
//
// Uses the try_* helpers of wirc/runtime/Arith.h in the same order as the
// C++ that printCpp() emits, so both fail on exactly the same inputs.
//
//===----------------------------------------------------------------------===//

#include "ExprImpl.h"

#include "wirc/runtime/Arith.h"

#include <fmt/format.h>

namespace wirc::sym {

namespace {

using rt::ArithStatus;

const char *kindName(ExprKind kind) {
  switch (kind) {
  case ExprKind::Integer:
    return "Integer";
  case ExprKind::Symbol:
    return "Symbol";
  case ExprKind::Add:
    return "Add";
  case ExprKind::Mul:
    return "Mul";
  case ExprKind::Pow:
    return "Pow";
  case ExprKind::FloorDiv:
    return "FloorDiv";
  case ExprKind::CeilDiv:
    return "CeilDiv";
  case ExprKind::Mod:
    return "Mod";
  case ExprKind::ModularIndexing:
    return "ModularIndexing";
  case ExprKind::Min:
    return "Min";
  case ExprKind::Max:
    return "Max";
  }
  return "?";
}

class Evaluator {
public:
  Evaluator(const SymbolValues &values, std::string &error)
      : values(values), error(error) {}

  bool eval(const Expr &e, int64_t &out) {
    if (std::optional<int64_t> c = e.constant()) {
      out = *c;
      return true;
    }
    ExprKind kind = e.kind();
    if (kind == ExprKind::Symbol) {
      auto it = values.find(e.symbolName());
      if (it == values.end()) {
        error = fmt::format("unknown symbol '{}'", e.symbolName());
        return false;
      }
      out = it->second;
      return true;
    }
    std::span<const Expr> ops = e.operands();
    std::vector<int64_t> v(ops.size());
    for (size_t i = 0; i < ops.size(); ++i)
      if (!eval(ops[i], v[i]))
        return false;
    switch (kind) {
    case ExprKind::Add:
      return fold(kind, v, rt::try_add, out);
    case ExprKind::Mul:
      return fold(kind, v, rt::try_mul, out);
    case ExprKind::Pow:
      return check(kind, rt::try_pow(v[0], v[1], out));
    case ExprKind::FloorDiv:
      return check(kind, rt::try_floor_div(v[0], v[1], out));
    case ExprKind::CeilDiv:
      return check(kind, rt::try_ceil_div(v[0], v[1], out));
    case ExprKind::Mod:
      return check(kind, rt::try_py_mod(v[0], v[1], out));
    case ExprKind::ModularIndexing: {
      int64_t q = 0;
      return check(kind, rt::try_floor_div(v[0], v[1], q)) &&
             check(kind, rt::try_py_mod(q, v[2], out));
    }
    case ExprKind::Min:
      out = v[0];
      for (int64_t x : v)
        out = rt::min(out, x);
      return true;
    case ExprKind::Max:
      out = v[0];
      for (int64_t x : v)
        out = rt::max(out, x);
      return true;
    case ExprKind::Integer:
    case ExprKind::Symbol:
      break;
    }
    return false;
  }

private:
  template <typename Op>
  bool fold(ExprKind kind, const std::vector<int64_t> &v, Op op,
            int64_t &out) {
    out = v[0];
    for (size_t i = 1; i < v.size(); ++i)
      if (!check(kind, op(out, v[i], out)))
        return false;
    return true;
  }

  bool check(ExprKind kind, ArithStatus status) {
    switch (status) {
    case ArithStatus::Ok:
      return true;
    case ArithStatus::Overflow:
      error = fmt::format("int64 overflow in {}", kindName(kind));
      return false;
    case ArithStatus::DivisionByZero:
      error = fmt::format("division by zero in {}", kindName(kind));
      return false;
    case ArithStatus::NegativeExponent:
      error = "negative exponent in Pow";
      return false;
    }
    return false;
  }

  const SymbolValues &values;
  std::string &error;
};

} // namespace

std::optional<int64_t> evaluate(const Expr &e, const SymbolValues &values,
                                std::string &error) {
  // Most sizes and strides are literals.
  if (std::optional<int64_t> literal = e.constant())
    return literal;
  int64_t out = 0;
  if (!Evaluator(values, error).eval(e, out))
    return std::nullopt;
  return out;
}

} // namespace wirc::sym
