//===- TestUtil.h - Helpers shared by the unit tests ----------------------===//
#ifndef WIRC_TEST_UNIT_TESTUTIL_H
#define WIRC_TEST_UNIT_TESTUTIL_H

#include "wirc/graph/JsonLocator.h"
#include "wirc/graph/Reader.h"
#include "wirc/ir/WrapperIR.h"
#include "wirc/passes/Pass.h"

#include <algorithm>
#include <filesystem>
#include <memory>
#include <string>
#include <vector>

namespace wirc::test {

/// Reads \p text as a graph document; diagnostics are collected in \p diag.
/// The engine keeps its own copy of the text, so later passes can still
/// locate their diagnostics.
inline std::unique_ptr<graph::Document> read(const std::string &text, DiagnosticEngine &diag) {
  auto owned = std::make_shared<const std::string>(text);
  diag.setSource("test.json", [owned](std::string_view pointer) {
    return graph::locateJsonPointer(*owned, pointer);
  });
  return graph::readDocument(*owned, diag);
}

/// The first error message, or "" when there is none.
inline std::string firstError(const DiagnosticEngine &diag) {
  for (const Diagnostic &d : diag.diagnostics())
    if (d.severity == Severity::Error)
      return d.message;
  return {};
}

/// Runs the default pipeline; returns false on a user error.
inline bool compile(const graph::Document &doc, ir::Module &module, DiagnosticEngine &diag,
                    passes::CompileOptions options = {}) {
  passes::PassContext ctx{&doc, options, diag};
  return passes::runPipeline(passes::buildDefaultPipeline(), module, ctx);
}

/// Every graph document of the repository (test fixtures and samples), in
/// path order.
inline std::vector<std::filesystem::path> corpusFiles() {
  std::vector<std::filesystem::path> files;
  for (const char *dir : {"/test/fixtures", "/samples"})
    for (const auto &entry :
         std::filesystem::recursive_directory_iterator(std::string(WIRC_SOURCE_DIR) + dir))
      if (entry.path().extension() == ".json")
        files.push_back(entry.path());
  std::sort(files.begin(), files.end());
  return files;
}

} // namespace wirc::test

#endif // WIRC_TEST_UNIT_TESTUTIL_H
