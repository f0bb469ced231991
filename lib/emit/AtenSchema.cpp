//===- AtenSchema.cpp - aten function schemas ------------------------------===//
//
// A recursive-descent parser for the schema text torch prints
// (`str(op._schema)`): `ns::name[.overload](arguments) -> returns`.
//
//===----------------------------------------------------------------------===//
#include "wirc/emit/AtenSchema.h"

#include <fmt/format.h>

#include <cctype>
#include <charconv>
#include <cstdlib>

namespace wirc::emit {

std::string SchemaType::str() const {
  switch (kind) {
  case Kind::Base:
    return base;
  case Kind::List:
    return elem->str() + (fixedSize ? fmt::format("[{}]", *fixedSize) : "[]");
  case Kind::Optional:
    return elem->str() + "?";
  }
  return "";
}

bool FunctionSchema::isOutFn() const {
  for (const SchemaArgument &a : arguments)
    if (a.kwargOnly && a.isWrite)
      return true;
  return false;
}

std::string FunctionSchema::unambiguousName() const {
  return overload.empty() ? name : name + "_" + overload;
}

namespace {

class SchemaParser {
public:
  explicit SchemaParser(std::string_view text) : text(text) {}

  FunctionSchema parse() {
    FunctionSchema schema;
    schema.ns = identifier("a namespace");
    expect("::");
    schema.name = identifier("an operator name");
    if (accept("."))
      schema.overload = identifier("an overload name");
    expect("(");
    bool kwargOnly = false;
    if (!accept(")")) {
      do {
        if (accept("*")) {
          kwargOnly = true;
          continue;
        }
        SchemaArgument arg;
        arg.kwargOnly = kwargOnly;
        arg.type = type(&arg.isWrite);
        arg.name = identifier("an argument name");
        if (accept("="))
          arg.defaultValue = defaultValue();
        schema.arguments.push_back(std::move(arg));
      } while (accept(","));
      expect(")");
    }
    expect("->");
    if (accept("(")) {
      if (!accept(")")) {
        do {
          schema.returns.push_back(type(nullptr));
          skipSpace();
          if (pos < text.size() && isIdentStart(text[pos]))
            identifier("a return name");
        } while (accept(","));
        expect(")");
      }
    } else {
      schema.returns.push_back(type(nullptr));
      skipSpace();
      if (pos < text.size() && isIdentStart(text[pos]))
        identifier("a return name");
    }
    skipSpace();
    if (pos != text.size())
      fail("the end of the schema");
    return schema;
  }

private:
  std::string_view text;
  size_t pos = 0;

  static bool isIdentStart(char c) { return std::isalpha(static_cast<unsigned char>(c)) || c == '_'; }
  static bool isIdent(char c) { return std::isalnum(static_cast<unsigned char>(c)) || c == '_'; }

  void skipSpace() {
    while (pos < text.size() && text[pos] == ' ')
      ++pos;
  }

  [[noreturn]] void fail(std::string_view expected) const {
    throw SchemaError(fmt::format("at offset {}: expected {}", pos, expected));
  }

  bool accept(std::string_view token) {
    skipSpace();
    if (text.substr(pos, token.size()) != token)
      return false;
    pos += token.size();
    return true;
  }

  void expect(std::string_view token) {
    if (!accept(token))
      fail(fmt::format("'{}'", token));
  }

  std::string identifier(std::string_view what) {
    skipSpace();
    if (pos >= text.size() || !isIdentStart(text[pos]))
      fail(what);
    size_t start = pos;
    while (pos < text.size() && isIdent(text[pos]))
      ++pos;
    return std::string(text.substr(start, pos - start));
  }

  /// A type with its suffixes: `Tensor(a!)?[]`, `int[2]`, `SymInt[]?`. An
  /// alias annotation `(a)`, `(a!)`, `(a -> *)` follows the base name.
  SchemaType type(bool *isWrite) {
    SchemaType t;
    t.base = identifier("a type");
    skipSpace();
    if (pos < text.size() && text[pos] == '(') {
      size_t close = text.find(')', pos);
      if (close == std::string_view::npos)
        fail("')' closing an alias annotation");
      std::string_view annotation = text.substr(pos + 1, close - pos - 1);
      if (isWrite && annotation.find('!') != std::string_view::npos)
        *isWrite = true;
      pos = close + 1;
    }
    for (;;) {
      if (accept("?")) {
        SchemaType opt;
        opt.kind = SchemaType::Kind::Optional;
        opt.elem = std::make_shared<SchemaType>(std::move(t));
        t = std::move(opt);
      } else if (accept("[")) {
        SchemaType list;
        list.kind = SchemaType::Kind::List;
        skipSpace();
        if (pos < text.size() && std::isdigit(static_cast<unsigned char>(text[pos]))) {
          int64_t n = 0;
          auto [end, ec] = std::from_chars(text.data() + pos, text.data() + text.size(), n);
          if (ec != std::errc())
            fail("a list size");
          pos = static_cast<size_t>(end - text.data());
          list.fixedSize = n;
        }
        expect("]");
        list.elem = std::make_shared<SchemaType>(std::move(t));
        t = std::move(list);
      } else {
        return t;
      }
    }
  }

  SchemaDefault defaultValue() {
    skipSpace();
    SchemaDefault d;
    if (pos >= text.size())
      fail("a default value");
    char c = text[pos];
    if (c == '[') {
      ++pos;
      d.kind = SchemaDefault::Kind::List;
      if (!accept("]")) {
        do
          d.items.push_back(defaultValue());
        while (accept(","));
        expect("]");
      }
      return d;
    }
    if (c == '"' || c == '\'') {
      size_t close = text.find(c, pos + 1);
      if (close == std::string_view::npos)
        fail("the end of a string default");
      d.kind = SchemaDefault::Kind::String;
      d.text = std::string(text.substr(pos + 1, close - pos - 1));
      pos = close + 1;
      return d;
    }
    if (c == '-' || c == '.' || std::isdigit(static_cast<unsigned char>(c))) {
      size_t start = pos;
      while (pos < text.size() && (std::isalnum(static_cast<unsigned char>(text[pos])) ||
                                   text[pos] == '.' || text[pos] == '-' || text[pos] == '+'))
        ++pos;
      std::string number(text.substr(start, pos - start));
      bool isFloat = number.find_first_of(".eE") != std::string::npos &&
                     number.rfind("0x", 0) != 0;
      char *end = nullptr;
      if (isFloat) {
        d.kind = SchemaDefault::Kind::Double;
        d.doubleValue = std::strtod(number.c_str(), &end);
      } else {
        d.kind = SchemaDefault::Kind::Int;
        d.intValue = std::strtoll(number.c_str(), &end, 10);
      }
      if (end != number.c_str() + number.size())
        fail("a number");
      return d;
    }
    std::string word = identifier("a default value");
    if (word == "None") {
      d.kind = SchemaDefault::Kind::None;
    } else if (word == "True" || word == "False") {
      d.kind = SchemaDefault::Kind::Bool;
      d.boolValue = word == "True";
    } else {
      d.kind = SchemaDefault::Kind::Identifier;
      d.text = word;
    }
    return d;
  }
};

} // namespace

FunctionSchema parseFunctionSchema(std::string_view text) {
  return SchemaParser(text).parse();
}

} // namespace wirc::emit
