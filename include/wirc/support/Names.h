//===- wirc/support/Names.h - Names that reach emitted code ---------------===//
//
// Every name in a graph ends up as an identifier in emitted Python or C++.
// Input is data, never code: a name is accepted only if it is a plain ASCII
// identifier that is not a keyword of either language and does not collide
// with a local the emitted wrappers define themselves.
//
//===----------------------------------------------------------------------===//
#ifndef WIRC_SUPPORT_NAMES_H
#define WIRC_SUPPORT_NAMES_H

#include <optional>
#include <string>
#include <string_view>

namespace wirc {

/// Maximum length of any name in a graph.
inline constexpr size_t kMaxNameLength = 256;

/// Returns why \p name cannot be used as a graph name, or nullopt if it can.
/// The reason is a phrase such as "is a Python keyword".
std::optional<std::string> checkIdentifier(std::string_view name);

/// Why \p name cannot be a keyword argument's name (`op(x, name=...)`), or
/// nullopt. Keyword names never become variables of the emitted wrappers, so
/// only Python's rules apply: an identifier that is not a Python keyword
/// (`device=` is fine; `lambda=` and `__x=` are not).
std::optional<std::string> checkKeywordName(std::string_view name);

/// True for `[A-Za-z_][A-Za-z0-9_]*`.
bool isPlainIdentifier(std::string_view name);

/// Returns \p text quoted as a Python single-quoted string literal, with
/// every character outside printable ASCII escaped.
std::string pythonStringLiteral(std::string_view text);

/// \p digits as a decimal number spelled canonically (digits only, no
/// leading zero, 1 to \p maxDigits of them), or nullopt: the indices names
/// carry (PARAM_3, xnumel_1) have one spelling each.
std::optional<size_t> parseCanonicalIndex(std::string_view digits, size_t maxDigits = 9);

} // namespace wirc

#endif // WIRC_SUPPORT_NAMES_H
