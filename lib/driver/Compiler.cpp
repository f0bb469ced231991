//===- Compiler.cpp -------------------------------------------------------===//
#include "wirc/driver/Compiler.h"

#include "wirc/graph/JsonLocator.h"
#include "wirc/graph/Reader.h"
#include "wirc/support/OutputFile.h"

#include <fmt/format.h>

namespace wirc {

std::string versionString() { return fmt::format("wirc {}", WIRC_VERSION); }

ExitCode compile(const CompileRequest &request, DiagnosticEngine &diag) {
  std::string text;
  if (std::string error = readWholeFile(request.inputPath, text); !error.empty()) {
    diag.error(error);
    return ExitCode::UserError;
  }
  // Diagnostics name the file as the user spelled it, so output does not
  // depend on the working directory.
  std::string displayName = request.inputPath == "-" ? "<stdin>" : request.inputPath;
  diag.setSource(displayName, [&text](std::string_view pointer) {
    return graph::locateJsonPointer(text, pointer);
  });

  std::unique_ptr<graph::Document> document = graph::readDocument(text, diag);
  if (!document)
    return ExitCode::UserError;

  ir::Module module;
  passes::PassContext context{*document, request.options, diag};
  if (!passes::runPipeline(passes::buildDefaultPipeline(), module, context,
                           request.instrumentation))
    return ExitCode::UserError;

  std::string output;
  try {
    output = request.printIR ? ir::printModule(module) : emit::emitModule(request.emit, module, request.emitOptions);
  } catch (const NotImplementedError &e) {
    diag.error(e.what());
    return ExitCode::NotImplemented;
  }
  if (std::string error = writeFileAtomically(request.outputPath, output); !error.empty()) {
    diag.error(error);
    return ExitCode::UserError;
  }
  return ExitCode::Success;
}

} // namespace wirc
