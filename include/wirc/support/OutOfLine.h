//===- wirc/support/OutOfLine.h - Members held out of line ----*- C++ -*-===//
//
// Graph nodes and IR lines are variants as large as their largest kind, and
// a large graph holds millions of them: rare, large members (views, scalar
// values, fixed grids, extern outputs, cond predicates) live out of line so
// that the common kinds stay small.
//
//===----------------------------------------------------------------------===//
#ifndef WIRC_SUPPORT_OUTOFLINE_H
#define WIRC_SUPPORT_OUTOFLINE_H

#include <memory>
#include <optional>
#include <utility>

namespace wirc {

/// An optional value kept out of line: it takes a pointer's room where
/// absent, which is where most are. Copies are deep; the interface is
/// std::optional's.
template <typename T> class OutOfLine {
public:
  OutOfLine() = default;
  OutOfLine(std::nullopt_t) {}
  OutOfLine(const T &value) : ptr(std::make_unique<T>(value)) {}
  OutOfLine(T &&value) : ptr(std::make_unique<T>(std::move(value))) {}
  OutOfLine(const OutOfLine &other) : ptr(other.ptr ? std::make_unique<T>(*other.ptr) : nullptr) {}
  OutOfLine(OutOfLine &&) noexcept = default;
  OutOfLine &operator=(const OutOfLine &other) {
    if (this != &other)
      ptr = other.ptr ? std::make_unique<T>(*other.ptr) : nullptr;
    return *this;
  }
  OutOfLine &operator=(OutOfLine &&) noexcept = default;
  OutOfLine &operator=(std::nullopt_t) {
    ptr.reset();
    return *this;
  }
  OutOfLine &operator=(const T &value) { return *this = OutOfLine(value); }
  OutOfLine &operator=(T &&value) { return *this = OutOfLine(std::move(value)); }

  bool has_value() const { return ptr != nullptr; }
  friend bool operator==(const OutOfLine &a, const OutOfLine &b) {
    return a.has_value() == b.has_value() && (!a.has_value() || *a == *b);
  }
  explicit operator bool() const { return has_value(); }
  T &operator*() { return *ptr; }
  const T &operator*() const { return *ptr; }
  T *operator->() { return ptr.get(); }
  const T *operator->() const { return ptr.get(); }
  void reset() { ptr.reset(); }

private:
  std::unique_ptr<T> ptr;
};

/// A value that is always there, held out of line. Copies are deep.
template <typename T> class Boxed {
public:
  Boxed() : ptr(std::make_unique<T>()) {}
  Boxed(const T &value) : ptr(std::make_unique<T>(value)) {}
  Boxed(T &&value) : ptr(std::make_unique<T>(std::move(value))) {}
  Boxed(const Boxed &other) : Boxed(*other) {}
  // Moves take the box: lines move when passes insert and drop lines, and a
  // vector of lines moves them on growth only if that cannot throw. A
  // moved-from box may only be assigned or destroyed.
  Boxed(Boxed &&other) noexcept = default;
  Boxed &operator=(const Boxed &other) { return *this = *other; }
  Boxed &operator=(Boxed &&other) noexcept = default;
  Boxed &operator=(const T &value) {
    if (ptr)
      *ptr = value;
    else
      ptr = std::make_unique<T>(value);
    return *this;
  }
  Boxed &operator=(T &&value) {
    if (ptr)
      *ptr = std::move(value);
    else
      ptr = std::make_unique<T>(std::move(value));
    return *this;
  }

  T &operator*() { return *ptr; }
  const T &operator*() const { return *ptr; }
  T *operator->() { return ptr.get(); }
  const T *operator->() const { return ptr.get(); }
  operator T &() { return *ptr; }
  operator const T &() const { return *ptr; }

private:
  std::unique_ptr<T> ptr;
};

} // namespace wirc

#endif // WIRC_SUPPORT_OUTOFLINE_H
