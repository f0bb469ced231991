//===- lib/sym/Parse.cpp - Graph-format expression parser ----------------===//
//
// A recursive-descent parser for the syntax documented in Expr.h. Sums and
// products are collected into n-ary lists before they are built, so long
// chains cost O(n log n) and `2*(s0 + 1)*s1` keeps its factors as written
// (the canonical printers rely on that to parse back to the same Expr).
//
//===----------------------------------------------------------------------===//

#include "ExprImpl.h"

#include <fmt/format.h>

#include <stdexcept>

namespace wirc::sym {

namespace {

enum class Tok {
  End,
  Int,
  Ident,
  LParen,
  RParen,
  Comma,
  Plus,
  Minus,
  Star,
  StarStar,
  SlashSlash,
  Slash,
  Percent,
};

struct Token {
  Tok kind = Tok::End;
  size_t offset = 0;
  std::string_view text;
  /// Int: the magnitude; literals up to 2^63 fit (for -2^63).
  uint64_t magnitude = 0;
  /// Int: the literal exceeds 2^63.
  bool tooBig = false;
};

struct Failure {
  size_t offset;
  std::string message;
};

enum class Func { FloorDiv, CeilDiv, Mod, ModularIndexing, Min, Max };

struct FuncInfo {
  std::string_view name;
  Func func;
  /// Fixed argument count, or 0 for one or more.
  unsigned arity;
};

constexpr FuncInfo kFunctions[] = {
    {"FloorDiv", Func::FloorDiv, 2},
    {"CeilDiv", Func::CeilDiv, 2},
    {"Mod", Func::Mod, 2},
    {"PythonMod", Func::Mod, 2},
    {"ModularIndexing", Func::ModularIndexing, 3},
    {"Min", Func::Min, 0},
    {"Max", Func::Max, 0},
};

const FuncInfo *findFunction(std::string_view name) {
  for (const FuncInfo &f : kFunctions)
    if (f.name == name)
      return &f;
  return nullptr;
}

bool isIdentStart(char c) {
  return (c >= 'a' && c <= 'z') || (c >= 'A' && c <= 'Z') || c == '_';
}
bool isDigit(char c) { return c >= '0' && c <= '9'; }
bool isSpace(char c) {
  return c == ' ' || c == '\t' || c == '\n' || c == '\r';
}

constexpr uint64_t kTwoTo63 = uint64_t(1) << 63;

class Parser {
public:
  explicit Parser(std::string_view text) : text(text) { tok = lex(0); }

  Expr parseAll() {
    Expr e = parseSum();
    if (tok.kind != Tok::End)
      fail(tok.offset,
           fmt::format("unexpected {} after the end of the expression",
                       describe(tok)));
    return e;
  }

private:
  [[noreturn]] void fail(size_t offset, std::string message) {
    throw Failure{offset, std::move(message)};
  }

  Token lex(size_t pos) {
    while (pos < text.size() && isSpace(text[pos]))
      ++pos;
    Token t;
    t.offset = pos;
    if (pos >= text.size()) {
      t.kind = Tok::End;
      return t;
    }
    char c = text[pos];
    size_t len = 1;
    if (isDigit(c)) {
      t.kind = Tok::Int;
      while (pos + len < text.size() && isDigit(text[pos + len]))
        ++len;
      for (size_t i = 0; i < len && !t.tooBig; ++i) {
        uint64_t digit = static_cast<uint64_t>(text[pos + i] - '0');
        if (t.magnitude > (kTwoTo63 - digit) / 10)
          t.tooBig = true;
        else
          t.magnitude = t.magnitude * 10 + digit;
      }
    } else if (isIdentStart(c)) {
      t.kind = Tok::Ident;
      while (pos + len < text.size() &&
             (isIdentStart(text[pos + len]) || isDigit(text[pos + len])))
        ++len;
    } else {
      char n = pos + 1 < text.size() ? text[pos + 1] : '\0';
      switch (c) {
      case '(':
        t.kind = Tok::LParen;
        break;
      case ')':
        t.kind = Tok::RParen;
        break;
      case ',':
        t.kind = Tok::Comma;
        break;
      case '+':
        t.kind = Tok::Plus;
        break;
      case '-':
        t.kind = Tok::Minus;
        break;
      case '%':
        t.kind = Tok::Percent;
        break;
      case '*':
        t.kind = n == '*' ? Tok::StarStar : Tok::Star;
        len = n == '*' ? 2 : 1;
        break;
      case '/':
        t.kind = n == '/' ? Tok::SlashSlash : Tok::Slash;
        len = n == '/' ? 2 : 1;
        break;
      default: {
        unsigned char u = static_cast<unsigned char>(c);
        if (u >= 0x20 && u < 0x7f)
          fail(pos, fmt::format("unexpected character '{}'", c));
        fail(pos, fmt::format("unexpected byte 0x{:02x}", u));
      }
      }
    }
    t.text = text.substr(pos, len);
    return t;
  }

  void advance() { tok = lex(tok.offset + tok.text.size()); }

  static std::string describe(const Token &t) {
    if (t.kind == Tok::End)
      return "end of input";
    return fmt::format("'{}'", t.text);
  }

  void enter(size_t offset) {
    if (++depth > kMaxParseDepth)
      fail(offset, fmt::format("expression nested deeper than {} levels",
                               kMaxParseDepth));
  }
  void leave() { --depth; }

  // Runs a constructor, turning its exceptions into a parse error at offset.
  template <typename F> Expr build(size_t offset, F &&f) {
    try {
      return f();
    } catch (const std::overflow_error &) {
      fail(offset, "int64 overflow while folding constants");
    } catch (const std::domain_error &e) {
      fail(offset, e.what());
    }
  }

  int64_t intOf(const Token &t) {
    if (t.tooBig || t.magnitude > static_cast<uint64_t>(INT64_MAX))
      fail(t.offset, "integer literal out of int64 range");
    return static_cast<int64_t>(t.magnitude);
  }

  Expr parseSum() {
    size_t start = tok.offset;
    std::vector<Expr> terms;
    terms.push_back(parseProduct());
    while (tok.kind == Tok::Plus || tok.kind == Tok::Minus) {
      Token op = tok;
      advance();
      Expr t = parseProduct();
      if (op.kind == Tok::Minus)
        t = build(op.offset, [&] { return -t; });
      terms.push_back(std::move(t));
    }
    if (terms.size() == 1)
      return terms.front();
    return build(start, [&] { return sum(terms); });
  }

  Expr parseProduct() {
    size_t start = tok.offset;
    std::vector<Expr> factors;
    parseUnaryInto(factors);
    while (true) {
      if (tok.kind == Tok::Slash)
        fail(tok.offset,
             "true division '/' is not an integer operation; use //");
      if (tok.kind == Tok::Star) {
        advance();
        parseUnaryInto(factors);
        continue;
      }
      if (tok.kind != Tok::SlashSlash && tok.kind != Tok::Percent)
        break;
      Token op = tok;
      advance();
      Expr lhs = build(start, [&] { return product(factors); });
      size_t rhsStart = tok.offset;
      std::vector<Expr> rhsFactors;
      parseUnaryInto(rhsFactors);
      Expr rhs = build(rhsStart, [&] { return product(rhsFactors); });
      Expr r = build(op.offset, [&] {
        return op.kind == Tok::SlashSlash ? floorDiv(lhs, rhs) : mod(lhs, rhs);
      });
      factors.assign(1, r);
    }
    if (factors.size() == 1)
      return factors.front();
    return build(start, [&] { return product(factors); });
  }

  // A unary minus contributes a -1 factor to the enclosing product, so that
  // `-(s0 + 1)*s1` is the product of -1, (s0 + 1) and s1 (as printed).
  void parseUnaryInto(std::vector<Expr> &factors) {
    if (tok.kind == Tok::Minus || tok.kind == Tok::Plus) {
      bool minus = tok.kind == Tok::Minus;
      enter(tok.offset);
      advance();
      if (minus && tok.kind == Tok::Int &&
          lex(tok.offset + tok.text.size()).kind != Tok::StarStar) {
        if (tok.tooBig || tok.magnitude > kTwoTo63)
          fail(tok.offset, "integer literal out of int64 range");
        factors.push_back(
            static_cast<int64_t>(uint64_t(0) - tok.magnitude));
        advance();
      } else {
        if (minus)
          factors.push_back(-1);
        parseUnaryInto(factors);
      }
      leave();
      return;
    }
    factors.push_back(parsePower());
  }

  Expr parsePower() {
    Expr base = parseAtom();
    if (tok.kind != Tok::StarStar)
      return base;
    size_t opOffset = tok.offset;
    enter(opOffset);
    advance();
    size_t expOffset = tok.offset;
    std::vector<Expr> expFactors;
    parseUnaryInto(expFactors);
    Expr exponent = build(expOffset, [&] { return product(expFactors); });
    leave();
    std::optional<int64_t> n = exponent.constant();
    if (!n || *n < 0)
      fail(expOffset,
           "the exponent of '**' must be a non-negative integer constant");
    return build(opOffset, [&] { return pow(base, *n); });
  }

  Expr parseAtom() {
    Token t = tok;
    switch (t.kind) {
    case Tok::Int:
      advance();
      return intOf(t);
    case Tok::Ident: {
      advance();
      const FuncInfo *f = findFunction(t.text);
      if (f) {
        if (tok.kind != Tok::LParen)
          fail(tok.offset, fmt::format("expected '(' after function name '{}'",
                                       t.text));
        return parseCall(*f, t.offset);
      }
      if (tok.kind == Tok::LParen)
        fail(t.offset, fmt::format("unknown function '{}'", t.text));
      return Expr::symbol(t.text);
    }
    case Tok::LParen: {
      enter(t.offset);
      advance();
      Expr e = parseSum();
      if (tok.kind != Tok::RParen)
        fail(tok.offset,
             fmt::format("expected ')' to match '(' at offset {}, found {}",
                         t.offset, describe(tok)));
      advance();
      leave();
      return e;
    }
    case Tok::Slash:
      fail(t.offset, "true division '/' is not an integer operation; use //");
    default:
      fail(t.offset,
           fmt::format("expected an expression, found {}", describe(t)));
    }
  }

  Expr parseCall(const FuncInfo &f, size_t nameOffset) {
    enter(nameOffset);
    advance();
    std::vector<Expr> args;
    if (tok.kind == Tok::RParen)
      fail(tok.offset,
           f.arity == 0 ? fmt::format("{} takes at least 1 argument", f.name)
                        : fmt::format("{} takes {} arguments, got 0", f.name,
                                      f.arity));
    while (true) {
      args.push_back(parseSum());
      if (f.arity != 0 && args.size() < f.arity) {
        if (tok.kind == Tok::Comma) {
          advance();
          continue;
        }
        if (tok.kind == Tok::RParen)
          fail(tok.offset, fmt::format("{} takes {} arguments, got {}", f.name,
                                       f.arity, args.size()));
        fail(tok.offset,
             fmt::format("expected ',' after argument {} of {}, found {}",
                         args.size(), f.name, describe(tok)));
      }
      if (f.arity == 0 && tok.kind == Tok::Comma) {
        advance();
        continue;
      }
      if (tok.kind == Tok::RParen)
        break;
      fail(tok.offset,
           fmt::format("expected ')' after arguments of {}", f.name));
    }
    advance();
    leave();
    return build(nameOffset, [&]() -> Expr {
      switch (f.func) {
      case Func::FloorDiv:
        return floorDiv(args[0], args[1]);
      case Func::CeilDiv:
        return ceilDiv(args[0], args[1]);
      case Func::Mod:
        return mod(args[0], args[1]);
      case Func::ModularIndexing:
        return modularIndexing(args[0], args[1], args[2]);
      case Func::Min:
        return min(args);
      case Func::Max:
        return max(args);
      }
      return Expr();
    });
  }

  std::string_view text;
  Token tok;
  unsigned depth = 0;
};

} // namespace

std::optional<Expr> parseExpr(std::string_view text, ParseError &err) {
  try {
    return Parser(text).parseAll();
  } catch (const Failure &f) {
    err.offset = f.offset;
    err.message = f.message;
    return std::nullopt;
  }
}

} // namespace wirc::sym
