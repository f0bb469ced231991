//===- wirc/support/Hash.h - A fast hash for short strings -----*- C++ -*-===//
//
// The hash of wirc's flat name tables (reader, build-wrapper-ir, FX
// printer). Names and expression spellings are short and looked up once per
// reference of a graph of up to millions of nodes, where std::hash's
// byte-at-a-time loop and a node per entry were a large share of the time.
//
//===----------------------------------------------------------------------===//
#ifndef WIRC_SUPPORT_HASH_H
#define WIRC_SUPPORT_HASH_H

#include <cstddef>
#include <cstdint>
#include <cstring>
#include <string_view>

namespace wirc {

/// Unaligned loads of a string's bytes, for word-at-a-time hashing and
/// comparison.
[[gnu::always_inline]] inline uint64_t load64(const char *at) {
  uint64_t w;
  std::memcpy(&w, at, 8);
  return w;
}
[[gnu::always_inline]] inline uint32_t load32(const char *at) {
  uint32_t w;
  std::memcpy(&w, at, 4);
  return w;
}

/// A cheap hash of a short string (names, expression spellings): 8-byte
/// loads mixed by multiplication, in line.
[[gnu::always_inline]] inline uint64_t hashText(std::string_view text) {
  const char *p = text.data();
  size_t n = text.size();
  // Each step folds the product's high half, which depends on every input
  // bit, into its low half; the last multiply and shift spread it again.
  auto mix = [](uint64_t h, uint64_t w) {
    h = (h ^ w) * 0x9E3779B97F4A7C15ULL;
    return h ^ (h >> 32);
  };
  uint64_t h = n;
  for (; n > 8; p += 8, n -= 8)
    h = mix(h, load64(p));
  uint64_t w = 0;
  if (n >= 4)
    w = load32(p) | uint64_t(load32(p + n - 4)) << 32;
  else if (n > 0)
    w = static_cast<unsigned char>(p[0]) | static_cast<unsigned char>(p[n / 2]) << 8 |
        uint64_t(static_cast<unsigned char>(p[n - 1])) << 16;
  h = mix(h, w) * 0xBF58476D1CE4E5B9ULL;
  return h ^ (h >> 31);
}

} // namespace wirc

#endif // WIRC_SUPPORT_HASH_H
