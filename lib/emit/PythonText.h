//===- PythonText.h - Literals for emitted Python (internal) --------------===//
//
// The pieces of input that reach emitted Python as text. Each keeps input
// data from being read as code. And the buffer that the FX emitters build
// their text in.
//
//===----------------------------------------------------------------------===//
#ifndef WIRC_LIB_EMIT_PYTHONTEXT_H
#define WIRC_LIB_EMIT_PYTHONTEXT_H

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
///
/// A buffer made over a string appends to that string in place, so a large
/// output is not copied into a string at the end (finish() sets the string's
/// length; the destructor does if it was not called).
class TextBuffer {
public:
  TextBuffer() = default;
  explicit TextBuffer(std::string &target)
      : base(target.data()), target(&target), capacity(target.size()), used(target.size()) {}
  TextBuffer(const TextBuffer &) = delete;
  TextBuffer &operator=(const TextBuffer &) = delete;
  ~TextBuffer() { finish(); }

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
    ensure(20);
    used = std::to_chars(base + used, base + capacity, value).ptr - base;
  }

  size_t size() const { return used; }
  /// Bytes it holds before it must grow: where the page populator may work
  /// ahead of the text.
  size_t room() const { return target ? target->capacity() : capacity; }
  bool empty() const { return used == 0; }
  void clear() { used = 0; }
  /// Drops the text from \p size on.
  void truncate(size_t size) { used = std::min(used, size); }
  /// Makes room for \p n more bytes, so that they are appended in place.
  /// Over a string, the room is its capacity, which costs no memory until
  /// it is written.
  void reserveMore(size_t n) {
    if (target) {
      target->reserve(used + n);
      base = target->data();
    } else if (capacity - used < n) {
      grow(n);
    }
  }
  std::string_view view() const { return {base, used}; }
  char *data() { return base; }
  /// Gives the target string its final length; the buffer is then empty.
  void finish() {
    if (!target)
      return;
    target->resize(used);
    target = nullptr;
    base = nullptr;
    capacity = used = 0;
  }

private:
  struct Free {
    void operator()(char *p) const { std::free(p); }
  };
  char *base = nullptr;
  std::unique_ptr<char, Free> owned;
  std::string *target = nullptr;
  /// Bytes that may be written: the allocation, or the target's length.
  size_t capacity = 0;
  size_t used = 0;

  void ensure(size_t n) {
    if (capacity - used < n)
      grow(n);
  }
  [[gnu::noinline]] void grow(size_t n) {
    if (target) {
      // A string's length is bytes it has written (zeros): lengthen it a
      // step at a time, so that few are written past the text's end.
      size_t step = std::clamp<size_t>(used / 8, 4096, size_t(4) << 20);
      target->resize(used + std::max(n, step));
      base = target->data();
      capacity = target->size();
      return;
    }
    // realloc: a large buffer mostly grows where it is, without a copy that
    // would touch its pages twice.
    size_t larger = std::max(2 * capacity, used + n + 256);
    char *p = static_cast<char *>(std::realloc(owned.get(), larger));
    if (!p)
      throw std::bad_alloc();
    (void)owned.release();
    owned.reset(p);
    base = p;
    capacity = larger;
  }
  char *extend(size_t n) {
    ensure(n);
    char *at = base + used;
    used += n;
    return at;
  }
};

} // namespace wirc::emit

#endif // WIRC_LIB_EMIT_PYTHONTEXT_H
