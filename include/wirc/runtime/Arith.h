//===- wirc/runtime/Arith.h - Checked int64 arithmetic ----------*- C++ -*-===//
//
// Header-only, C++17-compatible helpers that the C++ printed by
// wirc::sym::printCpp() calls, so that size arithmetic in generated code never
// has undefined behaviour: every + - * checks for int64 overflow, divisions
// and modulo check for zero and for INT64_MIN / -1, and floor_div / ceil_div /
// py_mod have Python's rounding (toward -inf), not C's truncation.
//
// Two layers:
//   - try_* (noexcept): compute into an out-parameter and return an
//     ArithStatus; wirc::sym::evaluate() uses these, so the compiler and the
//     generated code agree bit for bit.
//   - the plain names (add, floor_div, ...): return the value, or call
//     arith_error() on failure.
//
// arith_error() throws std::overflow_error with a message naming the
// operation (for a division by zero too). A runtime that must not throw can
// define WIRC_RT_CUSTOM_ARITH_ERROR before including this header and provide
// its own `[[noreturn]] void wirc::rt::arith_error(const char *)`.
//
// Requires GCC or Clang (__builtin_*_overflow).
//
//===----------------------------------------------------------------------===//

#ifndef WIRC_RUNTIME_ARITH_H
#define WIRC_RUNTIME_ARITH_H

#include <cstdint>
#include <initializer_list>
#ifndef WIRC_RT_CUSTOM_ARITH_ERROR
#include <stdexcept>
#endif

namespace wirc {
namespace rt {

/// Outcome of a try_* helper.
enum class ArithStatus { Ok, Overflow, DivisionByZero, NegativeExponent };

#ifdef WIRC_RT_CUSTOM_ARITH_ERROR
/// Reports a failed operation; supplied by the including runtime.
[[noreturn]] void arith_error(const char *what);
#else
/// Reports a failed operation by throwing std::overflow_error(what).
[[noreturn]] inline void arith_error(const char *what) {
  throw std::overflow_error(what);
}
#endif

/// out = a + b.
constexpr ArithStatus try_add(int64_t a, int64_t b, int64_t &out) noexcept {
  return __builtin_add_overflow(a, b, &out) ? ArithStatus::Overflow
                                            : ArithStatus::Ok;
}

/// out = a - b.
constexpr ArithStatus try_sub(int64_t a, int64_t b, int64_t &out) noexcept {
  return __builtin_sub_overflow(a, b, &out) ? ArithStatus::Overflow
                                            : ArithStatus::Ok;
}

/// out = a * b.
constexpr ArithStatus try_mul(int64_t a, int64_t b, int64_t &out) noexcept {
  return __builtin_mul_overflow(a, b, &out) ? ArithStatus::Overflow
                                            : ArithStatus::Ok;
}

/// out = -a.
constexpr ArithStatus try_neg(int64_t a, int64_t &out) noexcept {
  return __builtin_sub_overflow(int64_t(0), a, &out) ? ArithStatus::Overflow
                                                     : ArithStatus::Ok;
}

/// out = a // b, rounding toward -inf like Python.
constexpr ArithStatus try_floor_div(int64_t a, int64_t b,
                                    int64_t &out) noexcept {
  if (b == 0)
    return ArithStatus::DivisionByZero;
  if (b == -1)
    return try_neg(a, out);
  int64_t q = a / b;
  // C truncates; step down when the exact quotient is negative and inexact.
  if (a % b != 0 && ((a < 0) != (b < 0)))
    --q;
  out = q;
  return ArithStatus::Ok;
}

/// out = ceil(a / b).
constexpr ArithStatus try_ceil_div(int64_t a, int64_t b,
                                   int64_t &out) noexcept {
  if (b == 0)
    return ArithStatus::DivisionByZero;
  if (b == -1)
    return try_neg(a, out);
  int64_t q = a / b;
  if (a % b != 0 && ((a < 0) == (b < 0)))
    ++q;
  out = q;
  return ArithStatus::Ok;
}

/// out = a % b with the sign of the divisor, like Python.
constexpr ArithStatus try_py_mod(int64_t a, int64_t b, int64_t &out) noexcept {
  if (b == 0)
    return ArithStatus::DivisionByZero;
  // INT64_MIN % -1 is undefined in C++; the answer is 0 for any a.
  if (b == -1) {
    out = 0;
    return ArithStatus::Ok;
  }
  int64_t r = a % b;
  if (r != 0 && ((r < 0) != (b < 0)))
    r += b;
  out = r;
  return ArithStatus::Ok;
}

/// out = base ** exp by squaring; only squares while higher exponent bits
/// remain, so it overflows exactly when the true result leaves int64.
constexpr ArithStatus try_pow(int64_t base, int64_t exp,
                              int64_t &out) noexcept {
  if (exp < 0)
    return ArithStatus::NegativeExponent;
  int64_t result = 1;
  while (true) {
    if (exp & 1)
      if (__builtin_mul_overflow(result, base, &result))
        return ArithStatus::Overflow;
    exp >>= 1;
    if (exp == 0)
      break;
    if (__builtin_mul_overflow(base, base, &base))
      return ArithStatus::Overflow;
  }
  out = result;
  return ArithStatus::Ok;
}

/// Checked a + b.
constexpr int64_t add(int64_t a, int64_t b) {
  int64_t r = 0;
  if (try_add(a, b, r) != ArithStatus::Ok)
    arith_error("wirc::rt::add: int64 overflow");
  return r;
}

/// Checked a - b.
constexpr int64_t sub(int64_t a, int64_t b) {
  int64_t r = 0;
  if (try_sub(a, b, r) != ArithStatus::Ok)
    arith_error("wirc::rt::sub: int64 overflow");
  return r;
}

/// Checked a * b.
constexpr int64_t mul(int64_t a, int64_t b) {
  int64_t r = 0;
  if (try_mul(a, b, r) != ArithStatus::Ok)
    arith_error("wirc::rt::mul: int64 overflow");
  return r;
}

/// Checked -a.
constexpr int64_t neg(int64_t a) {
  int64_t r = 0;
  if (try_neg(a, r) != ArithStatus::Ok)
    arith_error("wirc::rt::neg: int64 overflow");
  return r;
}

/// Checked left-to-right sum of at least one value.
constexpr int64_t sum(std::initializer_list<int64_t> values) {
  int64_t r = 0;
  bool first = true;
  for (int64_t v : values) {
    if (first) {
      r = v;
      first = false;
    } else if (try_add(r, v, r) != ArithStatus::Ok) {
      arith_error("wirc::rt::sum: int64 overflow");
    }
  }
  return r;
}

/// Checked left-to-right product of at least one value.
constexpr int64_t product(std::initializer_list<int64_t> values) {
  int64_t r = 1;
  bool first = true;
  for (int64_t v : values) {
    if (first) {
      r = v;
      first = false;
    } else if (try_mul(r, v, r) != ArithStatus::Ok) {
      arith_error("wirc::rt::product: int64 overflow");
    }
  }
  return r;
}

/// Python a // b; fails on b == 0 and on INT64_MIN // -1.
constexpr int64_t floor_div(int64_t a, int64_t b) {
  int64_t r = 0;
  ArithStatus s = try_floor_div(a, b, r);
  if (s == ArithStatus::DivisionByZero)
    arith_error("wirc::rt::floor_div: division by zero");
  if (s != ArithStatus::Ok)
    arith_error("wirc::rt::floor_div: int64 overflow");
  return r;
}

/// ceil(a / b); fails on b == 0 and on INT64_MIN / -1.
constexpr int64_t ceil_div(int64_t a, int64_t b) {
  int64_t r = 0;
  ArithStatus s = try_ceil_div(a, b, r);
  if (s == ArithStatus::DivisionByZero)
    arith_error("wirc::rt::ceil_div: division by zero");
  if (s != ArithStatus::Ok)
    arith_error("wirc::rt::ceil_div: int64 overflow");
  return r;
}

/// Python a % b; fails on b == 0.
constexpr int64_t py_mod(int64_t a, int64_t b) {
  int64_t r = 0;
  if (try_py_mod(a, b, r) != ArithStatus::Ok)
    arith_error("wirc::rt::py_mod: modulo by zero");
  return r;
}

/// Checked base ** exp; fails on exp < 0 and on overflow.
constexpr int64_t pow(int64_t base, int64_t exp) {
  int64_t r = 0;
  ArithStatus s = try_pow(base, exp, r);
  if (s == ArithStatus::NegativeExponent)
    arith_error("wirc::rt::pow: negative exponent");
  if (s != ArithStatus::Ok)
    arith_error("wirc::rt::pow: int64 overflow");
  return r;
}

/// The smaller of a and b.
constexpr int64_t min(int64_t a, int64_t b) noexcept { return b < a ? b : a; }

/// The larger of a and b.
constexpr int64_t max(int64_t a, int64_t b) noexcept { return a < b ? b : a; }

/// The smallest of at least one value.
constexpr int64_t min(std::initializer_list<int64_t> values) noexcept {
  const int64_t *it = values.begin();
  int64_t r = *it;
  for (++it; it != values.end(); ++it)
    r = min(r, *it);
  return r;
}

/// The largest of at least one value.
constexpr int64_t max(std::initializer_list<int64_t> values) noexcept {
  const int64_t *it = values.begin();
  int64_t r = *it;
  for (++it; it != values.end(); ++it)
    r = max(r, *it);
  return r;
}

} // namespace rt
} // namespace wirc

#endif // WIRC_RUNTIME_ARITH_H
