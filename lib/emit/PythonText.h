//===- PythonText.h - Literals for emitted Python (internal) --------------===//
//
// The pieces of input that reach emitted Python as text. Each keeps input
// data from being read as code. And the buffer that the FX emitters build
// their text in.
//
//===----------------------------------------------------------------------===//
#ifndef WIRC_LIB_EMIT_PYTHONTEXT_H
#define WIRC_LIB_EMIT_PYTHONTEXT_H

#include "wirc/support/PagePopulator.h"

#include <algorithm>
#include <array>
#include <charconv>
#include <cstddef>
#include <cstdint>
#include <cstdlib>
#include <cstring>
#include <new>
#include <memory>
#include <string>
#include <string_view>

#include <sys/mman.h>
#include <unistd.h>

namespace wirc::emit {

/// Escapes a kernel source for the inside of a ''' string: backslashes are
/// doubled and a quote is escaped when another quote follows it or it ends
/// the text, so nothing in a source can close the literal. Newlines and tabs
/// stay readable; other control characters become escapes.
std::string tripleQuotedBody(std::string_view source);

/// A comment's text with every control character escaped, so that a comment
/// can never end its line.
std::string commentText(std::string_view text);
/// The first byte of \p text at or after \p from that commentText escapes,
/// or text.size().
size_t commentPlainRun(std::string_view text, size_t from);
/// `\xHH`, the escape of byte \p c in a Python string or comment.
inline std::array<char, 4> hexEscape(unsigned char c) {
  static constexpr char kDigits[] = "0123456789abcdef";
  return {'\\', 'x', kDigits[c >> 4], kDigits[c & 15]};
}
/// Appends commentText(\p text) to \p out (a std::string or TextBuffer)
/// without building it apart; most comments need no escape and are appended
/// whole.
template <typename Out> void appendCommentText(Out &out, std::string_view text) {
  size_t i = 0;
  while (i < text.size()) {
    size_t run = commentPlainRun(text, i);
    out += text.substr(i, run - i);
    if (run == text.size())
      break;
    std::array<char, 4> escape = hexEscape(static_cast<unsigned char>(text[run]));
    out += std::string_view(escape.data(), escape.size());
    i = run + 1;
  }
}

/// A double as Python's repr would print it (`1.5`, `2.0`, `float('inf')`).
std::string pythonFloat(double value);

/// A complex number as Python's repr prints it (`1j`, `(1.5-2j)`, `(inf+nanj)`).
/// With \p source, text Python reads back as the same two doubles: a part
/// that is not finite or is -0.0 makes it `complex(float('inf'), -0.0)`.
std::string pythonComplex(double real, double imag, bool source);

/// Appends \p value in decimal, without a formatting temporary.
inline void appendInt(std::string &out, int64_t value) {
  char buffer[24];
  out.append(buffer, std::to_chars(buffer, buffer + sizeof buffer, value).ptr);
}

/// Functions from which an emitter that prints on one thread has its text's
/// pages faulted in on another (support/PagePopulator.h).
constexpr size_t kPopulateFromLines = 65536;

/// Text built from many short pieces, a few per token: an append is a
/// bounds check and a copy (of a literal, one of known length), where
/// std::string::append is a call that measures and checks. Room is added
/// without being cleared first.
class TextBuffer {
public:
  TextBuffer &operator+=(std::string_view text) {
    std::memcpy(extend(text.size()), text.data(), text.size());
    return *this;
  }
  template <size_t N> TextBuffer &operator+=(const char (&literal)[N]) {
    std::memcpy(extend(N - 1), literal, N - 1);
    return *this;
  }
  TextBuffer &operator+=(char c) {
    *extend(1) = c;
    return *this;
  }
  TextBuffer &operator+=(const TextBuffer &other) { return *this += other.view(); }

  /// Appends \p value in decimal.
  void appendInt(int64_t value) {
    reserveMore(20);
    used = std::to_chars(data.get() + used, data.get() + capacity, value).ptr - data.get();
  }

  size_t size() const { return used; }
  /// Bytes it can hold before it grows.
  size_t room() const { return capacity; }
  bool empty() const { return used == 0; }
  void clear() { used = 0; }
  /// Drops the text from \p size on.
  void truncate(size_t size) { used = std::min(used, size); }
  /// Makes room for \p n more bytes, so that they are appended in place.
  void reserveMore(size_t n) {
    if (capacity - used < n)
      grow(n);
  }
  std::string_view view() const { return {data.get(), used}; }
  /// The text as a string, leaving the buffer empty. At scale the buffer's
  /// pages are let go behind the copy, so the two are not both in memory.
  /// With \p populator, the string's pages are faulted in ahead of the copy.
  std::string take(PagePopulator *populator = nullptr) {
    constexpr size_t kStep = size_t(16) << 20;
    std::string result;
    result.reserve(used);
    for (size_t at = 0; at < used; at += kStep) {
      if (populator)
        populator->report(1, result.data(), result.size(), result.capacity());
      result.append(data.get() + at, std::min(kStep, used - at));
      releaseBefore(at + kStep);
    }
    data.reset();
    capacity = used = 0;
    return result;
  }
  /// Lets the pages before byte \p end leave memory: text that was copied
  /// out and will not be read again (the bytes become unspecified).
  void releaseBefore(size_t end) {
    size_t page = static_cast<size_t>(::sysconf(_SC_PAGESIZE));
    uintptr_t first = (reinterpret_cast<uintptr_t>(data.get()) + page - 1) / page * page;
    uintptr_t last = (reinterpret_cast<uintptr_t>(data.get()) + std::min(end, used)) / page * page;
    if (last > first)
      ::madvise(reinterpret_cast<void *>(first), last - first, MADV_DONTNEED);
  }

private:
  struct Free {
    void operator()(char *p) const { std::free(p); }
  };
  std::unique_ptr<char, Free> data;
  size_t capacity = 0;
  size_t used = 0;

  // realloc: a large buffer mostly grows where it is, without a copy that
  // would touch its pages twice.
  [[gnu::noinline]] void grow(size_t n) {
    size_t larger = std::max(2 * capacity, used + n + 256);
    char *p = static_cast<char *>(std::realloc(data.get(), larger));
    if (!p)
      throw std::bad_alloc();
    (void)data.release();
    data.reset(p);
    capacity = larger;
  }
  char *extend(size_t n) {
    reserveMore(n);
    char *at = data.get() + used;
    used += n;
    return at;
  }
};

} // namespace wirc::emit

#endif // WIRC_LIB_EMIT_PYTHONTEXT_H
