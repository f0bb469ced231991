//===- wirc/cuda/ContentHash.h - Content hashes of kernel images ----------===//
//
// SHA-256 names compiled kernels in the cache and the manifest: a key must
// not collide across the sources a user ever compiles, so a short
// non-cryptographic hash will not do.
//
//===----------------------------------------------------------------------===//
#ifndef WIRC_CUDA_CONTENTHASH_H
#define WIRC_CUDA_CONTENTHASH_H

#include <array>
#include <cstdint>
#include <string>
#include <string_view>

namespace wirc::cuda {

/// An incremental SHA-256 (FIPS 180-4).
class Sha256 {
public:
  Sha256();
  /// Adds \p data to the message.
  void update(std::string_view data);
  /// Adds \p data followed by a zero byte, so that consecutive fields cannot
  /// run into each other.
  void field(std::string_view data) {
    update(data);
    update(std::string_view("\0", 1));
  }
  /// The digest as 64 lower-case hex digits. Ends the message.
  std::string hexDigest();

private:
  void block(const uint8_t *data);

  std::array<uint32_t, 8> state;
  std::array<uint8_t, 64> buffer{};
  size_t buffered = 0;
  uint64_t length = 0;
};

/// The SHA-256 of \p data in hex.
std::string sha256Hex(std::string_view data);

} // namespace wirc::cuda

#endif // WIRC_CUDA_CONTENTHASH_H
