//===- PythonText.h - Literals for emitted Python (internal) --------------===//
//
// The pieces of input that reach emitted Python as text. Each keeps input
// data from being read as code.
//
//===----------------------------------------------------------------------===//
#ifndef WIRC_LIB_EMIT_PYTHONTEXT_H
#define WIRC_LIB_EMIT_PYTHONTEXT_H

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

/// A double as Python's repr would print it (`1.5`, `2.0`, `float('inf')`).
std::string pythonFloat(double value);

} // namespace wirc::emit

#endif // WIRC_LIB_EMIT_PYTHONTEXT_H
