//===- wirc/driver/Compiler.h - One compilation, end to end ---------------===//
//
// The library entry point behind `wirc compile`: read and validate a graph,
// run the pipeline, emit, and write the output only if everything succeeded.
//
//===----------------------------------------------------------------------===//
#ifndef WIRC_DRIVER_COMPILER_H
#define WIRC_DRIVER_COMPILER_H

#include "wirc/emit/Emitter.h"
#include "wirc/passes/Pass.h"
#include "wirc/support/Diagnostics.h"

#include <string>

namespace wirc {

struct CompileRequest {
  std::string inputPath = "-";  ///< "-" is standard input
  std::string outputPath = "-"; ///< "-" is standard output
  emit::EmitKind emit = emit::EmitKind::Fx;
  bool printIR = false; ///< write the final Wrapper IR instead of emitting
  passes::CompileOptions options;
  emit::EmitOptions emitOptions;
  passes::PipelineInstrumentation instrumentation;
};

/// Runs one compilation, reporting problems to \p diag. Returns the exit code
/// the driver should use; InternalError propagates to the caller.
ExitCode compile(const CompileRequest &request, DiagnosticEngine &diag);

/// "wirc X.Y.Z".
std::string versionString();

} // namespace wirc

#endif // WIRC_DRIVER_COMPILER_H
