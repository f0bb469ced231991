//===- wirc/support/Base64.h - Base64 (RFC 4648) --------------------------===//
//
// Graph documents carry cubins as base64 text; the kernel cache and the C++
// emitter convert them. Both directions write through a pointer: cubins are
// megabytes, and a warm recompile spends much of its time here.
//
//===----------------------------------------------------------------------===//
#ifndef WIRC_SUPPORT_BASE64_H
#define WIRC_SUPPORT_BASE64_H

#include <string>
#include <string_view>

namespace wirc {

/// Standard base64 with padding (RFC 4648).
std::string encodeBase64(std::string_view bytes);
/// Decodes base64, skipping padding, line breaks and other characters
/// outside the alphabet.
std::string decodeBase64(std::string_view text);

} // namespace wirc

#endif // WIRC_SUPPORT_BASE64_H
