//===- Json.cpp - A fast, strict JSON reader ------------------------------===//
#include "wirc/support/Json.h"

#include <algorithm>
#include <array>
#include <bit>
#include <charconv>
#include <cstring>
#include <fmt/format.h>

namespace wirc::json {

using value_t = Value::value_t;

class Parser {
public:
  Parser(std::string_view text, unsigned maxDepth, Document &doc)
      : text(text), maxDepth(maxDepth), doc(doc) {}

  bool run(ParseError &error) {
    doc.nodes.reserve(text.size() / 8 + 16);
    skipSpace();
    if (!parseValue(0))
      return report(error);
    skipSpace();
    if (pos != text.size()) {
      fail("unexpected characters after the document");
      return report(error);
    }
    return true;
  }

private:
  std::string_view text;
  unsigned maxDepth;
  Document &doc;
  size_t pos = 0;
  size_t errorPos = 0;
  std::string errorMessage;
  std::vector<uint32_t> scratch; ///< children of the containers being parsed
  std::vector<Document::MemberRef> memberScratch;

  bool report(ParseError &error) {
    error.offset = errorPos;
    error.message = errorMessage;
    return false;
  }

  bool fail(std::string message) {
    if (errorMessage.empty()) {
      errorPos = pos;
      errorMessage = std::move(message);
    }
    return false;
  }

  /// Eight bytes of the text from \p at, as a little-endian word.
  uint64_t word(size_t at) const {
    uint64_t w;
    std::memcpy(&w, text.data() + at, 8);
    if constexpr (std::endian::native == std::endian::big)
      w = __builtin_bswap64(w);
    return w;
  }
  static constexpr uint64_t kOnes = 0x0101010101010101ULL;
  static constexpr uint64_t kHighs = 0x8080808080808080ULL;

  void skipSpace() {
    while (pos < text.size()) {
      char c = text[pos];
      if (c != ' ' && c != '\n' && c != '\r' && c != '\t')
        break;
      ++pos;
    }
  }

  /// The offset of the first byte at or after \p at that a string does not
  /// copy as it is ('"', '\\', control bytes, non-ASCII), or the end.
  size_t plainRun(size_t at) const {
    while (at + 8 <= text.size()) {
      uint64_t w = word(at);
      // SWAR: a high bit in each byte that is below 0x20, equal to '"' or
      // '\\', or non-ASCII (w itself has the high bit).
      auto zeroByte = [](uint64_t x) { return (x - kOnes) & ~x & kHighs; };
      uint64_t special = ((w - kOnes * 0x20) & ~w & kHighs) | zeroByte(w ^ (kOnes * '"')) |
                         zeroByte(w ^ (kOnes * '\\')) | (w & kHighs);
      if (special)
        return at + static_cast<size_t>(std::countr_zero(special)) / 8;
      at += 8;
    }
    while (at < text.size() && kPlain[static_cast<unsigned char>(text[at])])
      ++at;
    return at;
  }

  uint32_t newNode(value_t type) {
    doc.nodes.emplace_back();
    doc.nodes.back().type = type;
    return static_cast<uint32_t>(doc.nodes.size() - 1);
  }

  bool literal(std::string_view word) {
    if (text.substr(pos, word.size()) != word)
      return fail(fmt::format("invalid literal; expected '{}'", word));
    pos += word.size();
    return true;
  }

  std::string describe() const {
    if (pos >= text.size())
      return "end of input";
    unsigned char c = static_cast<unsigned char>(text[pos]);
    if (c >= 0x20 && c < 0x7f)
      return fmt::format("'{}'", static_cast<char>(c));
    return fmt::format("byte 0x{:02x}", c);
  }

  bool parseValue(unsigned depth) {
    if (pos >= text.size())
      return fail("unexpected end of input; expected a value");
    switch (text[pos]) {
    case '{':
      return parseObject(depth + 1);
    case '[':
      return parseArray(depth + 1);
    case '"': {
      uint32_t n = newNode(value_t::string);
      std::string_view s;
      if (!parseString(s))
        return false;
      doc.nodes[n].setText(s);
      return true;
    }
    case 't': {
      uint32_t n = newNode(value_t::boolean);
      doc.nodes[n].boolean = true;
      return literal("true");
    }
    case 'f':
      newNode(value_t::boolean);
      return literal("false");
    case 'n':
      newNode(value_t::null);
      return literal("null");
    default:
      if (text[pos] == '-' || (text[pos] >= '0' && text[pos] <= '9'))
        return parseNumber();
      return fail(fmt::format("unexpected {}; expected a value", describe()));
    }
  }

  bool parseNumber() {
    size_t start = pos;
    if (text[pos] == '-')
      ++pos;
    auto digits = [&] {
      size_t s = pos;
      while (pos < text.size() && text[pos] >= '0' && text[pos] <= '9')
        ++pos;
      return pos - s;
    };
    if (pos < text.size() && text[pos] == '0') {
      ++pos;
    } else if (digits() == 0) {
      return fail("invalid number; expected a digit");
    }
    bool integral = true;
    if (pos < text.size() && text[pos] == '.') {
      ++pos;
      integral = false;
      if (digits() == 0)
        return fail("invalid number; expected a digit after '.'");
    }
    if (pos < text.size() && (text[pos] == 'e' || text[pos] == 'E')) {
      ++pos;
      integral = false;
      if (pos < text.size() && (text[pos] == '+' || text[pos] == '-'))
        ++pos;
      if (digits() == 0)
        return fail("invalid number; expected a digit in the exponent");
    }
    std::string_view spelling = text.substr(start, pos - start);
    uint32_t n = newNode(value_t::number_float);
    Document::Node &node = doc.nodes[n];
    node.setText(spelling);
    const char *first = spelling.data();
    const char *last = first + spelling.size();
    if (integral) {
      int64_t i = 0;
      auto [end, ec] = std::from_chars(first, last, i);
      if (ec == std::errc() && end == last) {
        node.type = value_t::number_integer;
        node.i = i;
        return true;
      }
      uint64_t u = 0;
      auto [uend, uec] = std::from_chars(first, last, u);
      if (uec == std::errc() && uend == last) {
        node.type = value_t::number_unsigned;
        node.u = u;
        return true;
      }
    }
    double d = 0;
    auto [end, ec] = std::from_chars(first, last, d);
    if (end != last || (ec != std::errc() && ec != std::errc::result_out_of_range))
      return fail("invalid number");
    node.d = d;
    return true;
  }

  static int hexValue(char c) {
    if (c >= '0' && c <= '9')
      return c - '0';
    if (c >= 'a' && c <= 'f')
      return c - 'a' + 10;
    if (c >= 'A' && c <= 'F')
      return c - 'A' + 10;
    return -1;
  }

  bool hex4(unsigned &code) {
    if (pos + 4 > text.size())
      return fail("incomplete \\u escape");
    code = 0;
    for (int i = 0; i < 4; ++i) {
      int h = hexValue(text[pos + i]);
      if (h < 0)
        return fail("invalid \\u escape; expected 4 hex digits");
      code = code * 16 + static_cast<unsigned>(h);
    }
    pos += 4;
    return true;
  }

  static void appendUtf8(std::string &out, unsigned code) {
    if (code < 0x80) {
      out += static_cast<char>(code);
    } else if (code < 0x800) {
      out += static_cast<char>(0xC0 | (code >> 6));
      out += static_cast<char>(0x80 | (code & 0x3F));
    } else if (code < 0x10000) {
      out += static_cast<char>(0xE0 | (code >> 12));
      out += static_cast<char>(0x80 | ((code >> 6) & 0x3F));
      out += static_cast<char>(0x80 | (code & 0x3F));
    } else {
      out += static_cast<char>(0xF0 | (code >> 18));
      out += static_cast<char>(0x80 | ((code >> 12) & 0x3F));
      out += static_cast<char>(0x80 | ((code >> 6) & 0x3F));
      out += static_cast<char>(0x80 | (code & 0x3F));
    }
  }

  /// Length of the well-formed UTF-8 sequence at pos, or 0.
  size_t utf8Length() const {
    auto byte = [&](size_t i) -> unsigned {
      return i < text.size() ? static_cast<unsigned char>(text[i]) : 0u;
    };
    unsigned c = byte(pos);
    auto cont = [&](size_t i) { return (byte(i) & 0xC0) == 0x80; };
    if (c >= 0xC2 && c <= 0xDF)
      return cont(pos + 1) ? 2 : 0;
    if (c >= 0xE0 && c <= 0xEF) {
      unsigned c1 = byte(pos + 1);
      if ((c == 0xE0 && c1 < 0xA0) || (c == 0xED && c1 > 0x9F)) // overlong, surrogate
        return 0;
      return cont(pos + 1) && cont(pos + 2) ? 3 : 0;
    }
    if (c >= 0xF0 && c <= 0xF4) {
      unsigned c1 = byte(pos + 1);
      if ((c == 0xF0 && c1 < 0x90) || (c == 0xF4 && c1 > 0x8F))
        return 0;
      return cont(pos + 1) && cont(pos + 2) && cont(pos + 3) ? 4 : 0;
    }
    return 0;
  }

  /// Parses a string at the opening quote. Strings without escapes stay
  /// views into the source.
  /// Printable ASCII other than '"' and '\\': bytes a string copies as is.
  static constexpr std::array<bool, 256> kPlain = [] {
    std::array<bool, 256> plain{};
    for (unsigned c = 0x20; c < 0x80; ++c)
      plain[c] = c != '"' && c != '\\';
    return plain;
  }();

  bool parseString(std::string_view &out) {
    ++pos; // opening quote
    size_t start = pos;
    std::string *decoded = nullptr;
    while (true) {
      // Most of a document is plain ASCII: skip runs of it in a tight loop
      // and copy them in one piece.
      size_t run = plainRun(pos);
      if (decoded)
        decoded->append(text.data() + pos, run - pos);
      pos = run;
      if (pos >= text.size())
        return fail("unterminated string");
      unsigned char c = static_cast<unsigned char>(text[pos]);
      if (c == '"')
        break;
      if (c < 0x20)
        return fail("control character in a string; it must be escaped");
      if (c == '\\') {
        if (!decoded) {
          doc.decoded.push_back(std::make_unique<std::string>(text.substr(start, pos - start)));
          decoded = doc.decoded.back().get();
        }
        ++pos;
        if (pos >= text.size())
          return fail("unterminated string");
        char e = text[pos++];
        switch (e) {
        case '"': *decoded += '"'; break;
        case '\\': *decoded += '\\'; break;
        case '/': *decoded += '/'; break;
        case 'b': *decoded += '\b'; break;
        case 'f': *decoded += '\f'; break;
        case 'n': *decoded += '\n'; break;
        case 'r': *decoded += '\r'; break;
        case 't': *decoded += '\t'; break;
        case 'u': {
          unsigned code = 0;
          if (!hex4(code))
            return false;
          if (code >= 0xD800 && code <= 0xDBFF) {
            unsigned low = 0;
            if (text.substr(pos, 2) != "\\u")
              return fail("unpaired UTF-16 surrogate in a \\u escape");
            pos += 2;
            if (!hex4(low))
              return false;
            if (low < 0xDC00 || low > 0xDFFF)
              return fail("unpaired UTF-16 surrogate in a \\u escape");
            code = 0x10000 + ((code - 0xD800) << 10) + (low - 0xDC00);
          } else if (code >= 0xDC00 && code <= 0xDFFF) {
            return fail("unpaired UTF-16 surrogate in a \\u escape");
          }
          appendUtf8(*decoded, code);
          break;
        }
        default:
          --pos;
          return fail("invalid escape in a string");
        }
        continue;
      }
      if (c < 0x80) {
        if (decoded)
          *decoded += static_cast<char>(c);
        ++pos;
        continue;
      }
      size_t length = utf8Length();
      if (length == 0)
        return fail("invalid UTF-8 in a string");
      if (decoded)
        decoded->append(text.substr(pos, length));
      pos += length;
    }
    out = decoded ? std::string_view(*decoded) : text.substr(start, pos - start);
    if (out.size() > UINT32_MAX)
      return fail("string is longer than 4 GiB");
    ++pos; // closing quote
    return true;
  }

  bool parseArray(unsigned depth) {
    if (depth > maxDepth)
      return fail(fmt::format("JSON nesting is deeper than the limit of {}", maxDepth));
    uint32_t n = newNode(value_t::array);
    ++pos; // [
    size_t base = scratch.size();
    skipSpace();
    if (pos < text.size() && text[pos] == ']') {
      ++pos;
      return true;
    }
    while (true) {
      skipSpace();
      scratch.push_back(static_cast<uint32_t>(doc.nodes.size()));
      if (!parseValue(depth))
        return false;
      skipSpace();
      if (pos < text.size() && text[pos] == ',') {
        ++pos;
        continue;
      }
      if (pos < text.size() && text[pos] == ']') {
        ++pos;
        break;
      }
      return fail(fmt::format("unexpected {}; expected ',' or ']' in an array", describe()));
    }
    Document::Node &node = doc.nodes[n];
    node.first = static_cast<uint32_t>(doc.children.size());
    node.count = static_cast<uint32_t>(scratch.size() - base);
    doc.children.insert(doc.children.end(), scratch.begin() + base, scratch.end());
    scratch.resize(base);
    return true;
  }

  static bool sameKey(std::string_view a, std::string_view b) {
    return a.size() == b.size() && (a.empty() || a[0] == b[0]) && a == b;
  }

  /// Fails on a name that occurs twice among the members from \p base on.
  /// Graph objects have a handful of members: compare pairs in place; sort a
  /// copy only for large objects, which keeps this O(n log n) for any size.
  bool checkDuplicateKeys(size_t base) {
    size_t count = memberScratch.size() - base;
    if (count <= 16) {
      // Report the smallest duplicate name, as the sorted scan below does.
      // (Through a local pointer: the vector's bounds are not reloaded
      // after every comparison.)
      const Document::MemberRef *m = memberScratch.data() + base;
      const std::string_view *duplicate = nullptr;
      for (size_t i = 0; i < count; ++i)
        for (size_t j = i + 1; j < count; ++j)
          if (sameKey(m[i].key, m[j].key) && (!duplicate || m[i].key < *duplicate))
            duplicate = &m[i].key;
      if (duplicate)
        return fail(fmt::format("duplicate member name \"{}\" in an object",
                                duplicate->substr(0, 60)));
      return true;
    }
    std::vector<std::string_view> keys;
    keys.reserve(count);
    for (size_t i = base; i < memberScratch.size(); ++i)
      keys.push_back(memberScratch[i].key);
    std::sort(keys.begin(), keys.end());
    for (size_t i = 1; i < keys.size(); ++i)
      if (keys[i] == keys[i - 1])
        return fail(fmt::format("duplicate member name \"{}\" in an object",
                                keys[i].substr(0, 60)));
    return true;
  }

  bool parseObject(unsigned depth) {
    if (depth > maxDepth)
      return fail(fmt::format("JSON nesting is deeper than the limit of {}", maxDepth));
    uint32_t n = newNode(value_t::object);
    ++pos; // {
    size_t base = memberScratch.size();
    skipSpace();
    if (pos < text.size() && text[pos] == '}') {
      ++pos;
      return true;
    }
    while (true) {
      skipSpace();
      if (pos >= text.size() || text[pos] != '"')
        return fail(fmt::format("unexpected {}; expected a member name in quotes", describe()));
      std::string_view key;
      if (!parseString(key))
        return false;
      skipSpace();
      if (pos >= text.size() || text[pos] != ':')
        return fail(fmt::format("unexpected {}; expected ':' after a member name", describe()));
      ++pos;
      skipSpace();
      uint32_t value = static_cast<uint32_t>(doc.nodes.size());
      if (!parseValue(depth))
        return false;
      memberScratch.push_back({key, value});
      skipSpace();
      if (pos < text.size() && text[pos] == ',') {
        ++pos;
        continue;
      }
      if (pos < text.size() && text[pos] == '}') {
        ++pos;
        break;
      }
      return fail(fmt::format("unexpected {}; expected ',' or '}}' in an object", describe()));
    }
    // Duplicate names are ambiguous: reject them rather than pick one.
    if (!checkDuplicateKeys(base))
      return false;
    Document::Node &node = doc.nodes[n];
    node.first = static_cast<uint32_t>(doc.members.size());
    node.count = static_cast<uint32_t>(memberScratch.size() - base);
    doc.members.insert(doc.members.end(), memberScratch.begin() + base, memberScratch.end());
    memberScratch.resize(base);
    return true;
  }
};

std::unique_ptr<Document> Document::parse(std::string_view text, unsigned maxDepth,
                                          ParseError &error) {
  auto doc = std::make_unique<Document>();
  Parser parser(text, maxDepth, *doc);
  if (!parser.run(error))
    return nullptr;
  return doc;
}

Value::value_t Value::type() const { return doc->nodes[index].type; }

size_t Value::size() const {
  const Document::Node &node = doc->nodes[index];
  return node.type == value_t::array || node.type == value_t::object ? node.count : 0;
}

Value Value::operator[](size_t i) const {
  const Document::Node &node = doc->nodes[index];
  return Value(doc, doc->children[node.first + i]);
}

std::optional<Value> Value::find(std::string_view key) const {
  const Document::Node &node = doc->nodes[index];
  if (node.type != value_t::object)
    return std::nullopt;
  // Keys are short and mostly differ in length or first byte: test those,
  // and compare the rest in place rather than through memcmp.
  for (uint32_t i = 0; i < node.count; ++i) {
    const Document::MemberRef &m = doc->members[node.first + i];
    if (m.key.size() != key.size() || (!key.empty() && m.key[0] != key[0]))
      continue;
    size_t j = 1;
    while (j < key.size() && m.key[j] == key[j])
      ++j;
    if (j >= key.size())
      return Value(doc, m.value);
  }
  return std::nullopt;
}

Member Value::member(size_t i) const {
  const Document::MemberRef &m = doc->members[doc->nodes[index].first + i];
  return {m.key, Value(doc, m.value)};
}

std::vector<Member> Value::items() const {
  std::vector<Member> out;
  const Document::Node &node = doc->nodes[index];
  if (node.type != value_t::object)
    return out;
  out.reserve(node.count);
  for (uint32_t i = 0; i < node.count; ++i) {
    const Document::MemberRef &m = doc->members[node.first + i];
    out.push_back({m.key, Value(doc, m.value)});
  }
  return out;
}

bool Value::getBool() const { return doc->nodes[index].boolean; }
int64_t Value::getInt() const { return doc->nodes[index].i; }

uint64_t Value::getUInt() const {
  const Document::Node &node = doc->nodes[index];
  return node.type == value_t::number_unsigned ? node.u : static_cast<uint64_t>(node.i);
}

double Value::getDouble() const {
  const Document::Node &node = doc->nodes[index];
  switch (node.type) {
  case value_t::number_integer:
    return static_cast<double>(node.i);
  case value_t::number_unsigned:
    return static_cast<double>(node.u);
  default:
    return node.d;
  }
}

std::string_view Value::str() const { return doc->nodes[index].text(); }

std::string Value::dump() const {
  const Document::Node &node = doc->nodes[index];
  switch (node.type) {
  case value_t::null:
    return "null";
  case value_t::boolean:
    return node.boolean ? "true" : "false";
  case value_t::number_integer:
  case value_t::number_unsigned:
  case value_t::number_float:
    return std::string(node.text());
  case value_t::string:
    return fmt::format("\"{}\"", node.text().substr(0, 60));
  case value_t::array:
    return "[...]";
  case value_t::object:
    return "{...}";
  }
  return "";
}

} // namespace wirc::json
