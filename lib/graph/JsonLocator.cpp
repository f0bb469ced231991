//===- JsonLocator.cpp ----------------------------------------------------===//
#include "wirc/graph/JsonLocator.h"

#include <cstdint>
#include <string>
#include <vector>

namespace wirc::graph {

namespace {

/// A forgiving scanner over JSON text: it only needs to skip values and read
/// object keys, and must terminate on any input.
class Scanner {
public:
  explicit Scanner(std::string_view text) : text(text) {}

  size_t pos = 0;

  void skipSpace() {
    while (pos < text.size() &&
           (text[pos] == ' ' || text[pos] == '\n' || text[pos] == '\r' || text[pos] == '\t'))
      ++pos;
  }

  bool consume(char c) {
    skipSpace();
    if (pos < text.size() && text[pos] == c) {
      ++pos;
      return true;
    }
    return false;
  }

  char peek() {
    skipSpace();
    return pos < text.size() ? text[pos] : '\0';
  }

  /// Reads a string starting at the opening quote, decoding simple escapes
  /// (enough to compare keys).
  std::string readString() {
    std::string out;
    if (pos >= text.size() || text[pos] != '"')
      return out;
    ++pos;
    while (pos < text.size() && text[pos] != '"') {
      char c = text[pos++];
      if (c == '\\' && pos < text.size()) {
        char e = text[pos++];
        switch (e) {
        case 'n': out += '\n'; break;
        case 't': out += '\t'; break;
        case 'r': out += '\r'; break;
        case 'b': out += '\b'; break;
        case 'f': out += '\f'; break;
        case 'u': {
          // Keys with \u escapes are compared through their code point, as
          // UTF-8, for the common BMP case.
          unsigned code = 0;
          for (int i = 0; i < 4 && pos < text.size(); ++i, ++pos) {
            char h = text[pos];
            code = code * 16 + (h >= 'a' ? h - 'a' + 10 : h >= 'A' ? h - 'A' + 10 : h - '0');
          }
          if (code < 0x80) {
            out += static_cast<char>(code);
          } else if (code < 0x800) {
            out += static_cast<char>(0xC0 | (code >> 6));
            out += static_cast<char>(0x80 | (code & 0x3F));
          } else {
            out += static_cast<char>(0xE0 | (code >> 12));
            out += static_cast<char>(0x80 | ((code >> 6) & 0x3F));
            out += static_cast<char>(0x80 | (code & 0x3F));
          }
          break;
        }
        default: out += e;
        }
      } else {
        out += c;
      }
    }
    if (pos < text.size())
      ++pos; // closing quote
    return out;
  }

  /// Skips one value of any kind. Iterative, so deep nesting cannot overflow
  /// the stack.
  void skipValue() {
    skipSpace();
    int depth = 0;
    do {
      skipSpace();
      if (pos >= text.size())
        return;
      char c = text[pos];
      if (c == '"') {
        readString();
      } else if (c == '{' || c == '[') {
        ++depth;
        ++pos;
      } else if (c == '}' || c == ']') {
        --depth;
        ++pos;
      } else if (c == ',' || c == ':') {
        ++pos;
      } else {
        while (pos < text.size() && text[pos] != ',' && text[pos] != '}' && text[pos] != ']' &&
               text[pos] != ' ' && text[pos] != '\n' && text[pos] != '\r' && text[pos] != '\t')
          ++pos;
      }
    } while (depth > 0);
  }

private:
  std::string_view text;
};

std::vector<std::string> splitPointer(std::string_view pointer) {
  std::vector<std::string> tokens;
  if (pointer.empty() || pointer == "/")
    return tokens;
  size_t i = pointer[0] == '/' ? 1 : 0;
  std::string current;
  for (; i <= pointer.size(); ++i) {
    if (i == pointer.size() || pointer[i] == '/') {
      tokens.push_back(current);
      current.clear();
    } else if (pointer[i] == '~' && i + 1 < pointer.size()) {
      current += pointer[i + 1] == '1' ? '/' : '~';
      ++i;
    } else {
      current += pointer[i];
    }
  }
  return tokens;
}

} // namespace

SourcePos positionOfOffset(std::string_view text, size_t offset) {
  SourcePos result{1, 1};
  if (offset > text.size())
    offset = text.size();
  for (size_t i = 0; i < offset; ++i) {
    if (text[i] == '\n') {
      ++result.line;
      result.column = 1;
    } else {
      ++result.column;
    }
  }
  return result;
}

SourcePos locateJsonPointer(std::string_view text, std::string_view pointer) {
  Scanner scanner(text);
  scanner.skipSpace();
  size_t found = scanner.pos;
  for (const std::string &token : splitPointer(pointer)) {
    char open = scanner.peek();
    bool matched = false;
    if (open == '{') {
      ++scanner.pos;
      while (scanner.peek() == '"') {
        std::string key = scanner.readString();
        scanner.consume(':');
        scanner.skipSpace();
        if (key == token) {
          matched = true;
          break;
        }
        scanner.skipValue();
        if (!scanner.consume(','))
          break;
      }
    } else if (open == '[') {
      ++scanner.pos;
      size_t index = 0;
      bool numeric = !token.empty() && token.find_first_not_of("0123456789") == std::string::npos;
      size_t wanted = numeric && token.size() < 10 ? std::stoul(token) : SIZE_MAX;
      while (scanner.peek() != ']' && scanner.peek() != '\0') {
        scanner.skipSpace();
        if (index == wanted) {
          matched = true;
          break;
        }
        scanner.skipValue();
        ++index;
        if (!scanner.consume(','))
          break;
      }
    }
    if (!matched)
      break;
    scanner.skipSpace();
    found = scanner.pos;
  }
  return positionOfOffset(text, found);
}

} // namespace wirc::graph
