//===- Names.cpp ----------------------------------------------------------===//
#include "wirc/support/Names.h"

#include <algorithm>
#include <array>

#include <fmt/format.h>

namespace wirc {

namespace {
// Sorted, for binary search.
constexpr std::array<std::string_view, 35> kPythonKeywords = {
    "False",  "None",   "True",    "and",      "as",       "assert", "async",
    "await",  "break",  "class",   "continue", "def",      "del",    "elif",
    "else",   "except", "finally", "for",      "from",     "global", "if",
    "import", "in",     "is",      "lambda",   "nonlocal", "not",    "or",
    "pass",   "raise",  "return",  "try",      "while",    "with",   "yield"};

constexpr std::array<std::string_view, 92> kCppKeywords = {
    "alignas",      "alignof",     "and",          "and_eq",
    "asm",          "auto",        "bitand",       "bitor",
    "bool",         "break",       "case",         "catch",
    "char",         "char16_t",    "char32_t",     "char8_t",
    "class",        "co_await",    "co_return",    "co_yield",
    "compl",        "concept",     "const",        "const_cast",
    "consteval",    "constexpr",   "constinit",    "continue",
    "decltype",     "default",     "delete",       "do",
    "double",       "dynamic_cast", "else",        "enum",
    "explicit",     "export",      "extern",       "false",
    "float",        "for",         "friend",       "goto",
    "if",           "inline",      "int",          "long",
    "mutable",      "namespace",   "new",          "noexcept",
    "not",          "not_eq",      "nullptr",      "operator",
    "or",           "or_eq",       "private",      "protected",
    "public",       "register",    "reinterpret_cast", "requires",
    "return",       "short",       "signed",       "sizeof",
    "static",       "static_assert", "static_cast", "struct",
    "switch",       "template",    "this",         "thread_local",
    "throw",        "true",        "try",          "typedef",
    "typeid",       "typename",    "union",        "unsigned",
    "using",        "virtual",     "void",         "volatile",
    "wchar_t",      "while",       "xor",          "xor_eq"};

// Names the emitted wrappers bind themselves (Python module globals and the
// locals of call(), C++ wrapper locals). A graph name equal to one of these
// would shadow or be shadowed by wrapper code.
constexpr std::array<std::string_view, 31> kWrapperNames = {
    "args", "assert_size_stride", "async_compile", "aten",
    "benchmark_compiled_module", "c_int", "c_long", "c_void_p", "call",
    "device", "empty_strided", "empty_strided_cpu", "empty_strided_cuda",
    "extern_kernels", "get_raw_stream", "grid", "math", "operator", "os",
    "random", "reinterpret_tensor", "should_loop", "stream", "stream0", "tempfile", "tl",
    "torch", "triton", "wirc", "wirc_rt", "workspace"};

bool sortedContains(const auto &table, std::string_view name) {
  return std::binary_search(table.begin(), table.end(), name);
}

/// The last bytes of the reserved names above. Most graph names end in a
/// digit (buf12, primals_3), which almost no reserved name does: a name whose
/// last byte is not here needs no search of the tables.
constexpr std::array<bool, 256> kReservedLastByte = [] {
  std::array<bool, 256> last{};
  auto add = [&](const auto &table) {
    for (std::string_view name : table)
      last[static_cast<unsigned char>(name.back())] = true;
  };
  add(kPythonKeywords);
  add(kCppKeywords);
  add(kWrapperNames);
  return last;
}();

bool mayBeReserved(std::string_view name) {
  return kReservedLastByte[static_cast<unsigned char>(name.back())];
}

/// Per byte: 1 for [A-Za-z_], 2 for [0-9], 0 otherwise.
constexpr std::array<uint8_t, 256> kIdentifierByte = [] {
  std::array<uint8_t, 256> kind{};
  for (int c = 'a'; c <= 'z'; ++c)
    kind[c] = kind[c - 'a' + 'A'] = 1;
  kind['_'] = 1;
  for (int c = '0'; c <= '9'; ++c)
    kind[c] = 2;
  return kind;
}();

/// Names that pass every rule without a table search: most graph names
/// (buf12, primals_3, in_ptr0) end in a digit and start with neither '_'
/// (the '__' rule) nor 'w' (the 'wirc_' rule).
bool plainlyValid(std::string_view name) {
  return !name.empty() && name.size() <= kMaxNameLength && name[0] != '_' &&
         name[0] != 'w' && !mayBeReserved(name) && isPlainIdentifier(name);
}
} // namespace

bool isPlainIdentifier(std::string_view name) {
  if (name.empty() || kIdentifierByte[static_cast<unsigned char>(name[0])] != 1)
    return false;
  for (size_t i = 1; i < name.size(); ++i)
    if (!kIdentifierByte[static_cast<unsigned char>(name[i])])
      return false;
  return true;
}

namespace {
/// Python's rules for a name: why \p name breaks one, or nullopt.
std::optional<std::string> pythonNameRules(std::string_view name) {
  if (name.empty())
    return std::string("is empty");
  if (name.size() > kMaxNameLength)
    return fmt::format("is longer than {} characters", kMaxNameLength);
  if (!isPlainIdentifier(name))
    return std::string("is not an identifier ([A-Za-z_][A-Za-z0-9_]*)");
  if (mayBeReserved(name) && sortedContains(kPythonKeywords, name))
    return std::string("is a Python keyword");
  // Leading double underscores are reserved in C++ and mangled in Python
  // classes.
  if (name.starts_with("__"))
    return std::string("starts with '__', which is reserved");
  return std::nullopt;
}
} // namespace

std::optional<std::string> checkKeywordName(std::string_view name) {
  if (plainlyValid(name))
    return std::nullopt;
  return pythonNameRules(name);
}

std::optional<std::string> checkIdentifier(std::string_view name) {
  // A graph name is also a variable of the emitted wrappers: Python's rules,
  // then C++'s and the wrappers' own names (wirc_* included).
  if (plainlyValid(name))
    return std::nullopt;
  if (auto why = pythonNameRules(name))
    return why;
  if (mayBeReserved(name) && sortedContains(kCppKeywords, name))
    return std::string("is a C++ keyword");
  if (mayBeReserved(name) && sortedContains(kWrapperNames, name))
    return std::string("is reserved for the emitted wrapper's own names");
  if (name.starts_with("wirc_"))
    return std::string("starts with 'wirc_', which is reserved for wirc");
  return std::nullopt;
}

std::string pythonStringLiteral(std::string_view text) {
  std::string out = "'";
  for (unsigned char c : text) {
    switch (c) {
    case '\\':
      out += "\\\\";
      break;
    case '\'':
      out += "\\'";
      break;
    case '\n':
      out += "\\n";
      break;
    case '\t':
      out += "\\t";
      break;
    default:
      if (c < 0x20 || c >= 0x7f)
        out += fmt::format("\\x{:02x}", c);
      else
        out += static_cast<char>(c);
    }
  }
  out += "'";
  return out;
}

std::optional<size_t> parseCanonicalIndex(std::string_view digits, size_t maxDigits) {
  if (digits.empty() || digits.size() > maxDigits || (digits.size() > 1 && digits[0] == '0'))
    return std::nullopt;
  size_t index = 0;
  for (char c : digits) {
    if (c < '0' || c > '9')
      return std::nullopt;
    index = index * 10 + static_cast<size_t>(c - '0');
  }
  return index;
}

} // namespace wirc
