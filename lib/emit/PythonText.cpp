//===- PythonText.cpp -----------------------------------------------------===//
#include "PythonText.h"

#include <fmt/format.h>

#include <cmath>

namespace wirc::emit {

// Escapes a kernel source for a ''' string: backslashes are doubled and a
/// quote is escaped when another quote follows it or it ends the text, so no
/// run of three quotes (or a quote touching the closing ''') can survive.
/// Other control characters become escapes; newlines and tabs stay readable.
std::string tripleQuotedBody(std::string_view source) {
  std::string out;
  out.reserve(source.size() + 16);
  for (size_t i = 0; i < source.size(); ++i) {
    unsigned char c = static_cast<unsigned char>(source[i]);
    if (c == '\\') {
      out += "\\\\";
    } else if (c == '\'') {
      bool needsEscape = i + 1 == source.size() || source[i + 1] == '\'';
      out += needsEscape ? "\\'" : "'";
    } else if (c == '\r') {
      out += "\\r";
    } else if (c < 0x20 && c != '\n' && c != '\t') {
      out += fmt::format("\\x{:02x}", c);
    } else if (c == 0x7f) {
      out += "\\x7f";
    } else {
      out += static_cast<char>(c); // UTF-8 passes through: the module is UTF-8
    }
  }
  return out;
}

// A comment's text with everything but printable characters escaped, so a
/// comment can never end its line.
std::string commentText(std::string_view text) {
  std::string out;
  for (unsigned char c : text) {
    if (c < 0x20 || c == 0x7f)
      out += fmt::format("\\x{:02x}", c);
    else
      out += static_cast<char>(c);
  }
  return out;
}

std::string pythonFloat(double v) {
  if (std::isnan(v))
    return "float('nan')";
  if (std::isinf(v))
    return v > 0 ? "float('inf')" : "float('-inf')";
  std::string s = fmt::format("{}", v);
  if (s.find_first_of(".e") == std::string::npos)
    s += ".0";
  return s;
}

} // namespace wirc::emit
