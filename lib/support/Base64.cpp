//===- Base64.cpp ---------------------------------------------------------===//
#include "wirc/support/Base64.h"

#include <array>
#include <cstdint>

namespace wirc {

std::string encodeBase64(std::string_view bytes) {
  static constexpr char kAlphabet[] =
      "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
  std::string out((bytes.size() + 2) / 3 * 4, '=');
  // Through a pointer: cubins are megabytes and this runs on every compile.
  char *p = out.data();
  size_t i = 0;
  for (; i + 3 <= bytes.size(); i += 3) {
    uint32_t v = uint32_t(uint8_t(bytes[i])) << 16 | uint32_t(uint8_t(bytes[i + 1])) << 8 |
                 uint8_t(bytes[i + 2]);
    p[0] = kAlphabet[v >> 18];
    p[1] = kAlphabet[(v >> 12) & 63];
    p[2] = kAlphabet[(v >> 6) & 63];
    p[3] = kAlphabet[v & 63];
    p += 4;
  }
  out.resize(static_cast<size_t>(p - out.data()));
  if (size_t rest = bytes.size() - i) {
    uint32_t v = uint32_t(uint8_t(bytes[i])) << 16;
    if (rest == 2)
      v |= uint32_t(uint8_t(bytes[i + 1])) << 8;
    out += kAlphabet[v >> 18];
    out += kAlphabet[(v >> 12) & 63];
    out += rest == 2 ? kAlphabet[(v >> 6) & 63] : '=';
    out += '=';
  }
  return out;
}

std::string decodeBase64(std::string_view text) {
  // A table per character (64 for padding, line breaks and anything else,
  // which are skipped) and writes through a pointer: cubins are megabytes.
  static constexpr auto kValue = [] {
    std::array<unsigned char, 256> value{};
    value.fill(64);
    for (int i = 0; i < 26; ++i) {
      value['A' + i] = static_cast<unsigned char>(i);
      value['a' + i] = static_cast<unsigned char>(26 + i);
    }
    for (int i = 0; i < 10; ++i)
      value['0' + i] = static_cast<unsigned char>(52 + i);
    value['+'] = 62;
    value['/'] = 63;
    return value;
  }();
  std::string out(text.size() / 4 * 3 + 3, '\0');
  char *p = out.data();
  unsigned bits = 0, acc = 0;
  for (char c : text) {
    unsigned v = kValue[static_cast<unsigned char>(c)];
    if (v == 64)
      continue;
    acc = (acc << 6) | v;
    bits += 6;
    if (bits >= 8) {
      bits -= 8;
      *p++ = static_cast<char>((acc >> bits) & 0xFF);
    }
  }
  out.resize(static_cast<size_t>(p - out.data()));
  return out;
}

} // namespace wirc
