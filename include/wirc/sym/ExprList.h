//===- wirc/sym/ExprList.h - A tensor's sizes or strides ------*- C++ -*-===//
//
// Sizes and strides are copied wherever a layout is: from the reader's cache
// into every tensor, from a tensor into its buffer and its size assert. Most
// tensors have three dimensions or fewer, so a list keeps up to three
// expressions in place and allocates only beyond that. It is 32 bytes: 8 more
// than a std::vector, which would also take a heap block for its items.
//
//===----------------------------------------------------------------------===//
#ifndef WIRC_SYM_EXPRLIST_H
#define WIRC_SYM_EXPRLIST_H

#include "wirc/sym/Expr.h"

#include <algorithm>
#include <cstdint>
#include <initializer_list>
#include <memory>
#include <new>
#include <span>
#include <vector>

namespace wirc::sym {

class ExprList {
public:
  using value_type = Expr;
  using iterator = Expr *;
  using const_iterator = const Expr *;
  using size_type = size_t;

  ExprList() noexcept {}
  ExprList(std::initializer_list<Expr> list) { assign(list.begin(), list.size()); }
  explicit ExprList(std::span<const Expr> list) { assign(list.data(), list.size()); }
  explicit ExprList(const std::vector<Expr> &list) { assign(list.data(), list.size()); }
  ExprList(const ExprList &other) { assign(other.data(), other.count); }
  ExprList(ExprList &&other) noexcept { take(other); }
  ExprList &operator=(const ExprList &other) {
    if (this != &other) {
      clear();
      assign(other.data(), other.count);
    }
    return *this;
  }
  ExprList &operator=(ExprList &&other) noexcept {
    if (this != &other) {
      destroy();
      take(other);
    }
    return *this;
  }
  ExprList &operator=(std::initializer_list<Expr> list) {
    clear();
    assign(list.begin(), list.size());
    return *this;
  }
  ~ExprList() { destroy(); }

  size_t size() const { return count; }
  bool empty() const { return count == 0; }
  Expr *data() { return onHeap() ? heap : inlineItems; }
  const Expr *data() const { return onHeap() ? heap : inlineItems; }
  Expr *begin() { return data(); }
  Expr *end() { return data() + count; }
  const Expr *begin() const { return data(); }
  const Expr *end() const { return data() + count; }
  Expr &operator[](size_t i) { return data()[i]; }
  const Expr &operator[](size_t i) const { return data()[i]; }
  Expr &front() { return data()[0]; }
  const Expr &front() const { return data()[0]; }
  Expr &back() { return data()[count - 1]; }
  const Expr &back() const { return data()[count - 1]; }
  operator std::span<const Expr>() const { return {data(), count}; }
  std::vector<Expr> toVector() const { return {begin(), end()}; }

  void reserve(size_t n) {
    if (n > capacity())
      grow(n);
  }
  void clear() {
    std::destroy_n(data(), count);
    count = 0;
  }
  void push_back(const Expr &e) { emplace_back(e); }
  void push_back(Expr &&e) { emplace_back(std::move(e)); }
  template <typename... Args> Expr &emplace_back(Args &&...args) {
    // Made before growing: the arguments may refer to an item of this list.
    Expr value(std::forward<Args>(args)...);
    if (count == capacity())
      grow(std::max<size_t>(2 * capacity(), kInline + 1));
    Expr *at = new (data() + count) Expr(std::move(value));
    ++count;
    return *at;
  }
  void pop_back() { data()[--count].~Expr(); }

  friend bool operator==(const ExprList &a, const ExprList &b) {
    return std::equal(a.begin(), a.end(), b.begin(), b.end());
  }

private:
  static constexpr uint32_t kInline = 3;
  bool onHeap() const { return cap > kInline; }
  size_t capacity() const { return cap; }

  void assign(const Expr *from, size_t n) {
    reserve(n);
    std::uninitialized_copy_n(from, n, data());
    count = static_cast<uint32_t>(n);
  }
  /// Takes \p other's items; \p other is left empty and in place.
  void take(ExprList &other) noexcept {
    if (other.onHeap()) {
      heap = other.heap;
      cap = other.cap;
      count = other.count;
      other.cap = kInline;
      other.count = 0;
      return;
    }
    std::uninitialized_move_n(other.inlineItems, other.count, inlineItems);
    count = other.count;
    other.clear();
  }
  void destroy() noexcept {
    std::destroy_n(data(), count);
    if (onHeap())
      ::operator delete(heap);
    count = 0;
    cap = kInline;
  }
  void grow(size_t n) {
    Expr *to = static_cast<Expr *>(::operator new(n * sizeof(Expr)));
    Expr *from = data();
    std::uninitialized_move_n(from, count, to);
    std::destroy_n(from, count);
    if (onHeap())
      ::operator delete(heap);
    heap = to;
    cap = static_cast<uint32_t>(n);
  }

  union {
    Expr inlineItems[kInline];
    Expr *heap;
  };
  uint32_t count = 0;
  uint32_t cap = kInline;
};

static_assert(sizeof(ExprList) == 32);

} // namespace wirc::sym

#endif // WIRC_SYM_EXPRLIST_H
