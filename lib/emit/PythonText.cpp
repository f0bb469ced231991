//===- PythonText.cpp -----------------------------------------------------===//
#include "PythonText.h"

#include <fmt/format.h>

#include <array>
#include <bit>
#include <cmath>
#ifdef __SSE2__
#include <emmintrin.h>
#endif

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

/// The first byte at or after \p i that \p plain does not mark, or the end.
/// Sources and comments are mostly plain: sixteen bytes a step where SSE2
/// is there, the table for the rest.
template <bool kSource>
size_t plainRun(std::string_view text, size_t i, const std::array<bool, 256> &plain) {
#ifdef __SSE2__
  const char *data = text.data();
  while (text.size() - i >= 16) {
    __m128i v = _mm_loadu_si128(reinterpret_cast<const __m128i *>(data + i));
    // Bytes up to 0x1f (an unsigned compare through max) and 0x7f.
    __m128i low = _mm_set1_epi8(0x1f);
    __m128i special = _mm_or_si128(_mm_cmpeq_epi8(_mm_max_epu8(v, low), low),
                                   _mm_cmpeq_epi8(v, _mm_set1_epi8(0x7f)));
    if constexpr (kSource) {
      __m128i kept = _mm_or_si128(_mm_cmpeq_epi8(v, _mm_set1_epi8('\n')),
                                  _mm_cmpeq_epi8(v, _mm_set1_epi8('\t')));
      special = _mm_andnot_si128(kept, special);
      special = _mm_or_si128(special, _mm_or_si128(_mm_cmpeq_epi8(v, _mm_set1_epi8('\\')),
                                                   _mm_cmpeq_epi8(v, _mm_set1_epi8('\''))));
    }
    if (unsigned mask = static_cast<unsigned>(_mm_movemask_epi8(special)))
      return i + static_cast<size_t>(std::countr_zero(mask));
    i += 16;
  }
#endif
  while (i < text.size() && plain[static_cast<unsigned char>(text[i])])
    ++i;
  return i;
}

void appendHexEscape(std::string &out, unsigned char c) {
  std::array<char, 4> escape = hexEscape(c);
  out.append(escape.data(), escape.size());
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
    size_t run = plainRun<true>(source, i, kSourcePlain);
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

size_t commentPlainRun(std::string_view text, size_t from) {
  return plainRun<false>(text, from, kCommentPlain);
}

std::string commentText(std::string_view text) {
  std::string out;
  out.reserve(text.size());
  appendCommentText(out, text);
  return out;
}

namespace {
/// A complex part as repr prints it: no `.0` of its own (`1`, `1.5`, `inf`).
std::string complexPart(double v) {
  if (std::isnan(v))
    return "nan";
  if (std::isinf(v))
    return v > 0 ? "inf" : "-inf";
  return fmt::format("{}", v);
}
} // namespace

std::string pythonComplex(double real, double imag, bool source) {
  // repr's spelling reads back as the same number unless a part is not
  // finite or is -0.0 (`(1-0j)` is 1 - 0j, whose imaginary part is +0.0),
  // or it is a negative imaginary number (`-1j` is -(1j): its real part is -0.0).
  auto exact = [](double v) { return std::isfinite(v) && !(v == 0 && std::signbit(v)); };
  if (source && !(exact(real) && exact(imag) && !(real == 0 && imag < 0)))
    return fmt::format("complex({}, {})", pythonFloat(real), pythonFloat(imag));
  std::string im = complexPart(imag);
  // Python leaves out a real part that is +0.0, not one that is -0.0.
  if (real == 0 && !std::signbit(real))
    return im + "j";
  return fmt::format("({}{}{}j)", complexPart(real), im[0] == '-' ? "" : "+", im);
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
