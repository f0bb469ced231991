//===- wirc/graph/Reader.h - Read and validate a graph document -----------===//
#ifndef WIRC_GRAPH_READER_H
#define WIRC_GRAPH_READER_H

#include "wirc/graph/Graph.h"
#include "wirc/support/Diagnostics.h"

#include <functional>
#include <memory>
#include <string_view>

namespace wirc::graph {

/// Limits that bound the work and memory any input can cause. Documented in
/// docs/graph-format.md.
struct ReaderLimits {
  size_t maxInputBytes = size_t(1) << 31; ///< 2 GiB
  unsigned maxNesting = 64;               ///< JSON nesting depth
  size_t maxRank = 64;                    ///< dimensions of a tensor
  size_t maxStringBytes = size_t(64) << 20; ///< one string (kernel sources)
  size_t maxNodes = size_t(1) << 22;        ///< nodes of all graphs together
  /// Threads that read a large graph's nodes (1: only the calling thread);
  /// from four, also those that parse a large document and read its buffer
  /// table in parts. The document, the diagnostics and everything after do
  /// not depend on it.
  unsigned threads = 1;
  /// Fewer nodes (or buffers) than this per thread are read by the calling
  /// thread alone: starting a thread costs more than it saves.
  size_t minNodesPerThread = 32768;
  /// Texts smaller than this are parsed by the calling thread alone
  /// (json::ParseOptions::partsFrom).
  size_t partsFrom = size_t(2) << 20;
};

/// Parses and validates a graph-format document. Reports every problem to
/// \p diag (located by JSON Pointer) and returns null if there was any error.
/// \p diag's locator must already be set up for \p text.
/// Now and then, \p readUpTo receives a range [begin, end) of \p text that
/// the reader has moved past: it will seldom read those bytes again (the
/// caller may let their pages leave memory, as long as they stay readable).
/// With several threads it is called from each of them.
/// \p stepDone, on the calling thread, is told as each step ends:
/// "read:parse" (the JSON text), "read:tables" (header, symbols, kernels,
/// subgraphs, the main graph's inputs, constants and buffers), "read:nodes"
/// (the main graph's nodes and outputs); checking the graphs follows.
std::unique_ptr<Document>
readDocument(std::string_view text, DiagnosticEngine &diag, const ReaderLimits &limits = {},
             const std::function<void(size_t, size_t)> &readUpTo = {},
             const std::function<void(std::string_view)> &stepDone = {});

} // namespace wirc::graph

#endif // WIRC_GRAPH_READER_H
