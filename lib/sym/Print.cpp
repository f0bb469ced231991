//===- lib/sym/Print.cpp - FX, Python, C++ and canonical printers ---------===//
//
// Parenthesisation follows sympy's: an operand is wrapped when its precedence
// is at most the level of its context. Levels: Mod 35, Add 40, Mul 50,
// Pow 60, atoms 1000. Negative numbers, negative-coefficient products and
// CeilDiv (printed with a leading '-') have Add precedence.
//
//===----------------------------------------------------------------------===//

#include "ExprImpl.h"

#include <fmt/format.h>

#include <charconv>
#include <ostream>
#include <stdexcept>

namespace wirc::sym {

using detail::coefficientOf;
using detail::intValue;
using detail::isKind;
using detail::opsOf;

namespace {

/// Integers are most of what sizes print: no temporary string per literal.
void appendInt(std::string &out, int64_t value) {
  char buffer[24];
  out.append(buffer, std::to_chars(buffer, buffer + sizeof buffer, value).ptr);
}

constexpr int kPrecMod = 35;
constexpr int kPrecAdd = 40;
constexpr int kPrecMul = 50;
constexpr int kPrecPow = 60;
constexpr int kPrecAtom = 1000;

// Exponents above this print as `base ** e` in Python instead of a product.
constexpr int64_t kMaxPythonProductExponent = 16;

bool isNonNegativeInt(const Expr &e) {
  return e.isConstant() && intValue(e) >= 0;
}

//===----------------------------------------------------------------------===//
// FX (sympy str) and toString
//===----------------------------------------------------------------------===//

class FxPrinter {
public:
  /// With `canonical`, FloorDiv / CeilDiv / Mod print as calls (toString).
  explicit FxPrinter(bool canonical) : canonical(canonical) {}

  std::string print(const Expr &e) {
    std::string out;
    emit(e, out);
    return out;
  }

private:
  int precedence(const Expr &e) const {
    switch (e.kind()) {
    case ExprKind::Integer:
      return intValue(e) < 0 ? kPrecAdd : kPrecAtom;
    case ExprKind::Add:
      return kPrecAdd;
    case ExprKind::Mul:
      return coefficientOf(e) < 0 ? kPrecAdd : kPrecMul;
    case ExprKind::Pow:
      return kPrecPow;
    case ExprKind::CeilDiv:
      return canonical ? kPrecAtom : kPrecAdd;
    case ExprKind::Mod:
      return canonical ? kPrecAtom : kPrecMod;
    default:
      return kPrecAtom;
    }
  }

  void emitWrapped(const Expr &e, int level, std::string &out) {
    if (precedence(e) <= level) {
      out += '(';
      emit(e, out);
      out += ')';
    } else {
      emit(e, out);
    }
  }

  // An operand of // or %: bare only for symbols and non-negative integers.
  void emitDivOperand(const Expr &e, std::string &out) {
    if (e.isSymbol() || isNonNegativeInt(e)) {
      emit(e, out);
      return;
    }
    out += '(';
    emit(e, out);
    out += ')';
  }

  void emitNegatedDivOperand(const Expr &e, std::string &out) {
    std::optional<Expr> negated;
    try {
      negated = -e;
    } catch (const std::overflow_error &) {
    }
    if (negated) {
      emitDivOperand(*negated, out);
      return;
    }
    out += "(-(";
    emit(e, out);
    out += "))";
  }

  void emitCall(const char *name, std::span<const Expr> args,
                std::string &out) {
    out += name;
    out += '(';
    for (size_t i = 0; i < args.size(); ++i) {
      if (i)
        out += ", ";
      emit(args[i], out);
    }
    out += ')';
  }

  void emitAdd(const Expr &e, std::string &out) {
    std::span<const Expr> ops = e.operands();
    bool first = true;
    auto emitTerm = [&](const Expr &t) {
      std::string s;
      if (precedence(t) < kPrecAdd) {
        s = '(';
        s += print(t);
        s += ')';
      } else
        s = print(t);
      // Subtracting INT64_MIN's magnitude would not parse back; add it.
      bool keepSign = (t.isConstant() && intValue(t) == INT64_MIN) ||
                      coefficientOf(t) == INT64_MIN;
      if (first) {
        out += s;
      } else if (s[0] == '-' && !keepSign) {
        out += " - ";
        out.append(s, 1);
      } else {
        out += " + ";
        out += s;
      }
      first = false;
    };
    // sympy's str puts the constant last.
    for (const Expr &t : ops)
      if (!t.isConstant())
        emitTerm(t);
    if (ops.front().isConstant())
      emitTerm(ops.front());
  }

  void emitMul(const Expr &e, std::string &out) {
    std::span<const Expr> ops = e.operands();
    size_t i = 0;
    if (ops[0].isConstant()) {
      int64_t c = intValue(ops[0]);
      out += c == -1 ? std::string("-") : fmt::format("{}*", c);
      i = 1;
    }
    for (size_t first = i; i < ops.size(); ++i) {
      if (i != first)
        out += '*';
      emitWrapped(ops[i], kPrecMul, out);
    }
  }

  void emit(const Expr &e, std::string &out) {
    std::span<const Expr> ops = e.operands();
    switch (e.kind()) {
    case ExprKind::Integer:
      appendInt(out, intValue(e));
      return;
    case ExprKind::Symbol:
      out += e.symbolName();
      return;
    case ExprKind::Add:
      emitAdd(e, out);
      return;
    case ExprKind::Mul:
      emitMul(e, out);
      return;
    case ExprKind::Pow:
      emitWrapped(ops[0], kPrecPow, out);
      out += fmt::format("**{}", intValue(ops[1]));
      return;
    case ExprKind::FloorDiv:
      if (canonical) {
        emitCall("FloorDiv", ops, out);
        return;
      }
      out += '(';
      emitDivOperand(ops[0], out);
      out += "//";
      emitDivOperand(ops[1], out);
      out += ')';
      return;
    case ExprKind::CeilDiv:
      if (canonical) {
        emitCall("CeilDiv", ops, out);
        return;
      }
      // ceil(n / b) == -((-n) // b) == -(n // -b); Inductor's FX text negates
      // a bare symbol numerator and the divisor otherwise.
      out += "-((";
      if (ops[0].isSymbol()) {
        emitNegatedDivOperand(ops[0], out);
        out += "//";
        emitDivOperand(ops[1], out);
      } else {
        emitDivOperand(ops[0], out);
        out += "//";
        emitNegatedDivOperand(ops[1], out);
      }
      out += "))";
      return;
    case ExprKind::Mod:
      if (canonical) {
        emitCall("Mod", ops, out);
        return;
      }
      emitDivOperand(ops[0], out);
      out += " % ";
      emitDivOperand(ops[1], out);
      return;
    case ExprKind::ModularIndexing:
      emitCall("ModularIndexing", ops, out);
      return;
    case ExprKind::Min:
      emitCall("Min", ops, out);
      return;
    case ExprKind::Max:
      emitCall("Max", ops, out);
      return;
    }
  }

  bool canonical;
};

//===----------------------------------------------------------------------===//
// Python (Inductor's pexpr)
//===----------------------------------------------------------------------===//

class PythonPrinter {
public:
  void emit(const Expr &e, std::string &out) {
    std::span<const Expr> ops = e.operands();
    switch (e.kind()) {
    case ExprKind::Integer:
      appendInt(out, intValue(e));
      return;
    case ExprKind::Symbol:
      out += e.symbolName();
      return;
    case ExprKind::Add:
      // Canonical order already has the constant first, as pexpr prints it.
      for (size_t i = 0; i < ops.size(); ++i) {
        if (i)
          out += " + ";
        emitWrapped(ops[i], kPrecAdd, out);
      }
      return;
    case ExprKind::Mul:
      for (size_t i = 0; i < ops.size(); ++i) {
        if (i)
          out += '*';
        emitWrapped(ops[i], kPrecMul, out);
      }
      return;
    case ExprKind::Pow: {
      int64_t n = intValue(ops[1]);
      if (n > kMaxPythonProductExponent) {
        emitWrapped(ops[0], kPrecPow, out);
        out += fmt::format(" ** {}", n);
        return;
      }
      for (int64_t i = 0; i < n; ++i) {
        if (i)
          out += '*';
        emitWrapped(ops[0], kPrecMul, out);
      }
      return;
    }
    case ExprKind::FloorDiv:
      out += '(';
      emitOperand(ops[0], out);
      out += " // ";
      emitOperand(ops[1], out);
      out += ')';
      return;
    case ExprKind::CeilDiv:
      // The launcher spelling -((a) // -(b)): Python floors toward -inf.
      out += "-((";
      emit(ops[0], out);
      out += ") // -(";
      emit(ops[1], out);
      out += "))";
      return;
    case ExprKind::Mod:
      emitOperand(ops[0], out);
      out += " % ";
      emitOperand(ops[1], out);
      return;
    case ExprKind::ModularIndexing:
      if (ops[1] == Expr(1)) {
        out += '(';
        emitOperand(ops[0], out);
        out += " % ";
        emitOperand(ops[2], out);
        out += ')';
        return;
      }
      out += "((";
      emitOperand(ops[0], out);
      out += " // ";
      emitOperand(ops[1], out);
      out += ") % ";
      emitOperand(ops[2], out);
      out += ')';
      return;
    case ExprKind::Min:
    case ExprKind::Max:
      out += e.kind() == ExprKind::Min ? "min(" : "max(";
      for (size_t i = 0; i < ops.size(); ++i) {
        if (i)
          out += ", ";
        emit(ops[i], out);
      }
      out += ')';
      return;
    }
  }

private:
  static int precedence(const Expr &e) {
    switch (e.kind()) {
    case ExprKind::Integer:
      return intValue(e) < 0 ? kPrecAdd : kPrecAtom;
    case ExprKind::Add:
    case ExprKind::CeilDiv:
      return kPrecAdd;
    case ExprKind::Mul:
      return coefficientOf(e) < 0 ? kPrecAdd : kPrecMul;
    case ExprKind::Pow:
      return kPrecPow;
    case ExprKind::Mod:
      return kPrecMod;
    default:
      return kPrecAtom;
    }
  }

  void emitWrapped(const Expr &e, int level, std::string &out) {
    if (precedence(e) <= level) {
      out += '(';
      emit(e, out);
      out += ')';
    } else {
      emit(e, out);
    }
  }

  // Operands of // and % are parenthesised unless atoms.
  void emitOperand(const Expr &e, std::string &out) {
    emitWrapped(e, kPrecAtom - 1, out);
  }
};

//===----------------------------------------------------------------------===//
// C++ over wirc/runtime/Arith.h
//===----------------------------------------------------------------------===//

class CppPrinter {
public:
  void emit(const Expr &e, std::string &out) {
    std::span<const Expr> ops = e.operands();
    switch (e.kind()) {
    case ExprKind::Integer:
      if (intValue(e) == INT64_MIN)
        out += "(INT64_C(-9223372036854775807) - 1)";
      else
        out += fmt::format("INT64_C({})", intValue(e));
      return;
    case ExprKind::Symbol:
      out += e.symbolName();
      return;
    case ExprKind::Add:
      emitNary("add", "sum", ops, out);
      return;
    case ExprKind::Mul:
      // mul(-1, x) and neg(x) overflow on the same x.
      if (ops.size() == 2 && ops[0] == Expr(-1)) {
        emitCall("neg", ops.subspan(1), out);
        return;
      }
      emitNary("mul", "product", ops, out);
      return;
    case ExprKind::Pow:
      emitCall("pow", ops, out);
      return;
    case ExprKind::FloorDiv:
      emitCall("floor_div", ops, out);
      return;
    case ExprKind::CeilDiv:
      emitCall("ceil_div", ops, out);
      return;
    case ExprKind::Mod:
      emitCall("py_mod", ops, out);
      return;
    case ExprKind::ModularIndexing:
      out += "wirc::rt::py_mod(";
      emitCall("floor_div", ops.first(2), out);
      out += ", ";
      emit(ops[2], out);
      out += ')';
      return;
    case ExprKind::Min:
      emitNary("min", "min", ops, out);
      return;
    case ExprKind::Max:
      emitNary("max", "max", ops, out);
      return;
    }
  }

private:
  void emitCall(const char *name, std::span<const Expr> args,
                std::string &out) {
    out += "wirc::rt::";
    out += name;
    out += '(';
    for (size_t i = 0; i < args.size(); ++i) {
      if (i)
        out += ", ";
      emit(args[i], out);
    }
    out += ')';
  }

  // Two operands: name(a, b); more: listName({a, b, ...}).
  void emitNary(const char *name, const char *listName,
                std::span<const Expr> args, std::string &out) {
    if (args.size() == 2) {
      emitCall(name, args, out);
      return;
    }
    out += "wirc::rt::";
    out += listName;
    out += "({";
    for (size_t i = 0; i < args.size(); ++i) {
      if (i)
        out += ", ";
      emit(args[i], out);
    }
    out += "})";
  }
};

} // namespace

std::string toString(const Expr &e) { return FxPrinter(true).print(e); }

std::string toString(std::span<const Expr> list) {
  std::string s = "[";
  for (size_t i = 0; i < list.size(); ++i)
    s += (i ? ", " : "") + toString(list[i]);
  return s + "]";
}

std::ostream &operator<<(std::ostream &os, const Expr &e) {
  return os << toString(e);
}

std::string printFx(const Expr &e) { return FxPrinter(false).print(e); }

std::string printPython(const Expr &e) {
  std::string out;
  PythonPrinter().emit(e, out);
  return out;
}

void printPython(const Expr &e, std::string &out) { PythonPrinter().emit(e, out); }

std::string printCpp(const Expr &e) {
  std::string out;
  CppPrinter().emit(e, out);
  return out;
}

} // namespace wirc::sym
