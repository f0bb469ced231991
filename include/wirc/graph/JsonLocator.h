//===- wirc/graph/JsonLocator.h - JSON Pointer to line and column ---------===//
//
// Parsed JSON values carry no positions. Errors are rare, so instead of
// recording a position for every value, the locator walks the source text to
// the value a JSON Pointer names when a diagnostic needs it.
//
//===----------------------------------------------------------------------===//
#ifndef WIRC_GRAPH_JSONLOCATOR_H
#define WIRC_GRAPH_JSONLOCATOR_H

#include "wirc/support/Diagnostics.h"

#include <string_view>

namespace wirc::graph {

/// Returns the position of the value \p pointer names in \p text, or of the
/// deepest enclosing value that exists. Never fails: malformed text yields
/// the position where scanning stopped.
SourcePos locateJsonPointer(std::string_view text, std::string_view pointer);

/// Line and column (1-based, columns in bytes) of a byte offset.
SourcePos positionOfOffset(std::string_view text, size_t offset);

} // namespace wirc::graph

#endif // WIRC_GRAPH_JSONLOCATOR_H
