//===- PythonText.cpp -----------------------------------------------------===//
#include "PythonText.h"

#include <fmt/format.h>

#include <array>
#include <cmath>

namespace wirc::emit {

// Literals appended as string_views: the length is known here, not counted
// at run time.
using namespace std::string_view_literals;

namespace {

/// Bytes that a kernel source or comment copies as they are, per escaper.
/// Sources are most of a module's text: copying runs of plain bytes in one
/// piece is most of the cost of escaping them.
constexpr std::array<bool, 256> makePlainTable(bool keepNewlines) {
  std::array<bool, 256> plain{};
  for (unsigned c = 0; c < 256; ++c)
    plain[c] = c >= 0x20 && c != 0x7f;
  if (keepNewlines) {
    plain['\n'] = plain['\t'] = true;
    plain['\\'] = plain['\''] = false;
  }
  return plain;
}
constexpr std::array<bool, 256> kSourcePlain = makePlainTable(true);
constexpr std::array<bool, 256> kCommentPlain = makePlainTable(false);

void appendHexEscape(std::string &out, unsigned char c) {
  static constexpr char kDigits[] = "0123456789abcdef";
  char escape[4] = {'\\', 'x', kDigits[c >> 4], kDigits[c & 15]};
  out.append(escape, 4);
}

} // namespace

// Escapes a kernel source for a ''' string: backslashes are doubled and a
/// quote is escaped when another quote follows it or it ends the text, so no
/// run of three quotes (or a quote touching the closing ''') can survive.
/// Other control characters become escapes; newlines and tabs stay readable.
std::string tripleQuotedBody(std::string_view source) {
  std::string out;
  out.reserve(source.size() + 16);
  size_t i = 0;
  while (i < source.size()) {
    size_t run = i;
    while (run < source.size() && kSourcePlain[static_cast<unsigned char>(source[run])])
      ++run;
    out.append(source.data() + i, run - i); // UTF-8 passes through: the module is UTF-8
    i = run;
    if (i == source.size())
      break;
    unsigned char c = static_cast<unsigned char>(source[i]);
    if (c == '\\') {
      out += "\\\\"sv;
    } else if (c == '\'') {
      bool needsEscape = i + 1 == source.size() || source[i + 1] == '\'';
      out += needsEscape ? "\\'" : "'";
    } else if (c == '\r') {
      out += "\\r"sv;
    } else {
      appendHexEscape(out, c); // other control characters and 0x7f
    }
    ++i;
  }
  return out;
}

// A comment's text with everything but printable characters escaped, so a
/// comment can never end its line.
std::string commentText(std::string_view text) {
  std::string out;
  out.reserve(text.size());
  size_t i = 0;
  while (i < text.size()) {
    size_t run = i;
    while (run < text.size() && kCommentPlain[static_cast<unsigned char>(text[run])])
      ++run;
    out.append(text.data() + i, run - i);
    if (run == text.size())
      break;
    appendHexEscape(out, static_cast<unsigned char>(text[run]));
    i = run + 1;
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
    s += ".0"sv;
  return s;
}

} // namespace wirc::emit
